"""Notebooks 10's and 11's readings choose their words from the records (reproq.papers.dossantos2015, rankine2016)."""

from __future__ import annotations

import json
import shutil

import pytest

from reproq import paths
from reproq.papers import dossantos2015, rankine2016
from reproq.report.verdicts import load_records


@pytest.fixture
def results(tmp_path):
    for folder in ("10_dos_santos", "11_rankine", "bench"):
        shutil.copytree(paths.ROOT / "results" / folder, tmp_path / folder)
    return tmp_path


def test_a_start_of_t_that_gains_on_every_seed_turns_table_5s_verdict(results, shift, add_seed):
    folder = results / "10_dos_santos"
    ones_over = "t learned from the IDF over t learned from ones: **"
    before = dossantos2015.full_collection_reading(load_records(results, folder.name), folder)
    assert f"{ones_over}not shown (2 seed(s), no interval)" in before and "Speed at their scale" in before
    (path,) = folder.glob("dossantos2015_table5*.jsonl")
    learned = dict(setting="title; t_init=IDF; t_updated=yes", split="test", metric="Accuracy@1")
    add_seed(path, 3, like=2, offset=0.01, **learned)  # a third seed, its gap 0.01 apart: an interval exists
    assert f"{ones_over}not shown" in dossantos2015.full_collection_reading(load_records(results, folder.name), folder)
    shift(path, 0.05, **learned)
    after = dossantos2015.full_collection_reading(load_records(results, folder.name), folder)
    assert f"{ones_over}confirmed" in after.split("Table 5 (title)")[1].splitlines()[0]


def test_his_claim_turns_when_weighted_cbow_gains(results, shift, add_seed):
    folder = results / "11_rankine"
    claim = "CBOW over Weighted CBOW: **"
    said = rankine2016.summary_reading(load_records(results, folder.name), folder)
    assert f"{claim}confirmed**: Δ = +0.119 [+0.080, +0.161] (171 questions × 2 seed(s)" in said  # as committed
    (path,) = folder.glob("rankine2016_table1*.jsonl")
    # the seeds-only path (records without each question's value, as 11 wrote them before)
    path.write_text("".join(json.dumps({**json.loads(line), "per_question": []}) + "\n"
                            for line in path.read_text().splitlines()))
    said = rankine2016.summary_reading(load_records(results, folder.name), folder)
    assert f"{claim}not shown (2 seed(s), no interval)" in said  # two seeds: no interval over the seeds alone
    add_seed(path, 3, like=2, offset=0.01, method="CBOW", split="dev", metric="MRR")
    assert f"{claim}confirmed" in rankine2016.summary_reading(load_records(results, folder.name), folder)
    shift(path, 0.2, method="Weighted CBOW", split="dev", metric="MRR")
    assert f"{claim}contradicted" in rankine2016.summary_reading(load_records(results, folder.name), folder)
