"""Every committed file of the report is what the committed records give, by the current code (issue 52): the tables
and pages beside the executed report notebook, and that notebook's own cells and tables. (The README's blocks:
tests/test_report.py; the site, docs/: tests/test_docs_site.py; the reading cells: tests/test_readings.py.)"""

from __future__ import annotations

import json

import pytest

from reproq import notebook_schedule, paths, results
from reproq.notebook import table_html
from reproq.report import pages, verdicts

REPORT = notebook_schedule.report_notebook()  # notebooks/13_report.ipynb
COMMITTED = paths.ROOT / "results" / REPORT.stem
EXECUTED = COMMITTED / REPORT.name
RUN_FILES = {REPORT.name, "settings.json"}  # the executed notebook and its run settings, which name a code version
# what a cell of the report notebook shows (its last line) -> the same table regenerated from the committed records
SHOWN = {"built.counts": lambda built: built.counts, "built.claims": lambda built: built.claims,
         "verdicts.missed(built.rows)": lambda built: verdicts.missed(built.rows)}


@pytest.fixture(scope="module")
def built():
    return verdicts.build()


def _report_files(folder) -> dict[str, bytes]:
    """The report's files in ``folder`` by name: not the run's own (:data:`RUN_FILES`) nor a lock (``.*.lock``)."""
    return {path.name: path.read_bytes() for path in folder.iterdir()
            if path.name not in RUN_FILES and not path.name.startswith(".")}


def test_every_report_file_is_what_the_committed_records_give(built, tmp_path, monkeypatch):
    monkeypatch.setenv("REPROQ_BUILD", str(tmp_path))
    out = results.Outputs(REPORT.stem, profile="smoke")  # writes under tmp_path, never the committed folder
    pages.write_report(built, out)
    written, committed = (_report_files(folder) for folder in (out.results_dir, COMMITTED))
    assert sorted(committed) == sorted(written), \
        f"{COMMITTED.relative_to(paths.ROOT)} holds other files than the report writes: run `reproq report --write`"
    stale = [name for name in written if committed[name] != written[name]]
    assert not stale, f"stale: {', '.join(stale)}: run `reproq report --write`, then rerun notebook 13 with --commit"


def _cells(notebook) -> list[tuple[str, str]]:
    cells = json.loads(notebook.read_text())["cells"]
    return [(c["cell_type"], "".join(c["source"])) for c in cells
            if "injected-parameters" not in c.get("metadata", {}).get("tags", [])]


def test_the_executed_report_notebook_is_the_current_one_run_on_the_committed_records(built):
    """Its cells are the source notebook's, and each table it shows is the one the committed records give now (as
    the kernel showed it: pandas' HTML as reproq.notebook.as_read renders it, which no terminal width moves)."""
    assert _cells(EXECUTED) == _cells(REPORT), \
        f"{EXECUTED.relative_to(paths.ROOT)} ran another version of {REPORT.name}: `reproq run --only 13 --commit`"
    shown = {}
    for cell in json.loads(EXECUTED.read_text())["cells"]:
        last = "".join(cell["source"]).strip().splitlines()[-1:] if cell["cell_type"] == "code" else []
        html = [o["data"]["text/html"] for o in cell.get("outputs", []) if o.get("output_type") == "execute_result"]
        if last and last[0] in SHOWN and html:
            shown[last[0]] = "".join(html[0])
    assert sorted(shown) == sorted(SHOWN), f"the executed report shows no output of {sorted(set(SHOWN) - set(shown))}"
    stale = [expression for expression, table in SHOWN.items() if shown[expression] != table_html(table(built))]
    assert not stale, f"{EXECUTED.relative_to(paths.ROOT)} shows stale {', '.join(stale)}: " \
                      "`reproq run --only 13 --commit`"
