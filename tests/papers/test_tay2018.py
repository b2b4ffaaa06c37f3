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


def test_the_papers_budget_reading_gives_each_alignment_and_feature_kind_its_verdict(tmp_path):
    from reproq.results import Record

    raw, normalised = tay2018.BUDGET_SETTINGS["raw"], tay2018.BUDGET_SETTINGS["normalized"]
    values = {(raw, "QRNN"): (.70, .71, .72), (raw, "CTRN"): (.60, .62, .61),  # three distinct gaps: an interval
              (raw, tay2018.alignment_method("ceil")): (.75, .77, .76), (raw, "floor: BM25"): (.65,),
              (normalised, "QRNN"): (.70, .70, .71), (normalised, "CTRN"): (.70, .71, .70),
              (normalised, "floor: BM25"): (.65,)}
    records = [Record("tay2018", "Table 6", "trecqa", "test", method, setting, "MAP", value, seeds=(seed,))
               for (setting, method), runs in values.items() for seed, value in enumerate(runs)]
    claims = tay2018.paper_budget_claims(records)
    assert claims[["CTRN", "case"]].values.tolist() == [
        ["CTRN", "TRAIN-ALL, 5 passes"], ["CTRN", "TRAIN-ALL, 5 passes, normalised features"],
        [tay2018.alignment_method("ceil"), "TRAIN-ALL, 5 passes"]]  # no ceil CTRN with the normalised features
    assert claims["CTRN > QRNN"].tolist()[::2] == ["contradicted", "confirmed"]
    assert claims["paper"].notna().all()  # beside the paper's TRAIN-ALL column
    (tmp_path / f"{tay2018.BUDGET_SEARCH}.csv").write_text("method,d,DEV MAP,chosen\nQRNN,64,0.7,False\n"
                                                          "QRNN,128,0.8,True\nCTRN,64,0.7,True\n")
    reading = tay2018.paper_budget_reading(records, tmp_path)
    assert reading.startswith("d chosen on DEV MAP (first seed): QRNN 128, CTRN 64.")
    assert "*CTRN (ceil alignment)* − QRNN" in reading and "Against the best floor" in reading
    assert "No records" in tay2018.paper_budget_reading([r for r in records if r.setting == "-"], tmp_path)



def test_a_reading_verdict_another_machine_could_turn_says_machine_sensitive():
    """CTRN − QRNN's interval here ends about 0.075 above 0: a cross-machine spread of 0.1 could turn it, 0.01 not."""
    from reproq.results import Record

    where = dict(table="Table 6", split="test", setting="train=TRAIN")
    values = {"CTRN": (.70, .71, .72), "QRNN": (.60, .62, .61), "floor: BM25": (.65,)}
    records = [Record("tay2018", "Table 6", "trecqa", "test", method, "train=TRAIN", "MAP", value, seeds=(seed,))
               for method, runs in values.items() for seed, value in enumerate(runs)]
    near, far = (tay2018.claims_reading(records, {"TRAIN": where}, spread) for spread in (0.1, 0.01))
    assert "**machine-sensitive, confirmed**" in near.splitlines()[0] and "machine-sensitive" not in far


def test_the_tables_protocol_searches_the_grid_with_the_first_seed_then_trains_the_chosen_one_with_every_seed(
        monkeypatch):
    """Notebooks 04 and 06 (and the paper-input runs) train the paper profile's grid alike: its 288 configurations
    with the first seed only, then DEV's choice with all five (not every configuration with every seed)."""
    from types import SimpleNamespace

    from reproq.answer_selection import run

    calls = []

    def run_grid(data, configs, seeds, **options):
        calls.append((list(configs), list(seeds), options))
        return SimpleNamespace(best=configs[-1], best_runs=[])

    monkeypatch.setattr(run, "run_grid", run_grid)
    search, grid = tay2018.searched("data", ["a", "b", "c"], (1, 2, 3), device="cpu")
    assert calls == [(["a", "b", "c"], [1], {"device": "cpu"}), (["c"], [1, 2, 3], {"device": "cpu"})]
    assert search.best == "c" and tay2018.searched_runs(3, 3) == 3 + 3 - 1  # the chosen one's first seed is reused
    calls.clear()
    assert tay2018.searched("data", ["a"], (1, 2))[0] is None and calls == [(["a"], [1, 2], {})]
    assert tay2018.searched_runs(1, 2) == 2
