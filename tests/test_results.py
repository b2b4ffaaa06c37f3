"""Records join the papers' numbers; synthetic and smoke outputs can never pass for reproductions."""

from __future__ import annotations

import json

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from reproq import paths, results  # noqa: E402
from reproq.results import Outputs, Record  # noqa: E402


def bm25(split, metric, value, *, synthetic=False, seed=0):
    return Record("lei2016", "Table 2", "askubuntu", split, "BM25", "pooling=-", metric, value,
                  seeds=(seed,), synthetic=synthetic)


def test_paper_values_parse_and_percentages_become_fractions():
    assert results.paper_value("423K") == 423_000
    assert results.paper_value("1.05M") == pytest.approx(1_050_000)
    assert results.paper_value("N/A") != results.paper_value("N/A")  # nan
    lei = results.paper_numbers("lei2016", "Table 2")
    row = lei[(lei.method == "BM25") & (lei.split == "dev") & (lei.metric == "MAP")]
    assert row.value.item() == pytest.approx(0.520) and row.printed.item() == "52.0"
    smol = results.paper_numbers("smolyakov2017", "Table 6")
    assert smol[(smol.method == "BM25") & (smol.split == "dev") & (smol.metric == "MAP")].value.item() == 0.52
    counts = results.paper_numbers("lei2016", "Table 1")
    assert counts[counts.metric == "dev_queries"].value.item() == 200  # counts are not rescaled


def test_compare_joins_with_paper_and_computes_gap():
    table = results.compare([bm25("dev", "MAP", 0.52), bm25("dev", "MRR", 0.70)], scale=100)
    assert list(table["in paper"]) == pytest.approx([52.0, 66.0])
    assert list(table["delta"]) == pytest.approx([0.0, 4.0])
    assert "reproduced" in table and "synthetic (not a reproduction)" not in table


def test_compare_averages_seeds_with_std():
    table = results.compare([bm25("dev", "MAP", v, seed=s) for s, v in enumerate([0.50, 0.54])], scale=100)
    assert table["reproduced"].item() == pytest.approx(52.0)
    assert table["std"].item() == pytest.approx(2.828, abs=1e-3) and table["n"].item() == 2
    assert results.format_table(table)["reproduced"].item() == "52.0 ± 2.8"


def test_synthetic_numbers_never_sit_under_a_reproduction_heading():
    table = results.compare([bm25("dev", "MAP", 0.9, synthetic=True)])
    assert "reproduced" not in table and "delta" not in table and "in paper" not in table
    assert "synthetic (not a reproduction)" in table


def test_a_run_writes_its_run_folder_and_the_committed_study_only_when_told(tmp_path, monkeypatch):
    """Issue 44: a rerun of the study (or a Run all in JupyterLab) overwrote the committed results it should be
    compared with."""
    monkeypatch.setattr(paths, "ROOT", tmp_path / "repo")
    monkeypatch.setenv("REPROQ_BUILD", str(tmp_path / "build"))
    monkeypatch.delenv("REPROQ_WRITE_COMMITTED", raising=False)
    written = Outputs("01_demo", profile="cpu").save_records([bm25("dev", "MAP", 0.52)], "t")
    assert written == tmp_path / "build" / "runs" / "cpu" / "results" / "01_demo" / "t.jsonl"
    monkeypatch.setenv("REPROQ_WRITE_COMMITTED", "1")  # reproq run --commit
    assert Outputs("01_demo", profile="cpu").save_records([bm25("dev", "MAP", 0.52)], "t") == \
        tmp_path / "repo" / "results" / "01_demo" / "t.jsonl"


def test_outputs_are_written_with_settings_and_synthetic_apart(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "ROOT", tmp_path)
    monkeypatch.setenv("REPROQ_WRITE_COMMITTED", "1")
    out = Outputs("01_demo", profile="cpu", parameters={"SEEDS": [1]})
    real = out.save_records([bm25("dev", "MAP", 0.52)], "lei_table2")
    fake = out.save_records([bm25("dev", "MAP", 0.99, synthetic=True)], "lei_table2")
    assert real == tmp_path / "results" / "01_demo" / "lei_table2.jsonl"
    assert fake.name == "lei_table2__synthetic.jsonl" and real.read_text() != fake.read_text()
    settings = json.loads((real.parent / "settings.json").read_text())
    assert settings["lei_table2.jsonl"]["parameters"] == {"SEEDS": [1]}
    assert settings["lei_table2__synthetic.jsonl"]["synthetic"] is True
    assert json.loads(real.read_text().splitlines()[0])["value"] == 0.52


def test_smoke_runs_never_write_to_committed_results(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "ROOT", tmp_path / "repo")
    monkeypatch.setenv("REPROQ_BUILD", str(tmp_path / "build"))
    path = Outputs("01_demo", profile="smoke").save_records([bm25("dev", "MAP", 0.52)], "t")
    assert path.is_relative_to(tmp_path / "build" / "smoke")


def test_synthetic_figure_must_say_so_in_its_title(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "ROOT", tmp_path)
    out = Outputs("01_demo", profile="cpu")
    fig, ax = plt.subplots()
    ax.set_title("BM25 on AskUbuntu dev")
    with pytest.raises(ValueError, match="synthetic"):
        out.save_figure(fig, "bm25", synthetic=True)
    ax.set_title("BM25 on AskUbuntu dev (synthetic data)")
    assert out.save_figure(fig, "bm25", synthetic=True).name == "bm25__synthetic.png"
    plt.close(fig)


def test_save_table_writes_csv_and_captioned_markdown(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "ROOT", tmp_path)
    table = results.compare([bm25("dev", "MAP", 0.9, synthetic=True)])
    path = Outputs("01_demo", profile="cpu").save_table(table, "t2", synthetic=True, caption="Lei Table 2.")
    assert path.name == "t2__synthetic.csv"
    assert path.with_suffix(".md").read_text().startswith("SYNTHETIC DATA, not a reproduction. Lei Table 2.")
    # a column of each query's values is no table cell (notebook 01's grid wrote 2,000-character cells of tuples)
    with pytest.raises(ValueError, match="per_query"):
        Outputs("01_demo", profile="cpu").save_table(table.assign(per_query=[{"MAP": (1.0, 0.5)}] * len(table)),
                                                     "t3", synthetic=True)
    assert not list(path.parent.glob("t3*"))


def test_provenance_resolves_the_device_and_stamps_every_record():
    provenance = results.Provenance.resolve({"askubuntu/dev.txt": "abc"}, device="auto", word_vectors="w2v 50-d")
    assert provenance.device == "cpu" and provenance.code_version  # "auto" never reaches a record
    (record,) = provenance.records({"MAP": 0.5, "n_queries": 3}, paper="lei2016", table="Table 2", dataset="askubuntu",
                                   split="dev", method="BM25", setting="pooling=-")
    assert (record.metric, record.device, record.synthetic) == ("MAP", "cpu", False)
    assert record.data == {"askubuntu/dev.txt": "abc", "word_vectors": "w2v 50-d"}
    assert Outputs("01_demo", profile="smoke", device="auto").device == "cpu"


def test_the_markdown_has_the_papers_shape(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "ROOT", tmp_path)
    monkeypatch.setenv("REPROQ_WRITE_COMMITTED", "1")
    records = [bm25(split, metric, 0.5) for split in ("dev", "test") for metric in ("MAP", "MRR")]
    Outputs("01_demo", profile="cpu").report(records, "t2", scale=100, caption="Lei Table 2.")
    header = (tmp_path / "results" / "01_demo" / "t2.md").read_text().splitlines()[2]
    columns = [c.strip() for c in header.strip("|").split("|")]
    assert columns == ["method", "dev MAP", "dev MAP (paper)", "dev MRR", "dev MRR (paper)", "test MAP",
                       "test MAP (paper)", "test MRR", "test MRR (paper)"]  # one row a method, no constant columns


def test_paired_difference_agrees_with_a_paired_t_test_and_names_its_verdict():
    from scipy import stats

    ctrn, qrnn = [0.74, 0.75, 0.73, 0.76, 0.75], [0.70, 0.72, 0.71, 0.70, 0.73]
    records = [Record("tay2018", "Table 6", "trecqa", "test", m, "train=TRAIN", "MAP", v, seeds=(seed,))
               for m, values in (("CTRN", ctrn), ("QRNN", qrnn)) for seed, v in enumerate(values, 1)]
    gap = results.paired_difference(records, "CTRN", "QRNN", metric="MAP", split="test")
    low, high = gap.interval
    assert gap.n == 5 and gap.mean == pytest.approx(0.034)
    t = stats.ttest_rel(ctrn, qrnn)  # the interval excludes 0 exactly when the paired test rejects at 5 %
    assert t.pvalue < 0.05 and low > 0
    assert (low + high) / 2 == pytest.approx(gap.mean)
    assert (high - low) / 2 == pytest.approx(stats.t.ppf(0.975, 4) * gap.std / 5 ** 0.5)
    assert gap.verdict("CTRN", "QRNN") == "CTRN > QRNN" and gap.verdict() == "a > b"
    assert results.paired_difference(records, "QRNN", "CTRN", metric="MAP").verdict("QRNN", "CTRN") == "QRNN < CTRN"


def test_the_bootstrap_over_questions_and_seeds_agrees_with_its_slow_twin():
    from reproq.results.paired import bootstrap_interval, bootstrap_interval_slow

    gaps = np.random.default_rng(3).normal(0.01, 0.1, size=(4, 37))
    fast = bootstrap_interval(gaps, resamples=500, seed=7)
    assert fast == pytest.approx(bootstrap_interval_slow(gaps, resamples=500, seed=7), abs=1e-12)
    assert fast != pytest.approx(bootstrap_interval_slow(gaps, resamples=500, seed=8), abs=1e-12)  # the draws count


def qa_records(method, per_seed, seeds=None):
    """Records of one method on one TEST set: its questions' APs per seed (``seeds=()``: a floor, no seed)."""
    return [Record("tay2018", "Table 6", "trecqa", "test", method, "train=TRAIN", "MAP", float(np.mean(aps)),
                   seeds=(seed,) if seeds is None else seeds, per_question=tuple(aps))
            for seed, aps in enumerate(per_seed, 1)]


def test_with_the_questions_kept_the_interval_is_over_questions_and_seeds():
    rng = np.random.default_rng(0)
    questions = rng.uniform(0, 1, 95)  # how hard each question is, shared by both methods
    noise = rng.normal(0, 0.15, size=(5, 95))  # per seed and question
    qrnn = [np.clip(questions + n, 0, 1) for n in noise]
    ctrn = [np.clip(q + 0.002 + rng.normal(0, 0.15, 95), 0, 1) for q in qrnn]  # a small gain, noisy per question
    records = qa_records("CTRN", ctrn) + qa_records("QRNN", qrnn)
    gap = results.paired_difference(records, "CTRN", "QRNN", metric="MAP")
    assert (gap.n, gap.questions) == (5, 95) and gap.over == "95 questions × 5 seed(s), bootstrap"
    assert gap.low < gap.mean < gap.high
    # the same seed means without the questions: the t interval over the seeds alone is narrower here
    seeds_only = [Record(**{**r.__dict__, "per_question": ()}) for r in records]
    t = results.paired_difference(seeds_only, "CTRN", "QRNN", metric="MAP")
    assert t.questions == 0 and t.mean == pytest.approx(gap.mean)
    assert gap.high - gap.low > t.high - t.low
    # one seed: still an interval, over the questions, and the claim says which
    one = results.claim([r for r in records if r.seeds == (1,)], "CTRN", "QRNN", metric="MAP")
    assert one["low"] == one["low"] and one["verdict"].endswith("(one seed: over questions only)")


def test_a_floor_without_a_seed_pairs_with_every_seed_of_the_model():
    model = qa_records("QRNN", [[1.0, 0.5, 0.5, 1.0], [1.0, 1.0, 0.5, 1.0], [1.0, 0.5, 1.0, 1.0]])
    floor = qa_records("floor: BM25", [[0.5, 0.5, 0.5, 0.5]], seeds=())
    gap = results.paired_difference(model + floor, "QRNN", "floor: BM25", metric="MAP")
    assert gap.n == 3 and gap.mean == pytest.approx((0.75 + 0.875 + 0.875) / 3 - 0.5) and gap.low > 0
    assert results.paired_difference(model + floor, "floor: BM25", "QRNN", metric="MAP").high < 0
    assert results.claim(model + floor, "QRNN", "floor: BM25", metric="MAP")["verdict"] == "confirmed"


def test_methods_evaluated_on_different_questions_are_not_paired():
    model = qa_records("QRNN", [[1.0, 0.5, 0.5, 1.0], [1.0, 1.0, 0.5, 1.0]])
    floor = qa_records("floor: BM25", [[0.5, 0.5, 0.5]], seeds=())
    with pytest.raises(ValueError, match="different questions"):
        results.paired_difference(model + floor, "QRNN", "floor: BM25", metric="MAP")


def test_the_bootstraps_p_says_what_its_interval_says():
    """p < 0.05 exactly where the 95 % percentile interval of the same resamples excludes 0 (both read the same
    means), so a Holm correction over p values corrects the verdicts the intervals give."""
    from reproq.results.paired import bootstrap_means, bootstrap_p

    rng = np.random.default_rng(3)
    for shift in (0.0, 0.02, 0.05, 0.1, -0.08):
        means = bootstrap_means(rng.normal(shift, 0.2, size=(3, 60)), resamples=2_000)
        low, high = np.percentile(means, [2.5, 97.5])
        assert (bootstrap_p(means) < 0.05) == (low > 0 or high < 0)


def test_which_papers_print_percentages_is_read_from_their_numbers(tmp_path, monkeypatch):
    from reproq.results.tables import paper_numbers, percent_papers

    assert percent_papers() == {"lei2016", "dossantos2015", "rankine2016"}  # Tay et al. and Smolyakov print fractions
    csv = tmp_path / "paper_numbers.csv"
    csv.write_text("paper,seed_file,table,dataset,split,method,setting,metric,value,note\n"
                   "new2026,x.txt,Table 1,askubuntu,test,CNN,-,MAP,61.5,\n"
                   "new2026,x.txt,Table 1,askubuntu,test,CNN,-,avg_title_len,6.7,\n"
                   "old2015,y.txt,Table 2,trecqa,test,QRNN,-,MRR,0.812,\n")
    monkeypatch.setattr(paths, "PAPER_NUMBERS_CSV", csv)
    assert percent_papers() == {"new2026"}
    assert paper_numbers()["value"].tolist() == pytest.approx([0.615, 6.7, 0.812])


def test_no_committed_table_shows_nan_none_a_truth_value_or_a_negative_zero():
    """Issue 53: every Markdown table under results/ (the notebooks' and the report's) as a reader reads it; a table is
    written through reproq.results.tables.markdown (blank, yes/no, 0), the papers' pages through reproq.report.pages."""
    import re

    bad = {}
    for path in sorted((paths.ROOT / "results").glob("*/*.md")):
        rows = [line for line in path.read_text().splitlines() if line.startswith("|")]
        cells = [c.strip() for row in rows for c in row.strip().strip("|").split("|")]
        found = [c for c in cells if re.fullmatch(r"-?nan|NaN|None|True|False|-0(\.0+)?", c)]
        if found:
            bad[str(path.relative_to(paths.ROOT))] = found[:3]
    assert not bad, f"tables with cells no reader should see (reproq report --write, or rerun the notebook): {bad}"
