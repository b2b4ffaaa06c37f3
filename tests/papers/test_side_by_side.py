"""The table no paper has (reproq.papers.side_by_side): every encoder under one protocol, intervals over questions and
seeds, the best floor of the same split, the anchor apart."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from reproq.figures import side_by_side as draw
from reproq.papers import side_by_side, tay2018
from reproq.results import spread
from reproq.results import Record


def records():
    """TrecQA test: A well above the floors on every question, B below; two floors and the anchor (no seeds)."""
    keys = dict(paper="reproq", table=side_by_side.TABLE, dataset="trecqa", split="test", setting="-", metric="MAP")
    rng = np.random.default_rng(0)
    base = rng.uniform(0.3, 0.7, 40)
    out = []
    for method, shift, seeds in (("A", 0.2, (1, 2)), ("B", -0.1, (1, 2)), ("floor: BM25", 0.0, ((),)),
                                 ("floor: overlap count", -0.05, ((),)), ("anchor: MiniLM, zero-shot", 0.25, ((),))):
        for seed in seeds:
            values = base + shift + (0.01 * seed if seed else 0)
            out.append(Record(method=method, value=float(values.mean()), seeds=(seed,) if seed else (),
                              per_question=tuple(values), **keys))
    return out


def test_the_table_gives_intervals_over_questions_and_the_difference_from_the_best_floor():
    shown = side_by_side.table(records()).set_index("method")
    assert shown.loc["A", "kind"] == "trained" and shown.loc["BM25", "kind"] == "floor"
    assert shown.loc["anchor: MiniLM, zero-shot", "kind"] == "anchor"
    assert shown.loc["A", "seeds"] == 2 and shown.loc["BM25", "seeds"] == 0
    assert shown.loc["A", "95% low"] < shown.loc["A", "MAP"] < shown.loc["A", "95% high"]
    assert shown.loc["A", "best floor"] == "BM25"  # the higher floor, not the anchor
    assert shown.loc["A", "- best floor"] == pytest.approx(0.2 + 0.015)
    assert shown.loc["A", "beats the best floor"] == "confirmed (Holm, 2 tests)"  # a family: both encoders
    assert shown.loc["B", "beats the best floor"] == "contradicted (Holm, 2 tests)"
    assert np.isnan(shown.loc["BM25", "- best floor"])  # a floor is not tested against itself
    assert "- reference" not in shown  # no reference declared, no encoder compared with another


def test_an_encoder_is_compared_with_the_declared_reference_only_and_a_budget_cut_run_says_so():
    from dataclasses import replace

    kept_last = [replace(r, config={"epochs": 6, "best_epoch": 6 if r.seeds == (1,) else 3})
                 if r.method == "A" else r for r in records()]
    shown = side_by_side.table(kept_last, reference="B").set_index("method")
    assert shown.loc["A", "- reference"] == pytest.approx(0.3)
    assert shown.loc["A", "vs the reference"] == "confirmed (Holm, 1 test)"
    assert shown.loc["A", "kept the last epoch"] == "1 of 2" and not shown.loc["A", "budget-truncated"]
    assert pd.isna(shown.loc["B", "- reference"])  # the reference is not tested against itself
    all_last = [replace(r, config={"epochs": 6, "best_epoch": 6}) if r.method == "A" else r for r in records()]
    assert "Budget-truncated (most seeds kept the last epoch" in side_by_side.reading(all_last, reference="B")


def test_the_reading_ranks_the_encoders_and_names_those_above_the_floor():
    text = side_by_side.reading(records())
    assert text.startswith("- **TrecQA raw test** (MAP, 2 seed(s)")
    assert text.index("A 0.") < text.index("B 0.")
    assert "Best floor: BM25" in text and "MiniLM" in text
    assert "Above the best floor (paired by question and seed, Holm over 2): A." in text
    assert "Best against worst" not in text  # a pair picked after the run is not tested uncorrected
    anchor = text.split("The external anchor")[-1]  # declared: the anchor against each encoder, paired
    assert "A +0.035 [+0.030, +0.040]" in anchor and "B +0.335 [+0.330, +0.340]" in anchor  # Δ with its interval
    assert anchor.count("**confirmed (Holm, 2 tests)**") == 2
    assert "No records" in side_by_side.reading([])


def test_the_figure_has_a_panel_per_evaluation():
    shown = side_by_side.table(records())
    figure = draw.figure(shown, title="t")
    assert len(figure.axes) == 1 and figure.axes[0].get_title() == "TrecQA raw test"


def test_every_encoder_is_trained_under_the_protocol(monkeypatch):
    from types import SimpleNamespace

    from reproq.results import Provenance
    from reproq.train.grid import GridResult, RunResult

    seen = []

    def fake_grid(data, configs, seeds, **kw):
        seen.extend(configs)
        runs = [RunResult(configs[0], s, [], 1, 1, {"dev": {"MAP": .5, "MRR": .5},
                                                    "test": {"MAP": .6, "MRR": .7}}, 0, 0.0) for s in seeds]
        return GridResult({configs[0]: runs}, configs[0])

    monkeypatch.setattr(side_by_side, "run_grid", fake_grid)
    data = SimpleNamespace(dataset="trecqa", n_features=4)
    out = side_by_side.trained_records(data, tay2018.PROFILES["cpu"], side_by_side.ENCODERS, [1, 2],
                                       Provenance(code_version="test"))
    assert [c.method for c in seen] == list(side_by_side.ENCODERS)
    assert {(c.train_split, c.ranker.feature_dropout, c.ranker.n_features, c.ranker.hidden_dim) for c in seen} == \
        {("train", False, 4, 64)}
    assert {(r.dataset, r.split, r.table) for r in out} == {("trecqa", "test", side_by_side.TABLE)}
    assert len(out) == len(side_by_side.ENCODERS) * 2 * 2  # methods x seeds x (MAP, MRR)


def test_a_verdict_within_the_cross_machine_spread_says_machine_sensitive(tmp_path):
    """A's lead over the floor has its interval's lower edge near +0.19: a spread of 0.25 (how far another machine
    moved a mean) could turn it, one of 0.01 could not; the spread is read from `reproq machines --write`'s files."""
    near = side_by_side.table(records(), spread=0.25).set_index("method")
    assert near.loc["A", "beats the best floor"].startswith("machine-sensitive, confirmed")
    far = side_by_side.table(records(), spread=0.01).set_index("method")
    assert far.loc["A", "beats the best floor"].startswith("confirmed")
    (tmp_path / "machines").mkdir()
    (tmp_path / "machines" / "cross_machine__12_encoders_side_by_side.csv").write_text(
        'notebook,file,"largest |b - a|, mean of seeds"\n12_encoders_side_by_side,encoders_side_by_side,0.25\n'
        '04_trecqa_ctrn,tay2018_table6,0.9\n')
    assert spread.cross_machine_spread(tmp_path, side_by_side.NOTEBOOK) == 0.25  # its own notebook's rows only
    assert np.isnan(spread.cross_machine_spread(tmp_path / "nowhere", side_by_side.NOTEBOOK))
