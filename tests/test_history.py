"""A sentence about an earlier run names the committed records that show it (reproq.report.history)."""

from __future__ import annotations

import subprocess

import pytest

from reproq import paths
from reproq.report import history
from tests.test_comparisons import _plant_in, copy  # noqa: F401 (a fixture)

HISTORY = subprocess.run(["git", "-C", str(paths.ROOT), "cat-file", "-e", "5be998f^{commit}"],
                         capture_output=True).returncode == 0
needs_history = pytest.mark.skipif(not HISTORY, reason="no git history here")
CITED = "`5be998f:results/04_trecqa_ctrn/trecqa_ablation_vectors_features.md`"


@needs_history
def test_every_sentence_about_an_earlier_run_names_its_committed_records():
    unsupported = history.check()
    assert not unsupported, "sentences about earlier runs that name no committed file of them (add " \
        "`<commit>:results/…`, or cut them):\n" + "\n".join(f"  {u.where}: {u.why} | {u.sentence[:150]}"
                                                          for u in unsupported)


@pytest.mark.parametrize("place", ["README", "guide", "notebook"])
def test_an_earlier_run_without_its_records_fails_in_each_place(copy, place):  # noqa: F811
    sentence = "An earlier run chose word2vec on DEV."
    where = _plant_in(copy, place, sentence)
    found = history.check(copy)
    assert [u.sentence for u in found] == [sentence] and found[0].where.startswith(where)


@needs_history
def test_a_commit_and_file_the_history_does_not_hold_fail(copy):  # noqa: F811
    held = f"An earlier run chose word2vec on DEV ({CITED})."
    _plant_in(copy, "notebook", held)
    assert history.check(copy) == []
    for wrong in ("`5be998f:results/04_trecqa_ctrn/no_such_table.md`", "`0000000:results/04_trecqa_ctrn/x.md`"):
        sentence = f"An earlier run chose word2vec on DEV ({wrong})."
        _plant_in(copy, "README", sentence)
    found = history.check(copy)
    assert [u.why.startswith("names a file") for u in found] == [True], found  # the unknown commit: nothing to ask


def test_what_speaks_of_an_earlier_run():
    for earlier in ("An earlier run averaged the loss.", "Committed runs of earlier code gave other numbers.",
                    "Seed 1's records came out identical at three different commits.",
                    "Without pre-training (an earlier committed run) the gate stayed flat.",
                    "The previous run kept epoch 0."):
        assert "names no committed file" in history.judge(earlier), earlier
    for now in ("Each run keeps its best epoch.", "The committed `cpu` run has 5 seeds.",
                "The earlier layers are frozen.", "Runs at the paper's budget take two hours."):
        assert history.judge(now) == "", now
