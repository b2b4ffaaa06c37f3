"""Scores of answer selection as trec_eval computes them: one score array per question, aligned with its
candidates, to MAP, MRR and P@k (:func:`ranking_scores`; for a scorer with many ties, their expectation over orders
of the ties: :func:`expected_ranking_scores`), and a trained ranker's scores (:func:`evaluate`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from reproq import metrics
from reproq.answer_selection.batches import PairSet, score_questions
from reproq.data.qa import QAQuestion


TIE_ORDERS = 20  # random orders of the ties a floor's expectation averages over


def ranking_scores(questions: Sequence[QAQuestion], scores: Sequence[np.ndarray], *, no_relevant: str = "zero",
                   seed: int = 0, ks: Sequence[int] = (), per_question: bool = False) -> dict:
    """trec_eval MAP / MRR, and P@k for k in ``ks`` (:func:`reproq.metrics.trec_scores`, ties broken at random
    with ``seed``); with ``per_question``, also each evaluated question's values (``"per_query"``), which the records
    keep for a bootstrap over questions.

    A question without any candidate (raw TrecQA TEST has 5) has no line in a run file or in the qrels, so
    trec_eval never sees it; it is left out here too. ``no_relevant`` decides about the questions whose
    candidates are all negative ("zero": they count 0, as trec_eval; "skip": left out).
    """
    kept = [(q.labels, s) for q, s in zip(questions, scores) if q.candidates]
    return metrics.trec_scores([y for y, _ in kept], [s for _, s in kept], no_relevant=no_relevant, seed=seed, ks=ks,
                               per_query=per_question)


def expected_ranking_scores(questions: Sequence[QAQuestion], scores: Sequence[np.ndarray], *,
                            orders: int = TIE_ORDERS, seed: int = 0, ks: Sequence[int] = ()) -> dict:
    """:func:`ranking_scores` (with ``per_query``) averaged over ``orders`` random orders of the ties (seeds ``seed``,
    ``seed + 1``, ...): an overlap count ties often, and one order moves its MAP by up to ±0.006 on TrecQA. Also
    ``"sd over tie orders"``: each metric's standard deviation across the orders.

    >>> from reproq.data.qa import Candidate, QAQuestion
    >>> q = QAQuestion("q", ("a",), (Candidate("1", ("a",), 1), Candidate("2", ("a",), 0)))
    >>> tied = expected_ranking_scores([q], [np.zeros(2)], orders=400)  # AP 1 or 1/2, as often: 3/4 expected
    >>> abs(tied["MAP"] - 0.75) < 0.05, tied["per_query"]["MAP"] == (tied["MAP"],)
    (True, True)
    >>> tied["sd over tie orders"]["MAP"] > 0
    True
    """
    runs = [ranking_scores(questions, scores, seed=seed + i, ks=ks, per_question=True) for i in range(orders)]
    names = list(runs[0]["per_query"])
    return {**{name: float(np.mean([run[name] for run in runs])) for name in names},
            **{key: value for key, value in runs[0].items() if key.startswith("n_")},
            "per_query": {name: tuple(np.mean([run["per_query"][name] for run in runs], axis=0).tolist())
                          for name in names},
            "sd over tie orders": {name: float(np.std([run[name] for run in runs], ddof=1)) for name in names}}


def evaluate(model: torch.nn.Module, pairs: PairSet, *, seed: int = 0, ks: Sequence[int] = ()) -> dict:
    """:func:`ranking_scores` of a ranker's scores of every pair of ``pairs``."""
    return ranking_scores(pairs.questions, score_questions(model, pairs), seed=seed, ks=ks)
