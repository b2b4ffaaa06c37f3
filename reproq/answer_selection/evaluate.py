"""Scores of answer selection as trec_eval computes them: one score array per question, aligned with its
candidates, to MAP, MRR and P@k (:func:`ranking_scores`), and a trained ranker's scores (:func:`evaluate`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from reproq import metrics
from reproq.answer_selection.batches import PairSet, score_questions
from reproq.data.qa import QAQuestion


def ranking_scores(questions: Sequence[QAQuestion], scores: Sequence[np.ndarray], *, no_relevant: str = "zero",
                   seed: int = 0, ks: Sequence[int] = ()) -> dict[str, float | int]:
    """trec_eval MAP / MRR, and P@k for k in ``ks`` (:func:`reproq.metrics.trec_scores`, ties broken at random
    with ``seed``).

    A question without any candidate (raw TrecQA TEST has 5) has no line in a run file or in the qrels, so
    trec_eval never sees it; it is left out here too. ``no_relevant`` decides about the questions whose
    candidates are all negative ("zero": they count 0, as trec_eval; "skip": left out).
    """
    kept = [(q.labels, s) for q, s in zip(questions, scores) if q.candidates]
    return metrics.trec_scores([y for y, _ in kept], [s for _, s in kept], no_relevant=no_relevant, seed=seed, ks=ks)


def evaluate(model: torch.nn.Module, pairs: PairSet, *, seed: int = 0, ks: Sequence[int] = ()) -> dict:
    """:func:`ranking_scores` of a ranker's scores of every pair of ``pairs``."""
    return ranking_scores(pairs.questions, score_questions(model, pairs), seed=seed, ks=ks)
