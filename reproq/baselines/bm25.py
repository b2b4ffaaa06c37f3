"""BM25 as Apache Lucene's classic ``BM25Similarity`` computes it (Lucene 4.x-7.x).

Lei et al. 2016 §6 rank with "the BM25 similarity measure provided by Apache Lucene"; dos Santos et al.
2015 compare with Lucene's BM25 too. For a query q (a token sequence) and a document d::

    score(q, d) = Σ_{t in q} idf(t) · tf_td · (k1 + 1) / (tf_td + k1 · (1 − b + b · dl_d / avgdl))
    idf(t)      = ln(1 + (N − df_t + 0.5) / (df_t + 0.5))

N is the number of documents, df_t how many contain t, tf_td how often t occurs in d, dl_d the length of
d in tokens and avgdl the mean length. A term repeated in the query counts once per occurrence, as
Lucene's BooleanQuery sums one clause per query term; a term no document contains adds nothing.

What we do not replicate, on purpose:

- Lucene stores dl as a lossy one-byte norm (4.x-6.x: ``floatToByte315(1/sqrt(dl))``, decoded through a
  256-entry table; 7.x: ``intToByte4(dl)``, exact only for short fields), so two documents of nearby
  lengths look equally long to Lucene. We use the exact length.
- Lucene computes in float32; we compute in float64. Near-ties may break differently.
- Lucene 8 dropped the constant factor (k1 + 1) from the numerator (LUCENE-8563). That scales every score
  by 1/(k1 + 1) and leaves rankings unchanged; we keep the factor, as the Lucene of 2016 had it.

``scores`` is the fast path (one sparse matrix product); ``score`` is its slow twin, the formula above
term by term, kept so a test can check that they agree.

>>> bm25 = BM25().fit([["a", "b", "a"], ["b", "c"]])
>>> bm25.scores(["a", "b"]).round(4)
array([1.0709, 0.1986])
"""

# Sources for the formula and the caveats (checked against the code, not remembered):
# - apache/lucene-solr, lucene/core/.../search/similarities/BM25Similarity.java (4.x): idf() is
#   "log(1 + (numDocs - docFreq + 0.5)/(docFreq + 0.5))", the per-term weight is idf · (k1 + 1), the
#   length part is a 256-entry cache "k1 * ((1 - b) + b * decodeNormValue(norm) / avgdl)", avgdl is
#   sumTotalTermFreq / maxDoc, defaults k1 = 1.2, b = 0.75. The 7.x computeNorm encodes
#   SmallFloat.intToByte4(numTerms) for indexes created by 7.x and floatToByte315(1/sqrt(numTerms)) before.
# - LUCENE-8563, apache/lucene-solr pull request #511: "Remove k1+1 from the numerator of BM25Similarity";
#   its MIGRATE.txt entry: "Ordering of results is preserved unless scores are computed from multiple
#   fields using different similarities." Solr keeps the old formula as LegacyBM25Similarity.

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp


@dataclass(frozen=True)
class BM25Config:
    k1: float = 1.2  # Lucene BM25Similarity() default: term-frequency saturation
    b: float = 0.75  # Lucene BM25Similarity() default: strength of document-length normalisation

    def __post_init__(self) -> None:
        if self.k1 < 0:
            raise ValueError(f"k1 must be >= 0, got {self.k1}")
        if not 0 <= self.b <= 1:
            raise ValueError(f"b must be in [0, 1], got {self.b}")


class BM25:
    """Lucene-style BM25 ranker over pre-tokenized documents (see the module docstring for the formula).

    Attributes set by ``fit`` (scikit-learn style, trailing underscore): ``vocabulary_`` (token -> column),
    ``n_docs_`` (N), ``doc_len_`` (dl, shape (N,)), ``avgdl_``, ``df_`` and ``idf_`` (shape (V,)),
    ``tf_`` (raw counts, CSR (N, V)) and ``weights_`` (the per-(document, term) BM25 contribution, CSC (N, V)).
    """

    def __init__(self, config: BM25Config = BM25Config()):
        self.config = config

    def fit(self, docs: Sequence[Sequence[str]]) -> "BM25":
        """Collect N, df, dl and avgdl from ``docs`` and precompute every document's term weights."""
        vocabulary: dict[str, int] = {}
        rows, cols = [], []
        for i, doc in enumerate(docs):
            _check_tokens(doc, f"document {i}")
            for token in doc:
                rows.append(i)
                cols.append(vocabulary.setdefault(token, len(vocabulary)))
        n_docs = len(docs)
        if n_docs == 0:
            raise ValueError("cannot fit BM25 on an empty collection")
        # duplicate (row, col) pairs are summed on conversion: that sum is tf
        tf = sp.coo_matrix((np.ones(len(rows)), (rows, cols)), shape=(n_docs, len(vocabulary))).tocsr()
        self.vocabulary_ = vocabulary
        self.n_docs_ = n_docs
        self.tf_ = tf
        self.doc_len_ = np.asarray(tf.sum(axis=1)).ravel()  # (N,)
        self.avgdl_ = float(self.doc_len_.mean())
        self.df_ = np.diff(tf.tocsc().indptr)  # (V,) non-zeros per column
        self.idf_ = np.log1p((n_docs - self.df_ + 0.5) / (self.df_ + 0.5))

        k1, b = self.config.k1, self.config.b
        weights = tf.copy()  # same sparsity pattern; only stored (non-zero) tf values are touched
        doc_of_entry = np.repeat(np.arange(n_docs), np.diff(tf.indptr))
        length_norm = k1 * (1 - b + b * self.doc_len_[doc_of_entry] / self.avgdl_)
        weights.data = self.idf_[tf.indices] * tf.data * (k1 + 1) / (tf.data + length_norm)
        self.weights_ = weights.tocsc()  # column slices = one query term's postings
        return self

    def scores(self, query: Sequence[str], doc_indices: Sequence[int] | None = None) -> np.ndarray:
        """BM25 of ``query`` against every document, or only ``doc_indices`` (in that order); float64."""
        _check_tokens(query, "query")
        counts = Counter(t for t in query if t in self.vocabulary_)
        if counts:
            columns = [self.vocabulary_[t] for t in counts]
            all_scores = self.weights_[:, columns] @ np.fromiter(counts.values(), dtype=np.float64)
        else:
            all_scores = np.zeros(self.n_docs_)
        return all_scores if doc_indices is None else all_scores[np.asarray(doc_indices, dtype=np.int64)]

    def score(self, query: Sequence[str], doc_index: int) -> float:
        """BM25 of ``query`` against one document, term by term: the slow twin of ``scores``."""
        _check_tokens(query, "query")
        k1, b = self.config.k1, self.config.b
        n, dl = self.n_docs_, float(self.doc_len_[doc_index])
        total = 0.0
        for t in query:  # a repeated query term is a repeated clause
            column = self.vocabulary_.get(t)
            tf = 0.0 if column is None else float(self.tf_[doc_index, column])
            if tf == 0.0:
                continue
            df = int(self.df_[column])
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            total += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / self.avgdl_))
        return total


def _check_tokens(tokens: Sequence[str], what: str) -> None:
    # a str is a Sequence[str] too: without this, "how to" would silently become 6 one-letter tokens
    if isinstance(tokens, str):
        raise TypeError(f"{what}: expected a sequence of tokens, got a str {tokens[:40]!r}; tokenize first")
