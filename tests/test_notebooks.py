"""Every notebook runs end to end in the smoke profile, what it writes says where it came from, and the numbers
that do not depend on training come out right (the way recommenders tests its notebooks)."""

from __future__ import annotations

import json

import pytest

from reproq import notebook_schedule, paths, runner
from reproq.report import browser

# the report last, as a batch runs it (by its role): its book holds every other notebook's smoke run
NOTEBOOKS = sorted(runner.notebooks(), key=lambda nb: nb == notebook_schedule.report_notebook())

# Facts each notebook's smoke run must record: (results file, record fields to match, expected value, tolerance).
# None of them depends on training or on the profile: counts from the real files, Lucene scores shipped with
# AskUbuntu, parameter counts of built models, and chance level on TrecQA.
FACTS = {
    "00_datasets": [
        *[("tay2018_table3", dict(dataset=d, metric=m), v, 0)
          for d, values in {"trecqa-train": dict(train_questions=94, train_pairs=4718),
                            "trecqa-train-all": dict(train_questions=1229, train_pairs=53417, dev_questions=82,
                                                     dev_pairs=1148, test_questions=100, test_pairs=1517)}.items()
          for m, v in values.items()],
        ("lei2016_table1_eval_sets", dict(metric="dev_queries"), 200, 0),
        ("lei2016_table1_eval_sets", dict(metric="test_annotated_pairs"), 4000, 0),
    ],
    "01_lexical_baselines": [
        # Lei et al. Table 2, BM25 row, reproduced exactly from the scores shipped in dev.txt / test.txt (percent)
        *[("lei2016_table2_bm25", dict(method="BM25", split=split, metric=m), v / 100, 5e-4)
          for split, values in {"dev": dict(MAP=52.0, MRR=66.0, **{"P@1": 51.9, "P@5": 42.1}),
                                "test": dict(MAP=56.0, MRR=68.0, **{"P@1": 53.8, "P@5": 42.5})}.items()
          for m, v in values.items()],
        # a constant scorer on raw TEST with random ties: chance, 0.507 expected over the 95 scored questions; with
        # ties in file order it would leak the labels (positives come first) and score far higher
        ("tay2018_table7_lexical", dict(method="constant scorer (chance)", metric="MAP",
                                        variant="raw TEST, trec_eval (all-wrong questions count 0)"), 0.51, 0.04),
    ],
    "02_lei_neural_encoders": [  # Lei et al. Table 3, one bias per gate as in the paper's equations
        ("lei2016_table3", dict(method=m, metric="params"), v, 0)
        for m, v in dict(RCNN=400_800, LSTM=423_360, GRU=404_040, CNN=400_867).items()],
    "03_pooling_body_smolyakov": [  # Smolyakov & Srikant Table 6 "# params": their LSTM exactly; the CNN as their
        # Table 3 sets it (200 filters for each kernel size 1-5), not their printed 420,600
        ("smolyakov2017_table6_params", dict(method=m, metric="params"), v, 0)
        for m, v in dict(CNN=601_000, LSTM=337_920).items()],
    "14_semeval_question_retrieval": [  # SemEval-2016 3B: the search engine's order is the official scorer's baseline
        # (a constant scorer keeps it: ties in the engine's order), and a team's run re-scored is its official MAP
        *[("semeval2016b", dict(method="floor: search engine order", split=split, metric="MAP"), v, 5e-5)
          for split, v in (("dev", 0.7135), ("test", 0.7475))],
        ("semeval2016b", dict(method="2016 team: UH-PRHLT", metric="MAP"), 0.7670, 5e-5),
    ],
    "04_trecqa_ctrn": [  # Tay et al. Table 2 as its formulas count (encoder weights + composition)
        ("tay2018_table2", dict(method=m, metric="params", variant="as Table 2 counts (encoder weights + composition)"),
         v, 0) for m, v in dict(QRNN=1_052_800, CTRN=1_052_800, LSTM=1_794_176).items()],
}


def smoke_records(notebook: str) -> dict[str, list[dict]]:
    """Every record a notebook's smoke run wrote, by file stem (``__synthetic`` dropped)."""
    results_dir, _ = paths.output_dirs("smoke")
    return {p.stem.removesuffix("__synthetic"): [json.loads(line) for line in p.read_text().splitlines()]
            for p in sorted((results_dir / notebook).glob("*.jsonl"))}


def check_facts(notebook: str) -> None:
    written = smoke_records(notebook)
    for stem, where, expected, tolerance in FACTS.get(notebook, []):
        matching = [r for r in written.get(stem, []) if all(r[k] == v for k, v in where.items())]
        assert len(matching) == 1, f"{notebook}: {len(matching)} records in {stem} match {where}"
        assert matching[0]["value"] == pytest.approx(expected, abs=tolerance), f"{notebook}: {stem} {where}"
    for stem, records in written.items():  # the device a number was computed on, never the request "auto"
        assert all(r["device"] != "auto" for r in records), f"{notebook}: {stem} records device 'auto'"


@pytest.mark.notebook
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_in_smoke_profile(notebook, real_data):
    real_data("askubuntu", "dev.txt")  # the notebooks need the small real files: fail under CI without them
    outcome = runner.run_notebook(notebook, profile="smoke", force=True, progress=False)
    assert outcome.status == "ran" and outcome.executed.is_file()
    results_dir, figures_dir = paths.output_dirs("smoke")
    written = list((results_dir / notebook.stem).glob("*")) + list((figures_dir / notebook.stem).glob("*"))
    assert written, f"{notebook.stem} wrote no results or figures"
    for settings in (d / notebook.stem / "settings.json" for d in (results_dir, figures_dir)):
        if settings.is_file():
            for name, entry in json.loads(settings.read_text()).items():
                assert entry["profile"] == "smoke" and entry["notebook"] == notebook.stem
                assert ("__synthetic" in name) == bool(entry["synthetic"]), name
                assert entry["device"] != "auto", name
    check_facts(notebook.stem)


def test_notebooks_are_committed_without_outputs():
    for notebook in NOTEBOOKS:
        cells = json.loads(notebook.read_text())["cells"]
        assert not [c for c in cells if c["cell_type"] == "code" and (c.get("outputs") or c.get("execution_count"))], \
            f"{notebook.name} has outputs: strip them before committing"
        tagged = [c for c in cells if "parameters" in c.get("metadata", {}).get("tags", [])]
        assert len(tagged) == 1, f"{notebook.name} needs exactly one cell tagged 'parameters'"
        source = "".join(tagged[0]["source"])
        for name in ("PROFILE", "SEEDS", "DEVICE"):
            assert f"{name} =" in source, f"{notebook.name}: the parameters cell lacks {name}"
        # nbformat 4.5's cell ids, unique: without them every run warns and papermill makes new ones up
        ids = [c.get("id") for c in cells]
        assert all(ids) and len(set(ids)) == len(ids), f"{notebook.name}: cells without a unique id"


def test_notebooks_define_no_functions_or_classes():
    for notebook in NOTEBOOKS:
        for cell in json.loads(notebook.read_text())["cells"]:
            if cell["cell_type"] == "code":
                source = "".join(cell["source"])
                assert "\ndef " not in f"\n{source}" and "\nclass " not in f"\n{source}", \
                    f"{notebook.name}: helpers belong in the reproq library, not in a notebook"


def test_the_smoke_outputs_make_a_whole_book_too(tmp_path, chromium):
    """Notebook 13's smoke run above built the book of every smoke run before it (this file runs whole, in order, on
    one of ``make test``'s workers): its pages open whole, and every figure the runs drew is in it."""
    results_dir, figures_dir = paths.output_dirs("smoke")
    first = paths.build_dir() / "report" / "smoke" / "index.html"
    if not first.is_file():  # the notebook tests (earlier in a whole run) write it
        pytest.skip("no smoke book in this session: run the whole suite")
    root = first.parent
    for page in [first, root / "beyond.html", *sorted((root / "papers").glob("*.html"))]:
        shown = browser.browse(page, tmp_path)
        assert (shown["broken"], shown["dangling"], shown["external"]) == (0, "", ""), f"{page.name}: {shown}"
    pngs = [p for p in figures_dir.glob("*/*.png") if p.parent.name != "report"]
    drawn = {p.read_bytes() for p in (root / "_images").glob("*.png")}
    assert len(pngs) > 10 and all(p.read_bytes() in drawn for p in pngs)
    # every other notebook's page, as its run kept it (the report's own copy is kept once its run has ended)
    kept = {p.stem for p in results_dir.glob("*/[0-9][0-9]_*.ipynb")} - {notebook_schedule.report_notebook().stem}
    assert {p.stem for p in (root / "notebooks").glob("*.html")} == kept and len(kept) == len(NOTEBOOKS) - 1
