"""What the networks get, chosen on DEV: word vectors × how the overlap features join (Tay et al. leave both open).

Each variant trains one method on the training set with one seed; DEV MAP ranks them, and TEST is read once, for
the variant DEV chose — never to choose. :func:`chosen` turns the table's chosen row into what the notebooks then
train every model with (:func:`~reproq.answer_selection.run.prepare`'s ``vectors`` and ``features``, and the
:class:`~reproq.models.answer_ranker.RankerConfig` overrides). The variants of the features:

- none: the network alone (``n_features = 0``);
- the four length-normalised features (castor's), through the first dropout with the encodings — how the
  networks of notebook 04 are trained — or joining after it;
- the four raw counts (Yu et al. 2014's), joining after the first dropout (a logistic regression on them alone
  beats the same regression on the normalised ones by 0.05 TEST MAP on TrecQA: ``answer_selection.floors``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from reproq.answer_selection.configs import tay_configs
from reproq.answer_selection.run import prepare, run_one
from reproq.profiles import AnswerSelection

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
            rows.append({"vectors": source, "overlap features": variant, "DEV MAP": result.dev["MAP"],
                         "DEV MRR": result.dev["MRR"], "_test": result.scores.get("test")})
    tests = [row.pop("_test") for row in rows]
    table = pd.DataFrame(rows)
    best = int(table["DEV MAP"].idxmax())  # the first of equals
    table["chosen"] = table.index == best
    if tests[best] is not None:
        for metric in ("MAP", "MRR"):
            table[f"TEST {metric}"] = [t[metric] if i == best else float("nan") for i, t in enumerate(tests)]
    return table


def chosen(table: pd.DataFrame) -> Choice:
    """The row of :func:`run_ablation`'s ``table`` that DEV chose."""
    row = table.loc[table["chosen"]].iloc[0]
    return Choice(row["vectors"], row["overlap features"])
