"""A committed notebook's reading cells carry the words its committed records give (reproq.report.readings)."""

from __future__ import annotations

import json
import shutil

import pytest

from reproq import paths, runner
from reproq.notebook_json import readings_only
from reproq.report import guide, readings
from reproq.report.verdicts import load_records
from reproq.results import claim


def test_every_committed_reading_cell_is_what_the_committed_records_give():
    notebooks = runner.notebooks()
    assert any(readings.rendered(nb, paths.ROOT / "results") for nb in notebooks), "no notebook has a reading cell"
    stale = readings.stale(notebooks, paths.ROOT / "results")
    assert not stale, f"reading cells that are not what the records say: {stale}; run `reproq report --write`"


@pytest.fixture
def copy(tmp_path):
    for folder in ("04_trecqa_ctrn", "machines"):  # its records, and how far they move on another machine
        shutil.copytree(paths.ROOT / "results" / folder, tmp_path / "results" / folder)
    shutil.copy(paths.NOTEBOOKS_DIR / "04_trecqa_ctrn.ipynb", tmp_path / "04_trecqa_ctrn.ipynb")
    return tmp_path / "04_trecqa_ctrn.ipynb", tmp_path / "results"


def test_a_changed_record_makes_the_reading_stale_and_writing_mends_it(copy):
    notebook, results = copy
    assert readings.stale([notebook], results) == []
    records = results / "04_trecqa_ctrn" / "tay2018_table6.jsonl"
    lines = [json.loads(line) for line in records.read_text().splitlines()]
    train = dict(table="Table 6", split="test", setting="train=TRAIN")
    before = claim(load_records(results, "04_trecqa_ctrn"), "CTRN", "QRNN", metric="MAP", **train)["delta"]
    for r in lines:  # CTRN's TRAIN seeds 0.05 higher: the claim's difference moves
        if r["method"] == "CTRN" and r["setting"] == "train=TRAIN" and r["metric"] == "MAP":
            r["value"] += 0.05
    records.write_text("".join(json.dumps(r) + "\n" for r in lines))
    # the claim's reading, the alignments' (its literal row) and the glance at Table 6 (CTRN's TRAIN MAP)
    assert len(readings.stale([notebook], results)) == 3
    assert readings.write(notebook, results) is True
    assert readings.stale([notebook], results) == [] and readings.write(notebook, results) is False
    cell = next(c for c in json.loads(notebook.read_text())["cells"] if readings.reading_of(c) == "tay2018.trecqa")
    assert f"CTRN − QRNN MAP {before + 0.05:+.3f}" in "".join(cell["source"])


def test_a_reading_cells_words_are_not_an_input_of_the_notebook(copy):
    notebook, _ = copy
    before = runner.fingerprint(notebook, {})
    nb = json.loads(notebook.read_text())
    next(c for c in nb["cells"] if readings.reading_of(c))["source"] = ["other words"]
    notebook.write_text(json.dumps(nb))
    assert runner.fingerprint(notebook, {}) == before
    nb["cells"][0]["source"] = ["a changed heading"]
    notebook.write_text(json.dumps(nb))
    assert runner.fingerprint(notebook, {}) != before


def test_an_unknown_reading_is_named():
    with pytest.raises(ValueError, match="no reading 'tay2018.nothing'; there are: .*tay2018.trecqa"):
        readings.render("tay2018.nothing", paths.ROOT / "results" / "04_trecqa_ctrn")


def test_a_notebook_whose_readings_alone_changed_is_not_a_code_change():
    before = json.loads((paths.NOTEBOOKS_DIR / "04_trecqa_ctrn.ipynb").read_text())
    now = json.loads(json.dumps(before))
    (reading,) = [c for c in now["cells"] if readings.reading_of(c) == "tay2018.trecqa"]
    reading["source"] = ["other words, as a run on other records writes them"]
    assert readings_only(now, before)
    code = next(c for c in now["cells"] if c["cell_type"] == "code")
    code["source"] = code["source"] + ["\nprint('a changed line of code')"]
    assert not readings_only(now, before)


def test_the_readmes_findings_are_what_the_committed_records_give():
    """The README's "What we have found so far" is the generated ``findings`` block, every finding's reading current."""
    text = "\n".join(page.read_text() for page in guide.reader_pages())
    block = text.split("<!-- findings:start -->\n", 1)[1].split("<!-- findings:end -->", 1)[0]
    assert block.strip() == readings.findings_markdown(paths.ROOT / "results").strip(), \
        "the README's findings are stale: run `reproq report --write`"


def test_a_changed_record_changes_a_finding(tmp_path, shift):
    shutil.copytree(paths.ROOT / "results", tmp_path / "results")
    before = readings.findings_markdown(tmp_path / "results")
    shift(tmp_path / "results" / "04_trecqa_ctrn" / "tay2018_table6.jsonl", 0.05, method="QRNN", metric="MAP")
    assert readings.findings_markdown(tmp_path / "results") != before
