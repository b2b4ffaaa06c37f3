"""Full-collection retrieval as dos Santos et al. (2015) §3.1 evaluate it: every query question is scored against
every question of the community, and Accuracy@k counts the queries that find a duplicate in their top k.

Their split (Table 1: 9,802 training pairs, 1,991 validation and 3,800 test queries for AskUbuntu) is not
published. :func:`duplicate_split` builds an equivalent one from the duplicates AskUbuntu marks (the similar
questions of ``train_random.txt``, ``dev.txt`` and ``test.txt``): the questions linked by duplicate marks form
groups, whole groups go to test, validation or training (seeded), so no duplicate pair is ever on two sides;
every question of a validation or test group is a query, its duplicates are the questions it is marked a
duplicate of (or that are marked duplicates of it). A query never retrieves itself.

Scoring streams the queries in blocks (``score_block(rows) -> [b, N]``), so memory stays at one block's
scores; :func:`top_k` keeps each query's k best (ties in collection order, as a stable sort), and
:func:`accuracy_at_k` reads the hits. Its slow twin is :func:`reproq.metrics.accuracy_at_k_score` over the
full score matrix.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from tqdm.auto import tqdm

from reproq.baselines.lexical import question_tokens
from reproq.data.askubuntu import Question, QuestionRetrievalData


@dataclass(frozen=True)
class FullQuery:
    id: str
    duplicate_ids: tuple[str, ...]


@dataclass(frozen=True)
class DuplicateSplit:
    """``collection``: every question id, in a seeded random order (ties then carry no label); ``train``: the
    duplicate pairs of the training groups; ``valid``, ``test``: the queries of their groups; ``group``: each
    question that has a duplicate -> the number of its group."""

    collection: tuple[str, ...]
    train: tuple[tuple[str, str], ...]
    valid: tuple[FullQuery, ...]
    test: tuple[FullQuery, ...]
    group: dict[str, int]


def duplicate_pairs(data: QuestionRetrievalData) -> list[tuple[str, str]]:
    """Every marked duplicate pair of the corpus once (unordered, first-seen order): training queries' similar
    questions, then dev's and test's."""
    marks = [(q.id, s) for q in (*(data.train or ()), *data.dev, *data.test) for s in q.similar_ids]
    pairs = {tuple(sorted(p)): None for p in marks if p[0] != p[1] and p[0] in data.corpus and p[1] in data.corpus}
    return list(pairs)


def duplicate_split(data: QuestionRetrievalData, *, valid_queries: int, test_queries: int,
                    seed: int = 0) -> DuplicateSplit:
    """Groups of duplicates (connected by marks) in a random order (``seed``) go to test until it holds at least
    ``test_queries`` queries, then to validation (``valid_queries``), the rest to training."""
    pairs = duplicate_pairs(data)
    parent: dict[str, str] = {}

    def root(q: str) -> str:
        while parent.setdefault(q, q) != q:
            parent[q] = parent[parent[q]]  # path halving
            q = parent[q]
        return q

    for a, b in pairs:
        parent[root(a)] = root(b)
    groups: dict[str, list[str]] = {}
    for q in parent:
        groups.setdefault(root(q), []).append(q)
    rng = np.random.default_rng(seed)
    ordered = [groups[r] for r in rng.permutation(sorted(groups))]
    neighbours: dict[str, list[str]] = {}
    for a, b in pairs:
        neighbours.setdefault(a, []).append(b)
        neighbours.setdefault(b, []).append(a)
    side: dict[str, str] = {}
    counts = {"test": 0, "valid": 0}
    for group in ordered:
        name = next((s for s, want in (("test", test_queries), ("valid", valid_queries)) if counts[s] < want), "train")
        counts[name] = counts.get(name, 0) + len(group)
        side.update((q, name) for q in group)
    if counts["valid"] < valid_queries:
        raise ValueError(f"{len(side):,} questions with a duplicate cannot give {test_queries:,} test and "
                         f"{valid_queries:,} validation queries; ask for fewer")
    queries = {name: tuple(FullQuery(q, tuple(neighbours[q])) for group in ordered for q in group
                           if side[q] == name) for name in ("valid", "test")}
    train = tuple(p for p in pairs if side[p[0]] == "train")
    collection = tuple(np.asarray(list(data.corpus))[rng.permutation(len(data.corpus))])
    group = {q: i for i, members in enumerate(ordered) for q in members}
    return DuplicateSplit(collection, train, queries["valid"], queries["test"], group)


def top_k(score_block: Callable[[np.ndarray], np.ndarray], query_rows: Sequence[int], *, k: int,
          block: int = 256, progress: bool = False) -> np.ndarray:
    """``[n_queries, k]`` collection rows of each query's k best scores, best first, ties in row order; the query's
    own row (``query_rows``) is never among them. ``score_block(rows)`` scores the queries at ``rows`` against the
    whole collection (``[len(rows), N]``)."""
    rows = np.asarray(query_rows, dtype=np.int64)
    out = np.empty((len(rows), k), dtype=np.int64)
    starts = range(0, len(rows), block)
    for start in tqdm(starts, desc="full-collection scoring", unit="block", disable=not progress):
        chunk = rows[start:start + block]
        scores = np.array(score_block(chunk), dtype=np.float64)  # a copy: its own rows are overwritten
        if scores.shape[0] != len(chunk) or scores.shape[1] <= k:
            raise ValueError(f"score_block gave shape {scores.shape} for {len(chunk)} queries; the collection "
                             f"must hold more than k = {k} questions")
        scores[np.arange(len(chunk)), chunk] = -np.inf  # a query never retrieves itself
        kth = -np.partition(-scores, k - 1, axis=1)[:, k - 1:k]  # each row's k-th best value
        for i, row in enumerate(scores):
            tied_or_better = np.flatnonzero(row >= kth[i])  # ascending rows: a stable order for ties
            out[start + i] = tied_or_better[np.argsort(-row[tied_or_better], kind="stable")[:k]]
    return out


def lexical_score_block(ranker, corpus: dict[str, Question], split: DuplicateSplit, *, fields: str
                        ) -> Callable[[np.ndarray], np.ndarray]:
    """:func:`top_k`'s ``score_block`` for a lexical ranker with ``fit`` / ``scores_many`` (the Lucene similarities):
    fitted on the collection's questions (``fields``: their titles, or titles and bodies), each block of queries
    one sparse product."""
    docs = [question_tokens(corpus[q], fields) for q in split.collection]
    ranker.fit(docs)
    return lambda rows: ranker.scores_many([docs[r] for r in rows]).toarray()


def evaluate(score_block: Callable[[np.ndarray], np.ndarray], split: DuplicateSplit, queries: Sequence[FullQuery],
             *, ks: Sequence[int] = (1, 5, 10), progress: bool = False) -> dict[str, float]:
    """Accuracy@k of ``queries`` (of ``split``) retrieving from the whole collection."""
    row = {q: i for i, q in enumerate(split.collection)}
    ranked = top_k(score_block, [row[q.id] for q in queries], k=max(ks), progress=progress)
    return accuracy_at_k(ranked, [[row[d] for d in q.duplicate_ids] for q in queries], ks)


def accuracy_at_k(ranked: np.ndarray, duplicates: Iterable[Iterable[int]], ks: Sequence[int] = (1, 5, 10)
                  ) -> dict[str, float]:
    """dos Santos et al.'s Accuracy@k (a fraction; their tables print percent): the share of queries with a
    duplicate among their first k rows of ``ranked`` (:func:`top_k`); ``duplicates``: each query's duplicate rows."""
    hits = {k: 0 for k in ks}
    n = 0
    for row, dup in zip(ranked, duplicates):
        first = np.flatnonzero(np.isin(row, np.fromiter(dup, dtype=np.int64)))
        n += 1
        for k in ks:
            hits[k] += bool(first.size) and first[0] < k
    if n != len(ranked):
        raise ValueError(f"{len(ranked)} ranked queries but {n} duplicate lists")
    return {f"Accuracy@{k}": hits[k] / n for k in ks}
