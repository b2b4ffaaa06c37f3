"""Typed records shared by the answer-selection readers (TrecQA, WikiQA, SemEval, YahooQA).

A question comes with its candidate answers and a 0/1 label each. Readers shuffle the candidates with a
fixed seed: in the TrecQA xml every question lists its positives first, and a scorer with ties (word
overlap, a constant, an untrained model) would otherwise inherit the labels from the file order.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

import numpy as np

SHUFFLE_SEED = 1234  # candidates are shuffled with this seed when read (see the module docstring)


@dataclass(frozen=True)
class Candidate:
    id: str
    tokens: tuple[str, ...]
    label: int  # 1: a correct / relevant answer, 0: not


@dataclass(frozen=True)
class QAQuestion:
    id: str
    tokens: tuple[str, ...]
    candidates: tuple[Candidate, ...]

    @property
    def labels(self) -> np.ndarray:
        return np.array([c.label for c in self.candidates], dtype=np.int64)

    @property
    def n_positive(self) -> int:
        return int(sum(c.label for c in self.candidates))

    @property
    def is_clean(self) -> bool:
        """Has at least one positive and one negative candidate (the "clean" TrecQA setting)."""
        return 0 < self.n_positive < len(self.candidates)


def shuffle_candidates(questions: Iterable[QAQuestion], seed: int = SHUFFLE_SEED) -> list[QAQuestion]:
    """Shuffle each question's candidates with a per-question generator seeded by ``(seed, id)``."""
    shuffled = []
    for q in questions:
        order = list(q.candidates)
        random.Random(f"{seed}:{q.id}").shuffle(order)
        shuffled.append(replace(q, candidates=tuple(order)))
    return shuffled


def shuffle_and_number(questions: Iterable[QAQuestion], seed: int = SHUFFLE_SEED) -> list[QAQuestion]:
    """:func:`shuffle_candidates`, then name each candidate ``<question id>-<new position>``: neither the order
    nor the id of a candidate may tell its label (positives come first in the TrecQA files, and trec_eval
    breaks score ties by id)."""
    return [replace(q, candidates=tuple(replace(c, id=f"{q.id}-{i}") for i, c in enumerate(q.candidates)))
            for q in shuffle_candidates(questions, seed)]


def clean(questions: Iterable[QAQuestion]) -> list[QAQuestion]:
    """Only questions with both a positive and a negative candidate."""
    return [q for q in questions if q.is_clean]


def qa_stats(questions: Sequence[QAQuestion]) -> dict[str, int]:
    """Counts reported in dataset tables: questions, pairs, positives, and how many questions have
    a positive / only positives / both a positive and a negative."""
    return {
        "questions": len(questions),
        "pairs": sum(len(q.candidates) for q in questions),
        "positives": sum(q.n_positive for q in questions),
        "with_positive": sum(q.n_positive > 0 for q in questions),
        "only_positive": sum(0 < q.n_positive == len(q.candidates) for q in questions),
        "clean": sum(q.is_clean for q in questions),
    }
