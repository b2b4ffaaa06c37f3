"""Tay et al. (reproq.papers.tay2018): what the readings of CTRN's alignment make of a split's lengths."""

from __future__ import annotations

import numpy as np
import pytest

from reproq.answer_selection.batches import PairSet
from reproq.papers import tay2018


def pairs(lengths):
    """A PairSet of (question length, answer length) pairs; only the lengths matter here."""
    return PairSet((), tuple((1,) * q for q, _ in lengths), tuple((1,) * a for _, a in lengths),
                   np.zeros(len(lengths), dtype=np.int64), np.zeros(len(lengths), dtype=np.int64), None)


def test_as_printed_the_longer_answer_mostly_reads_the_questions_last_gate():
    # q 3 / a 10 (r = 4): as printed every answer step reads q's step 3 (its last); "ceil" only steps 9-10 do,
    # "proportional" steps 8-10; the question's steps read a's last at its step 3 (t* = 12, clipped) as printed
    table = tay2018.alignment_shares(pairs([(3, 10), (4, 4)])).set_index("alignment")
    answer = table["answer steps reading the partner's last"]
    assert table["answer longer"].tolist() == [0.5] * 3
    assert answer["literal"] == pytest.approx((10 + 1) / 14)  # + the equal pair's last step
    assert answer["ceil"] == pytest.approx((2 + 1) / 14) and answer["proportional"] == pytest.approx((3 + 1) / 14)
    question = table["question steps reading the partner's last"]
    assert question["literal"] == pytest.approx((1 + 1) / 7) and question["proportional"] == pytest.approx(2 / 7)


def test_ctrn_over_qrnn_pairs_seeds_and_keeps_the_anchor_and_other_readings_apart():
    from reproq.results import Record

    where = dict(table="Table 6", split="test", setting="train=TRAIN")
    values = {"CTRN": (.70, .71, .72), "QRNN": (.60, .62, .61), tay2018.alignment_method("ceil"): (.90, .90, .90),
              "floor: BM25": (.65,), "anchor: all-MiniLM-L6-v2, zero-shot": (.80,)}
    records = [Record("tay2018", "Table 6", "trecqa", "test", method, "train=TRAIN", "MAP", value, seeds=(seed,))
               for method, runs in values.items() for seed, value in enumerate(runs)]
    row = tay2018.ctrn_over_qrnn(records, {"TRAIN": where}).iloc[0]
    assert row["CTRN - QRNN (MAP)"] == pytest.approx(0.1) and row["seeds"] == 3 and row["CTRN > QRNN"] == "confirmed"
    # the anchor (0.80) and the other reading's CTRN (0.90) are higher, but neither is "the best trained model"
    assert (row["best trained"], row["its mean"]) == ("CTRN", pytest.approx(0.71))
    assert (row["best floor"], row["floor's"], row["anchor (zero-shot)"]) == ("BM25", 0.65, 0.80)
    assert "the external anchor (all-MiniLM-L6-v2 zero-shot, never trained here), 0.800" in \
        tay2018.ctrn_over_qrnn_reading(tay2018.ctrn_over_qrnn(records, {"TRAIN": where}))
