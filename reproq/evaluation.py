"""Score rankers on the study's benchmarks and turn the metrics into result records.

Two benchmark shapes recur: question retrieval (AskUbuntu, Android: each query re-ranks its own
candidates, which are questions of a corpus) and answer selection (TrecQA, WikiQA, SemEval: each question
ranks its candidate answers). A *ranker* is anything with ``fit(docs)`` and ``scores(query, doc_indices)``
over token sequences (``reproq.baselines``); a neural model plugs in through the same score lists.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from reproq import metrics
from reproq.baselines.tfidf import TfidfConfig, TfidfRanker
from reproq.data.askubuntu import EvalQuery, Question, QuestionRetrievalData
from reproq.data.records import QAQuestion
from reproq.results import Record, code_version

FIELDS = ("title", "title+body")  # Lei et al. Table 5: a question is its title, or its title and body


def question_tokens(question: Question, fields: str = "title+body") -> tuple[str, ...]:
    """The tokens a lexical ranker sees of a question: its title, or title followed by body."""
    if fields not in FIELDS:
        raise ValueError(f"fields must be one of {FIELDS}, got {fields!r}")
    return question.title if fields == "title" else question.title + question.body


def lexical_retrieval_scores(ranker, corpus: Mapping[str, Question], splits: Mapping[str, Sequence[EvalQuery]],
                             *, fields: str = "title+body") -> dict[str, list[np.ndarray]]:
    """Fit ``ranker`` on the whole corpus (its term statistics), then score each query's candidates.

    Returns, per split, one score array per query, aligned with ``query.candidate_ids``.
    """
    ids = list(corpus)
    row = {qid: i for i, qid in enumerate(ids)}
    ranker.fit([question_tokens(corpus[qid], fields) for qid in ids])
    return {split: [ranker.scores(question_tokens(corpus[q.id], fields), [row[c] for c in q.candidate_ids])
                    for q in queries]
            for split, queries in splits.items()}


def retrieval_metrics(data: QuestionRetrievalData, scores: Mapping[str, Sequence[np.ndarray]]) -> dict[str, dict]:
    """Lei et al.'s MAP / MRR / P@1 / P@5 per split (:func:`reproq.metrics.question_retrieval_scores`)."""
    return {split: metrics.question_retrieval_scores([q.labels for q in getattr(data, split)], split_scores)
            for split, split_scores in scores.items()}


def tfidf_grid(data: QuestionRetrievalData, *, ngrams: Sequence[int] = (1, 2, 3),
               stop_words: Sequence[bool] = (False, True), fields: Sequence[str] = FIELDS) -> pd.DataFrame:
    """Lei et al.'s TF-IDF search (§6: n-gram order 1–3, with and without stop words), for each choice of
    fields: one row per (fields, ngram_max, stop_words, split) with the metrics."""
    rows = []
    for fields_, n, stop in itertools.product(fields, ngrams, stop_words):
        ranker = TfidfRanker(TfidfConfig(ngram_max=n, stop_words=stop))
        scores = lexical_retrieval_scores(ranker, data.corpus, {"dev": data.dev, "test": data.test}, fields=fields_)
        for split, values in retrieval_metrics(data, scores).items():
            rows.append({"fields": fields_, "ngram_max": n, "stop_words": stop, "split": split, **values})
    return pd.DataFrame(rows)


def select_on_dev(grid: pd.DataFrame, *, by: str = "MRR", within: Sequence[str] = ("fields",),
                  config: Sequence[str] = ("ngram_max", "stop_words")) -> pd.DataFrame:
    """The dev and test rows of the configuration with the best dev ``by`` within each group: test numbers
    are read at the configuration dev chose, never chosen on test."""
    dev = grid[grid["split"] == "dev"]
    best = dev.loc[dev.groupby(list(within))[by].idxmax(), list(within) + list(config)]
    return grid.merge(best, on=list(within) + list(config)).reset_index(drop=True)


def shipped_bm25_scores(queries: Sequence[EvalQuery]) -> list[np.ndarray]:
    """The Lucene BM25 scores that AskUbuntu's dev.txt/test.txt ship beside their candidates."""
    if any(q.bm25_scores is None for q in queries):
        raise ValueError("these queries carry no shipped BM25 scores (only AskUbuntu dev/test do)")
    return [np.asarray(q.bm25_scores, dtype=np.float64) for q in queries]


def lowercase(tokens: Iterable[str]) -> tuple[str, ...]:
    return tuple(t.lower() for t in tokens)


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


def answer_selection_scores(questions: Sequence[QAQuestion], scores: Sequence[np.ndarray], *,
                            no_relevant: str = "zero", seed: int = 0) -> dict[str, float | int]:
    """trec_eval MAP/MRR of ``scores`` (:func:`reproq.metrics.trec_scores`, ties broken at random).

    A question without any candidate (raw TrecQA TEST has 5) has no line in a run file or in the qrels,
    so trec_eval never sees it; it is left out here too. ``no_relevant`` decides about the questions
    whose candidates are all negative.
    """
    kept = [(q.labels, s) for q, s in zip(questions, scores) if q.candidates]
    return metrics.trec_scores([y for y, _ in kept], [s for _, s in kept], no_relevant=no_relevant, seed=seed)


def pooled_auc(queries: Sequence[EvalQuery], scores: Sequence[np.ndarray], *, max_fpr: float = 1.0,
               variant: str = "meter") -> float:
    """ROC AUC over all (query, candidate) pairs pooled, as the 6.864 projects report it on Android."""
    y = np.concatenate([q.labels for q in queries])
    return metrics.auc_score(y, np.concatenate(scores), max_fpr=max_fpr, variant=variant)


def metric_records(values: Mapping[str, float], *, paper: str, table: str, dataset: str, split: str,
                   method: str, setting: str = "-", variant: str = "", seeds: Sequence[int] = (),
                   synthetic: bool, data: Mapping[str, str], config: Mapping | None = None,
                   device: str = "cpu", wall_time_s: float | None = None,
                   metric_names: Sequence[str] | None = None) -> list[Record]:
    """One :class:`Record` per metric in ``values`` (or in ``metric_names``), ignoring counts such as
    ``n_queries`` unless named."""
    names = metric_names or [k for k in values if not k.startswith("n_")]
    version = code_version()
    return [Record(paper=paper, table=table, dataset=dataset, split=split, method=method, setting=setting,
                   metric=name, value=float(values[name]), variant=variant, seeds=tuple(seeds),
                   synthetic=synthetic, config=dict(config or {}), data=dict(data), code_version=version,
                   device=device, wall_time_s=wall_time_s)
            for name in names]
