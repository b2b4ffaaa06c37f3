"""BM25 as Apache Lucene's ``BM25Similarity`` computes it, with exact document lengths.

Real Lucene 8.8.1 and 10.5 (measured for issue 29) rank every TrecQA and WikiQA candidate list exactly as this
module does. The Lucene 4.x-7.x of the papers' time differs by the length byte and the (k1 + 1) factor below;
as measured then, MAP on those sets moves by -0.002 to +0.011.

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

``scores`` is the fast path (one sparse matrix product) and ``scores_many`` its batched form, both shared with the
other Lucene similarities (:mod:`reproq.baselines.term_statistics`, :mod:`reproq.baselines.lucene`); ``score`` is
their slow twin, the formula above term by term, kept so a test can check that they agree.

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
from dataclasses import dataclass

import numpy as np

from reproq.baselines.term_statistics import TermStatistics, TermWeightRanker


@dataclass(frozen=True)
class BM25Config:
    k1: float = 1.2  # Lucene BM25Similarity() default: term-frequency saturation
    b: float = 0.75  # Lucene BM25Similarity() default: strength of document-length normalisation

    def __post_init__(self) -> None:
        if self.k1 < 0:
            raise ValueError(f"k1 must be >= 0, got {self.k1}")
        if not 0 <= self.b <= 1:
            raise ValueError(f"b must be in [0, 1], got {self.b}")


class BM25(TermWeightRanker):
    """Lucene-style BM25 ranker over pre-tokenized documents (see the module docstring for the formula).

    ``fit(docs)``, ``scores(query, doc_indices=None)``, ``scores_many(queries)`` and the slow twin
    ``score(query, doc_index)`` come from :class:`~reproq.baselines.term_statistics.TermWeightRanker`. Attributes
    set by ``fit`` (scikit-learn style, trailing underscore): ``statistics_`` and its views ``vocabulary_``
    (token -> column), ``n_docs_`` (N), ``doc_len_`` (dl, shape (N,)), ``avgdl_``, ``df_`` and ``tf_`` (raw counts,
    CSR (N, V)); ``idf_`` (shape (V,)) and ``weights_`` (the per-(document, term) BM25 contribution, CSC (N, V)).
    """

    def __init__(self, config: BM25Config = BM25Config()):
        self.config = config

    @property
    def idf_(self) -> np.ndarray:
        return _idf(self.statistics_)

    def _weights(self, stats: TermStatistics, columns, tf, dl) -> np.ndarray:
        k1, b = self.config.k1, self.config.b
        length_norm = k1 * (1 - b + b * dl / stats.avgdl)
        return _idf(stats)[columns] * tf * (k1 + 1) / (tf + length_norm)

    def _term_score(self, stats: TermStatistics, column: int, tf: float, dl: float) -> float:
        k1, b = self.config.k1, self.config.b
        n, df = stats.n_docs, int(stats.df[column])
        idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
        return idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / stats.avgdl))


def _idf(stats: TermStatistics) -> np.ndarray:
    """idf(t) = ln(1 + (N − df_t + 0.5) / (df_t + 0.5)), shape (V,)."""
    return np.log1p((stats.n_docs - stats.df + 0.5) / (stats.df + 0.5))
