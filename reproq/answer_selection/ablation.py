"""What the networks get, chosen on DEV: word vectors × how the overlap features join (Tay et al. leave both open).

Each variant trains one method on the training set with one seed; DEV MAP ranks them, and TEST is read once, for
the variant DEV chose — never to choose. :func:`chosen` turns the table's chosen row into what the notebooks then
train every model with (:func:`~reproq.answer_selection.inputs.prepare`'s ``vectors`` and ``features``, and the
:class:`~reproq.models.answer_ranker.RankerConfig` overrides). The variants of the features:

- none: the network alone (``n_features = 0``);
- the four length-normalised features (castor's), through the first dropout with the encodings — how the
  networks of notebook 04 are trained — or joining after it;
- the four raw counts (Yu et al. 2014's), joining after the first dropout (a logistic regression on them alone
  beats the same regression on the normalised ones by 0.05 TEST MAP on TrecQA: ``answer_selection.floors``).

:func:`run_budgets` asks the same of the training budget (a profile's epochs against the paper's), with the same
rule: DEV chooses, TEST is read for the chosen budget only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import pandas as pd

from reproq.answer_selection.configs import tay_configs
from reproq.answer_selection.inputs import AnswerInputs, prepare
from reproq.answer_selection.run import run_one
from reproq.profiles import AnswerSelection
from reproq.train.runs import RunResult

FEATURE_VARIANTS = {  # name -> (prepare's features, RankerConfig overrides)
    "none": ("normalized", {"n_features": 0}),
    "normalised, through the dropout": ("normalized", {}),
    "normalised, after the dropout": ("normalized", {"feature_dropout": False}),
    "raw counts, after the dropout": ("raw", {"feature_dropout": False}),
}


@dataclass(frozen=True)
class Choice:
    """One row of the ablation as settings: the word-vector source, the overlap-feature variant ``prepare`` builds,
    and the ranker overrides."""

    vectors: str
    variant: str  # a key of FEATURE_VARIANTS

    @property
    def features(self) -> str:
        return FEATURE_VARIANTS[self.variant][0]

    @property
    def ranker(self) -> dict:
        return dict(FEATURE_VARIANTS[self.variant][1])

    def __str__(self) -> str:
        return f"{self.vectors} vectors, overlap features: {self.variant}"


def run_ablation(dataset: str, p: AnswerSelection, method: str, seed: int, *, vectors: Sequence[str],
                 **run_options) -> pd.DataFrame:
    """One row per (vectors, features) variant: DEV MAP and MRR, and the evaluated split's MAP and MRR (TEST, or
    nothing where a dataset has none) for the row DEV chose (``chosen`` is True there; the other rows' cells stay
    empty)."""
    rows, cache = [], {}
    for source in vectors:
        for variant in FEATURE_VARIANTS:
            choice = Choice(source, variant)
            if (source, choice.features) not in cache:
                cache[source, choice.features] = prepare(dataset, vectors=source, features=choice.features,
                                                         w2v_epochs=p.w2v_epochs, limit=p.limit)
            data = cache[source, choice.features]
            result = run_one(data, tay_configs(p, data, method, "train", ranker=choice.ranker)[0], seed, **run_options)
            rows.append({"vectors": source, "overlap features": variant, **_scores(result)})
    return _read_test_where_dev_chose(rows)


def run_budgets(data: AnswerInputs, p: AnswerSelection, methods: Sequence[str], seed: int, budgets: Mapping[str, dict], *,
                train_split: str = "train-all", ranker: dict | None = None, **run_options) -> pd.DataFrame:
    """How far training budget is what is missing: each of ``methods`` trained on ``train_split`` with each budget
    (name -> :class:`~reproq.answer_selection.inputs.TrainConfig` overrides, e.g. ``{"epochs": 5, "max_batches": None}``)
    and one seed. One row per (method, budget): DEV MAP and MRR, the best epoch, and, per method, TEST for the budget
    DEV chose."""
    rows = []
    for method in methods:
        base = tay_configs(p, data, method, train_split, ranker=ranker)[0]
        group = []
        for name, overrides in budgets.items():
            result = run_one(data, replace(base, **overrides), seed, **run_options)
            group.append({"method": method, "budget": name, "best epoch": result.best_epoch,
                          "epochs run": result.epochs_run, **_scores(result)})
        rows.append(_read_test_where_dev_chose(group))
    return pd.concat(rows, ignore_index=True)


def _scores(result: RunResult) -> dict:
    return {"DEV MAP": result.dev["MAP"], "DEV MRR": result.dev["MRR"], "_test": result.scores.get("test")}


def _read_test_where_dev_chose(rows: list[dict]) -> pd.DataFrame:
    """``rows`` as a table with ``chosen`` True at the best DEV MAP (the first of equals) and the TEST MAP and MRR
    of that row only (no TEST columns where the dataset has no test split)."""
    tests = [row.pop("_test") for row in rows]
    table = pd.DataFrame(rows)
    best = int(table["DEV MAP"].idxmax())
    table["chosen"] = table.index == best
    if tests[best] is not None:
        for metric in ("MAP", "MRR"):
            table[f"TEST {metric}"] = [t[metric] if i == best else float("nan") for i, t in enumerate(tests)]
    return table


def chosen(table: pd.DataFrame) -> Choice:
    """The row of :func:`run_ablation`'s ``table`` that DEV chose."""
    row = table.loc[table["chosen"]].iloc[0]
    return Choice(row["vectors"], row["overlap features"])
