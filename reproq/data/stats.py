"""Dataset statistics under the names the papers' dataset tables use (Lei Table 1, Tay Table 3,
Smolyakov Table 2), so that :func:`reproq.results.compare` can set them beside the printed numbers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from reproq.data.askubuntu import EvalQuery, Question, TrainQuery
from reproq.data.qa import QAQuestion, qa_stats


def corpus_stats(corpus: Mapping[str, Question]) -> dict[str, float]:
    """Size and mean title / body length in tokens (bodies as read, i.e. truncated at 100 tokens)."""
    return {
        "corpus_unique_questions": len(corpus),
        "avg_title_len": float(np.mean([len(q.title) for q in corpus.values()])),
        "avg_body_len": float(np.mean([len(q.body) for q in corpus.values()])),
    }


def train_stats(train: Sequence[TrainQuery]) -> dict[str, float]:
    """Lei Table 1's training counts: distinct query questions (our reading of "unique questions"; the
    paper does not define it) and user-marked (query, similar question) pairs; and Smolyakov Table 2's
    training queries (lines of train_random.txt)."""
    return {"train_unique_questions": len({t.id for t in train}),
            "train_user_marked_pairs": sum(len(t.similar_ids) for t in train),
            "unique_train_queries": len(train)}


def eval_stats(queries: Sequence[EvalQuery], split: str) -> dict[str, float]:
    """Queries, annotated (query, candidate) pairs, and mean positives among a query's candidates."""
    return {f"{split}_queries": len(queries),
            f"{split}_annotated_pairs": sum(len(q.candidate_ids) for q in queries),
            f"{split}_avg_positives": float(np.mean([q.labels.sum() for q in queries]))}


def answer_selection_stats(splits: Mapping[str, Sequence[QAQuestion]]) -> dict[str, float]:
    """Tay Table 3's counts per split: ``<split>_questions`` and ``<split>_pairs``."""
    out: dict[str, float] = {}
    for split, questions in splits.items():
        counts = qa_stats(questions)
        out[f"{split}_questions"] = counts["questions"]
        out[f"{split}_pairs"] = counts["pairs"]
    return out
