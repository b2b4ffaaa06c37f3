"""A tokenized collection's term statistics, and the one scoring loop every Lucene similarity shares.

Each similarity of Lucene 4.x scores a document d for a query q (a token sequence; one BooleanQuery clause per
token, so a repeated token counts once per occurrence) as a sum over the query tokens whose term d contains::

    score(q, d) = Σ_{t ∈ q, tf_td > 0} w(t, d),    w(t, d) = f(tf_td, dl_d, statistics of t and of the collection)

(ClassicSimilarity multiplies in two more factors; see :class:`reproq.baselines.lucene.ClassicTFIDF`.) So a
similarity is one sparse weight matrix W (N, V), W[d, t] = w(t, d) wherever tf_td > 0, computed once by ``fit``.
One query is then a sparse matrix-vector product, and a block of queries one sparse-times-sparse product::

    scores(q)      = W @ c_q      c_q[t] = how often t occurs in q                      (N,)
    scores_many(Q) = C_Q @ Wᵀ     C_Q: one row c_q per query, CSR (n_queries, V)         CSR (n_queries, N)

:class:`TermStatistics` holds what every f reads (N, tf, dl, avgdl, df, each term's collection frequency, the
collection's token count); it is collected once and can be shared by all six similarities. :class:`TermWeightRanker`
is the shared ``fit`` / ``scores`` / ``scores_many`` / ``score``: a similarity supplies f twice, vectorized over
every stored (d, t) in ``_weights`` and in plain Python in ``_term_score`` (for the slow twin ``score``).

>>> stats = TermStatistics.from_docs([["a", "b", "a"], ["b", "c"]])
>>> stats.n_docs, stats.avgdl, stats.n_tokens, stats.df.tolist(), stats.total_term_freq.tolist()
(2, 2.5, 5.0, [1, 2, 1], [2.0, 2.0, 1.0])
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.sparse as sp


@dataclass(frozen=True, eq=False)
class TermStatistics:
    """The statistics of a collection of pre-tokenized documents that Lucene's similarities read.

    Lucene 4.10's names (``BasicStats``, ``CollectionStatistics``) beside ours: numberOfDocuments = maxDoc =
    ``n_docs`` (empty documents count), docFreq = ``df``, totalTermFreq = ``total_term_freq``, numberOfFieldTokens =
    sumTotalTermFreq = ``n_tokens``, avgFieldLength = ``avgdl`` = n_tokens / n_docs. Lucene ≥ 7 counts only the
    documents that have the field (docCount); the two agree when no document is empty.
    """

    vocabulary: Mapping[str, int]  # token -> column
    tf: sp.csr_matrix  # (N, V) raw counts tf_td, float64
    doc_len: np.ndarray  # (N,) dl_d = Σ_t tf_td: the exact length (Lucene stores a lossy one-byte norm)
    df: np.ndarray  # (V,) how many documents contain t
    total_term_freq: np.ndarray  # (V,) ttf_t = Σ_d tf_td, the term's occurrences in the whole collection

    @classmethod
    def from_docs(cls, docs: Sequence[Sequence[str]]) -> "TermStatistics":
        if len(docs) == 0:
            raise ValueError("cannot collect term statistics of an empty collection")
        vocabulary: dict[str, int] = {}
        tf = count_matrix(docs, vocabulary, "document", grow=True)
        return cls(vocabulary=vocabulary, tf=tf,
                   doc_len=np.asarray(tf.sum(axis=1)).ravel(),
                   df=np.diff(tf.tocsc().indptr),  # non-zeros per column
                   total_term_freq=np.asarray(tf.sum(axis=0)).ravel())

    @property
    def n_docs(self) -> int:
        return self.tf.shape[0]

    @cached_property  # (frozen: cached_property writes to the instance __dict__, not through __setattr__)
    def n_tokens(self) -> float:
        return float(self.doc_len.sum())

    @cached_property
    def avgdl(self) -> float:
        return float(self.doc_len.mean())

    def query_counts(self, query: Sequence[str]) -> tuple[list[int], np.ndarray]:
        """The columns of the query's known terms and how often each occurs in it (unknown terms dropped)."""
        check_tokens(query, "query")
        counts = Counter(t for t in query if t in self.vocabulary)
        return [self.vocabulary[t] for t in counts], np.fromiter(counts.values(), dtype=np.float64, count=len(counts))

    def query_matrix(self, queries: Sequence[Sequence[str]]) -> sp.csr_matrix:
        """C_Q, CSR (n_queries, V): row i counts the known terms of ``queries[i]``."""
        return count_matrix(queries, self.vocabulary, "query", grow=False)


def count_matrix(token_lists: Sequence[Sequence[str]], vocabulary: Mapping[str, int], what: str, *,
                 grow: bool) -> sp.csr_matrix:
    """CSR (len(token_lists), V) of token counts, float64. With ``grow`` an unseen token gets the next column of
    ``vocabulary`` (a dict, which this updates); without, it is dropped."""
    rows, cols = [], []
    for i, tokens in enumerate(token_lists):
        check_tokens(tokens, f"{what} {i}")
        for token in tokens:
            column = vocabulary.setdefault(token, len(vocabulary)) if grow else vocabulary.get(token)
            if column is not None:
                rows.append(i)
                cols.append(column)
    # duplicate (row, col) pairs are summed on conversion: that sum is the count
    shape = (len(token_lists), len(vocabulary))
    return sp.coo_matrix((np.ones(len(rows)), (rows, cols)), shape=shape).tocsr()


class TermWeightRanker:
    """score(q, d) = Σ_{t ∈ q, tf_td > 0} w(t, d): the ``fit`` / ``scores`` / ``scores_many`` / ``score`` of every
    Lucene similarity here. A subclass sets ``self.config`` and defines w twice (see the module docstring).

    Attributes set by ``fit``: ``statistics_`` (:class:`TermStatistics`) and ``weights_`` (W, CSC (N, V): a column is
    one term's postings); read-only views of the statistics under BM25's historical names: ``vocabulary_``,
    ``n_docs_``, ``tf_``, ``doc_len_``, ``avgdl_``, ``df_``.
    """

    def fit(self, docs: Sequence[Sequence[str]] | TermStatistics):
        """Collect the statistics of ``docs`` (or take a :class:`TermStatistics` already collected from them, so that
        several similarities share one pass over a large collection) and precompute W."""
        stats = docs if isinstance(docs, TermStatistics) else TermStatistics.from_docs(docs)
        tf = stats.tf
        doc_of_entry = np.repeat(np.arange(stats.n_docs), np.diff(tf.indptr))
        weights = tf.copy()  # same sparsity pattern; only the stored (non-zero) tf values are replaced
        weights.data = self._weights(stats, tf.indices, tf.data, stats.doc_len[doc_of_entry])
        self.statistics_ = stats
        self.weights_ = weights.tocsc()  # column slices = one query term's postings
        return self

    def scores(self, query: Sequence[str], doc_indices: Sequence[int] | None = None) -> np.ndarray:
        """The score of ``query`` against every document, or only ``doc_indices`` (in that order); float64."""
        columns, counts = self.statistics_.query_counts(query)
        if columns:
            all_scores = self.weights_[:, columns] @ counts
        else:
            all_scores = np.zeros(self.statistics_.n_docs)
        return all_scores if doc_indices is None else all_scores[np.asarray(doc_indices, dtype=np.int64)]

    def scores_many(self, queries: Sequence[Sequence[str]]) -> sp.csr_matrix:
        """Row i = ``scores(queries[i])``, as CSR (n_queries, N) float64; a document sharing no term with the query is
        an implicit 0. Memory is ~12 bytes per (query, document) pair sharing a term, so for a large collection
        pass the queries in blocks and reduce each block (e.g. to its top k) before the next::

            for start in range(0, len(queries), 256):
                block = ranker.scores_many(queries[start:start + 256])  # CSR (≤ 256, N)
        """
        return (self.statistics_.query_matrix(queries) @ self.weights_.T).tocsr()  # CSC.T is CSR: no copy

    def score(self, query: Sequence[str], doc_index: int) -> float:
        """The score of ``query`` against one document, term by term in plain Python: the slow twin of ``scores``."""
        check_tokens(query, "query")
        stats = self.statistics_
        dl = float(stats.doc_len[doc_index])
        total = 0.0
        for t in query:  # a repeated query term is a repeated clause
            column = stats.vocabulary.get(t)
            tf = 0.0 if column is None else float(stats.tf[doc_index, column])
            if tf > 0:
                total += self._term_score(stats, column, tf, dl)
        return total

    def _weights(self, stats: TermStatistics, columns: np.ndarray, tf: np.ndarray, dl: np.ndarray) -> np.ndarray:
        """w(t, d) of every stored entry: ``columns`` (its term t), ``tf`` (tf_td > 0) and ``dl`` (dl_d), aligned."""
        raise NotImplementedError

    def _term_score(self, stats: TermStatistics, column: int, tf: float, dl: float) -> float:
        """w(t, d) in plain Python: term t = ``column``, tf_td = ``tf`` > 0, a document of length ``dl``."""
        raise NotImplementedError

    # BM25's attribute names from before the statistics were shared (kept for its callers)
    vocabulary_ = property(lambda self: self.statistics_.vocabulary)
    n_docs_ = property(lambda self: self.statistics_.n_docs)
    tf_ = property(lambda self: self.statistics_.tf)
    doc_len_ = property(lambda self: self.statistics_.doc_len)
    avgdl_ = property(lambda self: self.statistics_.avgdl)
    df_ = property(lambda self: self.statistics_.df)


def check_tokens(tokens: Sequence[str], what: str) -> None:
    # a str is a Sequence[str] too: without this, "how to" would silently become 6 one-letter tokens
    if isinstance(tokens, str):
        raise TypeError(f"{what}: expected a sequence of tokens, got a str {tokens[:40]!r}; tokenize first")
