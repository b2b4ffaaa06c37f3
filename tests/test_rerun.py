"""reproq.report.rerun: a rerun of the study beside the committed one, record by record (issue 44: reproducing
overwrote what it should be compared with)."""

from __future__ import annotations

import json
from dataclasses import asdict

import pytest

from reproq import cli, paths
from reproq.report import rerun
from reproq.results import Record


def write(root, values, *, synthetic=()):
    """A results folder with one notebook and one file: MAP per (method, seed); ``synthetic``: methods on the
    stand-in."""
    folder = root / "04_trecqa_ctrn"
    folder.mkdir(parents=True)
    (folder / "tay2018_table6.jsonl").write_text("".join(
        json.dumps(asdict(Record("tay2018", "Table 6", "trecqa", "test", method, "train=TRAIN", "MAP", value,
                                 seeds=(seed,), synthetic=method in synthetic)), default=str) + "\n"
        for (method, seed), value in values.items()))
    return root


COMMITTED = {("QRNN", 1): 0.75, ("QRNN", 2): 0.76, ("CTRN", 1): 0.74, ("CTRN", 2): 0.70, ("LSTM", 1): 0.72,
             ("AP-CNN", 1): 0.65}


def test_each_record_is_identical_within_rounding_moved_missing_or_new(tmp_path):
    committed = write(tmp_path / "committed", COMMITTED)
    again = write(tmp_path / "rerun", {("QRNN", 1): 0.75, ("QRNN", 2): 0.76 + 1e-13, ("CTRN", 1): 0.74,
                                       ("CTRN", 2): 0.72, ("AP-CNN", 1): 0.65, ("BM25", 0): 0.71},
                  synthetic={"AP-CNN"})  # on the stand-in: never paired with the real number
    pairs = rerun.compare(committed, again, ["04_trecqa_ctrn"])
    kinds = {(r["method"], r["seeds"]): r["kind"] for r in pairs.to_dict("records") if r["kind"] != "new"} | {
        ("new", r["method"]): "new" for r in pairs.to_dict("records") if r["kind"] == "new"}
    assert kinds == {("QRNN", (1,)): "identical", ("QRNN", (2,)): "within float rounding", ("CTRN", (1,)): "identical",
                     ("CTRN", (2,)): "moved", ("LSTM", (1,)): "missing", ("AP-CNN", (1,)): "missing",
                     ("new", "AP-CNN"): "new", ("new", "BM25"): "new"}
    (row,) = rerun.counts(pairs).to_dict("records")
    assert [row[k] for k in rerun.KINDS] == [2, 1, 1, 2, 2] and row["largest move"] == pytest.approx(0.02)
    (move,) = rerun.largest_moves(pairs).to_dict("records")
    assert move["method"] == "CTRN" and move["seeds' sd (committed)"] == pytest.approx(0.0283, abs=1e-4)
    assert rerun.summary(pairs) == ("8 records compared with the committed study: 2 identical, 1 within float "
                                    "rounding, 1 moved, 2 missing, 2 new")
    md, html = rerun.page(pairs, tmp_path, title="This cpu run beside the committed study")
    assert "| CTRN" in md.read_text() and "0.72" in md.read_text() and "<table" in html.read_text()
    assert "nan" not in md.read_text().lower() and "nan" not in html.read_text().lower()  # none moved: blank


def test_a_run_ends_with_the_comparison_and_leaves_the_committed_study_alone(tmp_path, monkeypatch, capsys):
    """``reproq run`` (no --commit) writes its run folder, then compares what it ran with the committed records."""
    monkeypatch.setattr(paths, "ROOT", tmp_path / "repo")
    monkeypatch.setenv("REPROQ_BUILD", str(tmp_path / "build"))
    write(tmp_path / "repo" / "results", COMMITTED)

    def run(**options):
        assert not paths.writes_committed()  # the notebooks would write the run folder
        write(paths.output_dirs("cpu")[0], COMMITTED | {("CTRN", 2): 0.72})
        yield cli.runner.Outcome("04_trecqa_ctrn", "ran", 1.0, tmp_path / "x.ipynb")

    monkeypatch.setattr(cli.runner, "run", run)
    assert cli.main(["run", "--only", "04"]) == 0
    out = capsys.readouterr().out
    assert "6 records compared with the committed study: 5 identical, 0 within float rounding, 1 moved" in out
    page = (tmp_path / "build" / "runs" / "cpu" / "comparison.md").read_text()
    # it names what it compares (issue 54: neither the commit, the machine nor the time), and its HTML is styled
    assert "The 6 committed records of results/ (run at " in page and "beside this run (at " in page
    assert " compared 20" in page and "<style>" in (tmp_path / "build" / "runs" / "cpu" / "comparison.html").read_text()
    assert json.loads((tmp_path / "repo" / "results" / "04_trecqa_ctrn" / "tay2018_table6.jsonl").read_text()
                      .splitlines()[3])["value"] == 0.70  # the committed number as it was


def test_a_run_started_again_compares_what_it_found_current_as_well(tmp_path, monkeypatch, capsys):
    """A ``make reproduce`` stopped part-way and started again skips the notebooks already current in its run folder;
    its comparison still covers them (the whole study), not only the notebooks run the second time."""
    monkeypatch.setattr(paths, "ROOT", tmp_path / "repo")
    monkeypatch.setenv("REPROQ_BUILD", str(tmp_path / "build"))
    write(tmp_path / "repo" / "results", COMMITTED)
    write(paths.output_dirs("cpu")[0], COMMITTED | {("CTRN", 2): 0.72})  # the first run's records

    def run(**options):
        yield cli.runner.Outcome("04_trecqa_ctrn", "skipped", 0.0, tmp_path / "x.ipynb", "inputs unchanged")

    monkeypatch.setattr(cli.runner, "run", run)
    assert cli.main(["run"]) == 0
    assert "6 records compared with the committed study: 5 identical, 0 within float rounding, 1 moved" in (
        capsys.readouterr().out)


def test_a_run_of_notebooks_without_records_compares_nothing_and_says_so(tmp_path):
    """The report notebook writes no record: a run of it alone ended in a TypeError from an empty comparison."""
    write(tmp_path / "committed", COMMITTED)
    pairs = rerun.compare(tmp_path / "committed", tmp_path / "rerun", ["13_report"])
    assert rerun.summary(pairs).startswith("0 records compared with the committed study: 0 identical")
    md, _ = rerun.page(pairs, tmp_path, title="nothing")
    assert "0 records compared" in md.read_text()


def test_a_file_the_rerun_did_not_write_is_named_once(tmp_path):
    """A plain run of notebook 04 writes no paper-budget file (an opt-in parameter does): the page names the file
    and its records' count, beside the records it lists one by one."""
    committed = write(tmp_path / "committed", COMMITTED)
    (committed / "04_trecqa_ctrn" / "tay2018_paper_budget.jsonl").write_text(
        (committed / "04_trecqa_ctrn" / "tay2018_table6.jsonl").read_text())
    pairs = rerun.compare(committed, write(tmp_path / "rerun", COMMITTED), ["04_trecqa_ctrn"])
    assert rerun.unwritten(pairs).to_dict("records") == [
        {"notebook": "04_trecqa_ctrn", "file": "tay2018_paper_budget", "records": 6}]
    md, _ = rerun.page(pairs, tmp_path, title="t")
    assert "## files the rerun did not write\n\n| notebook " in md.read_text()


def _tampered(tmp_path, change) -> tuple:
    """The committed records of notebook 04's Table 6 copied twice, the CTRN ones of the first copy changed by
    ``change(record)``: (the tampered "committed" folder, the faithful rerun folder)."""
    source = paths.ROOT / "results" / "04_trecqa_ctrn" / "tay2018_table6.jsonl"
    for name in ("committed", "rerun"):
        (tmp_path / name / "04_trecqa_ctrn").mkdir(parents=True)
    lines = [json.loads(line) for line in source.read_text().splitlines()]
    (tmp_path / "rerun" / "04_trecqa_ctrn" / source.name).write_text(source.read_text())
    (tmp_path / "committed" / "04_trecqa_ctrn" / source.name).write_text("".join(
        json.dumps(change(r) if r["method"] == "CTRN" else r) + "\n" for r in lines))
    return tmp_path / "committed", tmp_path / "rerun"


def test_committed_questions_values_changed_under_an_unchanged_value_are_a_move(tmp_path):
    """Issue 55: with every CTRN record's per_question set to 1.0 (its value kept), a faithful rerun was "identical"
    (the comparison paired values only), while the claim CTRN > QRNN turned from not shown to confirmed."""
    committed, again = _tampered(tmp_path, lambda r: {**r, "per_question": [1.0] * len(r["per_question"])})
    pairs = rerun.compare(committed, again, ["04_trecqa_ctrn"])
    ctrn = pairs[pairs["method"] == "CTRN"]
    assert len(ctrn) > 10 and set(ctrn["kind"]) == {"moved"} and (ctrn["rerun - committed"] == 0).all()
    assert (ctrn["per question moved"] > 0.5).all() and set(pairs[pairs["method"] != "CTRN"]["kind"]) == {"identical"}


def test_a_claim_that_tampered_questions_values_flip_shows_on_the_comparison_page(tmp_path):
    """Issue 55 (b12489a, Why 1): the tampering above (every CTRN per_question set to 1.0, its value kept) turns the
    claims CTRN > QRNN from not shown to confirmed; each record they read from CTRN is listed as moved, with how far
    its questions' values moved, on the page a run ends with, though no value moved (the largest move is 0)."""
    from reproq.report import verdicts

    committed, again = _tampered(tmp_path, lambda r: {**r, "per_question": [1.0] * len(r["per_question"])})

    def claims(results_dir):
        rows = verdicts.claim_rows(verdicts.load_records(results_dir, "04_trecqa_ctrn"))
        return dict(zip(rows["claim"], rows["verdict"]))

    before, after = claims(again), claims(committed)
    flipped = sorted(c for c in after if after[c] != before[c])
    assert flipped and all(c.startswith("CTRN > QRNN") and (before[c], after[c]) == ("not shown", "confirmed")
                           for c in flipped), flipped
    pairs = rerun.compare(committed, again, ["04_trecqa_ctrn"])
    ctrn = pairs[(pairs["method"] == "CTRN") & (pairs["metric"] == "MAP")]
    assert len(ctrn) and set(ctrn["kind"]) == {"moved"} and (ctrn["rerun - committed"] == 0).all()
    md, _ = rerun.page(pairs, tmp_path, title="t")
    listed = md.read_text().split("## every record not identical\n")[1].split("\n## ")[0].splitlines()
    assert "per question moved" in listed[1]
    assert len([line for line in listed if "| CTRN " in line and "| MAP " in line and "| moved" in line]) == len(ctrn)


def test_an_infinite_committed_value_is_never_within_rounding(tmp_path):
    """Issue 55: a committed value of Infinity was "within float rounding" of the rerun's (inf <= inf); no record
    holds one now: the comparison stops at it in one line naming its file and line."""
    committed, again = _tampered(tmp_path, lambda r: {**r, "value": float("inf")})
    (source,) = (committed / "04_trecqa_ctrn").glob("*.jsonl")
    assert "Infinity" in source.read_text()
    with pytest.raises(ValueError, match=r"line \d+: 'value' must be a finite number, got inf") as caught:
        rerun.compare(committed, again, ["04_trecqa_ctrn"])
    assert str(caught.value).startswith(str(source)) and len(str(caught.value).splitlines()) == 1


@pytest.mark.parametrize("argv, why", [(["run", "--profile", "smoke"], "a smoke run's sizes are not"),
                                       (["run", "--commit"], "wrote the committed study itself"),
                                       (["run", "--no-compare"], "--no-compare")])
def test_a_run_that_compares_nothing_says_why(argv, why, tmp_path, monkeypatch, capsys):
    """Issue 54: a smoke run ended with no comparison and no line saying why."""
    monkeypatch.setenv("REPROQ_BUILD", str(tmp_path / "build"))
    monkeypatch.setattr(cli.runner, "run", lambda **options: iter(
        [cli.runner.Outcome("04_trecqa_ctrn", "ran", 1.0, tmp_path / "x.ipynb")]))
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert "no comparison with the committed study: " in out and why in out and "records compared" not in out


def test_the_tables_and_figures_a_run_rewrites_are_compared_too(tmp_path, monkeypatch, capsys):
    """Issue 55: the comparison paired records only; a table or a figure a run wrote differently passed unseen."""
    committed, again = (tmp_path / "c" / "results", tmp_path / "c" / "figures"), (tmp_path / "r" / "results",
                                                                                  tmp_path / "r" / "figures")
    for results_dir, figures_dir in (committed, again):
        (results_dir / "04_trecqa_ctrn").mkdir(parents=True)
        (figures_dir / "04_trecqa_ctrn").mkdir(parents=True)
        (results_dir / "04_trecqa_ctrn" / "same.csv").write_text("method,MAP\nQRNN,0.75\n")
        (figures_dir / "04_trecqa_ctrn" / "same.png").write_bytes(b"png")
    (committed[0] / "04_trecqa_ctrn" / "t.csv").write_text("method,MAP\nQRNN,0.75\nCTRN,0.74\n")
    (again[0] / "04_trecqa_ctrn" / "t.csv").write_text("method,MAP\nQRNN,0.75\nCTRN,0.80\n")  # a number moved
    (committed[0] / "04_trecqa_ctrn" / "r.csv").write_text("x\n0.1\n")
    (again[0] / "04_trecqa_ctrn" / "r.csv").write_text("x\n0.10000000000000002\n")  # another order of sums
    (committed[1] / "04_trecqa_ctrn" / "f.png").write_bytes(b"one drawing")
    (again[1] / "04_trecqa_ctrn" / "f.png").write_bytes(b"another drawing")
    (committed[1] / "04_trecqa_ctrn" / "gone.png").write_bytes(b"png")
    written = rerun.outputs(committed, again, ["04_trecqa_ctrn"])
    assert dict(zip(written["file"], written["kind"])) == {
        "r.csv": "within float rounding", "same.csv": "identical", "t.csv": "moved", "f.png": "redrawn",
        "gone.png": "missing", "same.png": "identical"}
    md, _ = rerun.page(rerun.compare(*(d[0] for d in (committed, again)), ["04_trecqa_ctrn"]), tmp_path, title="t",
                       written=written)
    assert "every table and figure not identical" in md.read_text() and "f.png" in md.read_text()
