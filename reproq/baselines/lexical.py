"""Lexical rankers on the study's two task shapes: one score array per query, aligned with its candidates.

Question retrieval (AskUbuntu, Android): each query re-ranks its own candidates, questions of a corpus; the
ranker's term statistics come from the whole corpus. Answer selection (TrecQA, WikiQA, SemEval): each question
ranks its candidate answers; the split's answers are the only collection there is. A *ranker* is anything
with ``fit(docs)`` and ``scores(query, doc_indices)`` over token sequences (BM25, TF-IDF). The task packages
turn the score arrays into metrics (``question_retrieval.evaluate``, ``answer_selection.evaluate``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from reproq.data.askubuntu import EvalQuery, Question
from reproq.data.qa import QAQuestion
from reproq.data.vocab import lowercase

FIELDS = ("title", "title+body")  # Lei et al. Table 5: a question is its title, or its title and body


def question_tokens(question: Question, fields: str = "title+body") -> tuple[str, ...]:
    """The tokens a lexical ranker sees of a question: its title, or title followed by body."""
    if fields not in FIELDS:
        raise ValueError(f"fields must be one of {FIELDS}, got {fields!r}")
    return question.title if fields == "title" else question.title + question.body


def lexical_retrieval_scores(ranker, corpus: Mapping[str, Question], splits: Mapping[str, Sequence[EvalQuery]],
                             *, fields: str = "title+body", fit_on: Mapping[str, Question] | None = None
                             ) -> dict[str, list[np.ndarray]]:
    """Fit ``ranker`` on the whole corpus (its term statistics; on ``fit_on``'s instead when given, for rankers whose
    ``fit`` takes ``statistics=``, as TF-IDF's), then score each query's candidates.

    Returns, per split, one score array per query, aligned with ``query.candidate_ids``.
    """
    ids = list(corpus)
    row = {qid: i for i, qid in enumerate(ids)}
    docs = [question_tokens(corpus[qid], fields) for qid in ids]
    if fit_on is None:
        ranker.fit(docs)
    else:
        ranker.fit(docs, statistics=[question_tokens(q, fields) for q in fit_on.values()])
    return {split: [ranker.scores(question_tokens(corpus[q.id], fields), [row[c] for c in q.candidate_ids])
                    for q in queries]
            for split, queries in splits.items()}


def shipped_bm25_scores(queries: Sequence[EvalQuery]) -> list[np.ndarray]:
    """The Lucene BM25 scores that AskUbuntu's dev.txt/test.txt ship beside their candidates."""
    if any(q.bm25_scores is None for q in queries):
        raise ValueError("these queries carry no shipped BM25 scores (only AskUbuntu dev/test do)")
    return [np.asarray(q.bm25_scores, dtype=np.float64) for q in queries]


def lexical_answer_scores(ranker, questions: Sequence[QAQuestion]) -> list[np.ndarray]:
    """Fit ``ranker`` on every candidate answer of ``questions`` (lower-cased), then score each question
    against its own candidates. The answers of the evaluated split are the only collection there is."""
    docs, offsets = [], []
    for q in questions:
        offsets.append(len(docs))
        docs.extend(lowercase(c.tokens) for c in q.candidates)
    ranker.fit(docs)
    return [ranker.scores(lowercase(q.tokens), range(start, start + len(q.candidates)))
            for q, start in zip(questions, offsets)]
