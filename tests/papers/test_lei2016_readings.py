"""Lei et al.'s readings (notebooks 00, 03, 07, 08 and the README's findings) choose their words from the records
(reproq.papers.lei2016)."""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest

from reproq import paths
from reproq.papers import lei2016
from reproq.report import readings
from reproq.report.verdicts import load_records


FOLDERS = ("00_datasets", "03_pooling_body_smolyakov", "07_lei_gates", "08_lei_pretraining", "bench")


@pytest.fixture
def results(tmp_path):
    """A copy of the results folders these readings read."""
    for folder in FOLDERS:
        shutil.copytree(paths.ROOT / "results" / folder, tmp_path / folder)
    return tmp_path


def read(reading, results, folder: str) -> str:
    return reading(load_records(results, folder), results / folder)


def test_a_mean_of_positives_moved_to_the_papers_matches_it(results, shift):
    """Lei's Table 1 beside the paper (the generic reading of notebook 00's cell): the verdict follows the record."""
    table1 = "beside:lei2016_table1_eval_sets"
    assert "dev_avg_positives 5.885 (paper 5.8, differs)" in read(readings.reading(table1), results, "00_datasets")
    shift(results / "00_datasets" / "lei2016_table1_eval_sets.jsonl", -0.085, metric="dev_avg_positives")
    assert "dev_avg_positives 5.8 (paper 5.8, matches)" in read(readings.reading(table1), results, "00_datasets")


def test_figure_5s_verb_follows_the_gate(results, shift):
    titles = "- Figure 5, RCNN, titles, 1 − λ_t: the mean over dimensions"
    line = next(x for x in read(lei2016.gates_reading, results, "07_lei_gates").splitlines() if x.startswith(titles))
    assert ", falls to " in line.split(";")[0]
    shift(results / "07_lei_gates" / "lei2016_figure5__synthetic.jsonl", -0.45, setting="field=title",
          variant="position 1", metric="mean over dimensions")
    line = next(x for x in read(lei2016.gates_reading, results, "07_lei_gates").splitlines() if x.startswith(titles))
    assert ", rises to " in line.split(";")[0]


def test_a_pretrained_rcnn_that_loses_on_test_turns_the_gains_verdict(results, shift, add_seed):
    def rcnn_test_mrr() -> str:
        line = next(x for x in read(lei2016.pretraining_summary, results, "08_lei_pretraining").splitlines()
                    if x.strip().startswith("- RCNN (last pooling)"))
        return line.split("test MRR")[1]

    # the committed records carry each question's value: an interval over questions and seeds
    assert rcnn_test_mrr().endswith(" to +7.92: no difference shown).")
    path = results / "08_lei_pretraining" / "lei2016_table2_pretrain__synthetic.jsonl"
    # the seeds-only path (records without each question's value, as 08 wrote them before): 2 seeds, no interval
    path.write_text("".join(json.dumps({**json.loads(line), "per_question": []}) + "\n"
                            for line in path.read_text().splitlines()))
    assert rcnn_test_mrr().endswith("(2 seed(s), no interval: no difference shown).")
    pretrained = dict(method="RCNN+pretrain", split="test", metric="MRR")
    add_seed(path, 3, like=2, offset=0.002, **pretrained)  # a third seed: an interval over three
    assert rcnn_test_mrr().endswith(": helps).")
    shift(path, -0.05, **pretrained)
    assert rcnn_test_mrr().endswith(": hurts).")


def test_the_max_pooling_finding_reads_the_saved_table(results):
    path = results / "03_pooling_body_smolyakov" / "trained_vs_untrained__synthetic.csv"
    table = pd.read_csv(path)
    table.loc[table["model"] == "CNN max", "gain"] = 3.0
    table.to_csv(path, index=False)
    text = read(lei2016.max_pooling_reading, results, "03_pooling_body_smolyakov")
    assert "- CNN max: dev " in text and "trained (+3.00; lowest seed" in text and "30 epochs" in text


def test_the_speed_finding_reads_each_benchmark_file(results):
    text = read(lei2016.speed_reading, results, "bench")
    assert "- 1 thread(s) (`encoders_1thread.json`): RCNN fast path " in text and "- 2 thread(s)" in text
    path = results / "bench" / "encoders_1thread.json"
    bench = json.loads(path.read_text())
    next(r for r in bench["rows"] if r["model"].startswith("rcnn d="))["relative_to_torch_lstm"] = 0.5
    path.write_text(json.dumps(bench))
    assert "RCNN fast path 0.50×" in read(lei2016.speed_reading, results, "bench")
