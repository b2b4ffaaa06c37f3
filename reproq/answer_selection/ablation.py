"""What the networks get, chosen on DEV: word vectors × how the overlap features join (Tay et al. leave both open).

Each variant trains one method on TRAIN with one seed; DEV MAP ranks them, and TEST is read once, for the variant
DEV chose — never to choose. The variants of the features:

- none: the network alone (``n_features = 0``);
- the four length-normalised features (castor's), through the first dropout with the encodings — how the
  networks of notebook 04 are trained — or joining after it;
- the four raw counts (Yu et al. 2014's), joining after the first dropout (a logistic regression on them alone
  beats the same regression on the normalised ones by 0.05 TEST MAP on TrecQA: ``answer_selection.floors``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

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


def run_ablation(dataset: str, p: AnswerSelection, method: str, seed: int, *, vectors: Sequence[str],
                 **run_options) -> pd.DataFrame:
    """One row per (vectors, features) variant: DEV MAP and MRR, and TEST MAP and MRR for the row DEV chose
    (``chosen`` is True there; the other rows' TEST cells stay empty)."""
    rows, cache = [], {}
    for source in vectors:
        for variant, (features, overrides) in FEATURE_VARIANTS.items():
            if (source, features) not in cache:
                cache[source, features] = prepare(dataset, vectors=source, features=features, w2v_epochs=p.w2v_epochs,
                                                  limit=p.limit)
            data = cache[source, features]
            config = tay_configs(p, data, method, "train")[0]
            result = run_one(data, replace(config, ranker=replace(config.ranker, **overrides)), seed, **run_options)
            rows.append({"vectors": source, "overlap features": variant, "DEV MAP": result.dev["MAP"],
                         "DEV MRR": result.dev["MRR"], "_test": result.test})
    tests = [row.pop("_test") for row in rows]
    table = pd.DataFrame(rows)
    best = int(table["DEV MAP"].idxmax())  # the first of equals
    table["chosen"] = table.index == best
    for metric in ("MAP", "MRR"):
        table[f"TEST {metric}"] = [t[metric] if i == best else float("nan") for i, t in enumerate(tests)]
    return table
