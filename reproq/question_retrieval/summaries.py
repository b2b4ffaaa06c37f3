"""What a grid of question-retrieval runs shows beside the papers' tables: dev and test MRR before training and at
the kept epoch (:func:`trained_vs_untrained`: the untrained model's numbers get this table of their own, never a
table joined with a paper's numbers); the learning curves beside it are drawn by
:func:`reproq.figures.retrieval.learning_curves`. Records of training runs are :func:`reproq.results.run_records`, as
for answer selection; each paper's own tables are in :mod:`reproq.papers`, its figures in :mod:`reproq.figures`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from reproq.train.grid import RunResult


def trained_vs_untrained(groups: Mapping[str, Sequence[RunResult]]) -> pd.DataFrame:
    """Dev MRR before training (epoch 0) and at the best epoch, per model, mean ± std over seeds; test MRR
    before training and at the best dev epoch beside it (the dev number is the maximum over epochs, so it is
    a little optimistic; the test number is not).

    An untrained encoder gives every candidate a different score, so it ranks by what random weights
    make of the word vectors; it does not inherit BM25's order the way a constant scorer would (ties keep
    the candidate order in this protocol).
    """
    rows = []
    for label, runs in groups.items():
        before = np.array([r.scores["untrained_dev"]["MRR"] for r in runs]) * 100
        after = np.array([r.dev["MRR"] for r in runs]) * 100
        test_before = np.array([r.scores["untrained_test"]["MRR"] for r in runs]) * 100
        test_after = np.array([r.test["MRR"] for r in runs]) * 100
        rows.append({"model": label, "seeds": len(runs), "untrained dev MRR": before.mean(),
                     "trained dev MRR": after.mean(), "std (trained)": after.std(ddof=1) if len(runs) > 1 else np.nan,
                     "gain": (after - before).mean(), "min gain over seeds": (after - before).min(),
                     "untrained test MRR": test_before.mean(), "trained test MRR": test_after.mean(),
                     "best epochs": ", ".join(str(r.best_epoch) for r in runs),
                     "minutes": sum(r.seconds for r in runs) / 60})
    return pd.DataFrame(rows).round(2)


