"""Scores of question retrieval, as the papers compute them: one score array per query, aligned with its
candidates, to Lei et al.'s MAP / MRR / P@k (:func:`retrieval_scores`) or pooled over all (query, candidate) pairs
as the 6.864 projects pool them for their AUC on Android (:func:`pooled`); a trained encoder's scores (:func:`evaluate`); and the
TF-IDF search of Lei et al. §6 with its configuration chosen on dev (:func:`tfidf_grid`, :func:`select_on_dev`).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
import pandas as pd

from reproq import metrics
from reproq.baselines.lexical import FIELDS, lexical_retrieval_scores
from reproq.baselines.tfidf import TfidfConfig, TfidfRanker
from reproq.data.askubuntu import EvalQuery, QuestionRetrievalData
from reproq.models.question import QuestionEncoder
from reproq.question_retrieval.batches import EncodedCorpus, candidate_scores


LEI_MAP = "MAP (Lei)"  # under SemEval's convention, the MAP of the queries with a positive (Lei et al.'s)


def retrieval_scores(queries: Sequence[EvalQuery], scores: Sequence[np.ndarray], *,
                     no_positive: str = "skip") -> dict:
    """MAP, MRR, P@1, P@5 and each query's values (``per_query``) by :func:`reproq.metrics.question_retrieval_scores`:
    ties keep the candidate order (AskUbuntu's BM25 order, SemEval-2016 3B's search-engine order), and a query
    without a positive is left out as Lei et al. do (``no_positive="skip"``) or counted 0 as the SemEval scorer does
    (``"zero"``); under ``"zero"`` Lei et al.'s MAP is there too, as :data:`LEI_MAP`."""
    return labelled_scores([q.labels for q in queries], scores, no_positive=no_positive)


def labelled_scores(labels: Sequence[np.ndarray], scores: Sequence[np.ndarray], *, no_positive: str = "skip") -> dict:
    """:func:`retrieval_scores` of queries given as their labels (a team's run joined to a gold file, say)."""
    out = metrics.question_retrieval_scores(labels, scores, ks=(1, 5), no_positive=no_positive, per_query=True)
    if no_positive == "zero":
        lei = metrics.question_retrieval_scores(labels, scores, ks=(), per_query=True)
        out[LEI_MAP] = lei["MAP"]
        out["per_query"][LEI_MAP] = lei["per_query"]["MAP"]
    return out


def headline(scores: dict) -> dict:
    """The four numbers an epoch's record keeps of :func:`retrieval_scores` (not the counts or each query's values)."""
    return {k: scores[k] for k in ("MAP", "MRR", "P@1", "P@5")}


def evaluate(model: QuestionEncoder, corpus: EncodedCorpus, queries: Sequence[EvalQuery], *, device,
             no_positive: str = "skip") -> dict:
    """:func:`retrieval_scores` of a question encoder's cosine similarities (the caller puts it in eval mode)."""
    return retrieval_scores(queries, candidate_scores(model, corpus, queries, device=device), no_positive=no_positive)


def pooled(queries: Sequence[EvalQuery], scores: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """``(labels, scores)`` of every (query, candidate) pair, pooled as the 6.864 projects pool them."""
    return np.concatenate([q.labels for q in queries]), np.concatenate(scores)


def tfidf_grid(data: QuestionRetrievalData, *, ngrams: Sequence[int] = (1, 2, 3),
               stop_words: Sequence[bool] = (False, True), fields: Sequence[str] = FIELDS) -> pd.DataFrame:
    """Lei et al.'s TF-IDF search (§6: n-gram order 1–3, with and without stop words), for each choice of
    fields: one row per (fields, ngram_max, stop_words, split) with the metrics."""
    rows = []
    for fields_, n, stop in itertools.product(fields, ngrams, stop_words):
        ranker = TfidfRanker(TfidfConfig(ngram_max=n, stop_words=stop))
        splits = {"dev": data.dev, "test": data.test}
        for split, scores in lexical_retrieval_scores(ranker, data.corpus, splits, fields=fields_).items():
            rows.append({"fields": fields_, "ngram_max": n, "stop_words": stop, "split": split,
                         **retrieval_scores(splits[split], scores, no_positive=data.no_positive)})
    return pd.DataFrame(rows)


def select_on_dev(grid: pd.DataFrame, *, by: str = "MRR", within: Sequence[str] = ("fields",),
                  config: Sequence[str] = ("ngram_max", "stop_words")) -> pd.DataFrame:
    """The dev and test rows of the configuration with the best dev ``by`` within each group: test numbers
    are read at the configuration dev chose, never chosen on test."""
    dev = grid[grid["split"] == "dev"]
    best = dev.loc[dev.groupby(list(within))[by].idxmax(), list(within) + list(config)]
    return grid.merge(best, on=list(within) + list(config)).reset_index(drop=True)
