"""The six Lucene similarities dos Santos et al. 2015 compare BOW-CNN with (§3.2, Tables 3-4), as Lucene 4.10 scores.

dos Santos et al. rank whole StackExchange collections with "six well-established IR algorithms available on the
Lucene package": TFIDF, BM25, IB, DFR, LMDirichlet and LMJelinekMercer, "tuned using the development sets" (the
values are not reported). The configs below default to Lucene's own defaults where it has one, else to a choice
named beside it. Each similarity sums, over the query's tokens whose term d contains (a repeated token counts once
per occurrence: one BooleanQuery clause per token), a weight w(t, d) of tf = tf_td, dl = dl_d, N documents, avgdl,
df = df_t, the term's collection frequency ttf = ttf_t and the collection's token count T::

    ClassicTFIDF     coord(q, d) · queryNorm(q) · Σ sqrt(tf) · idf² / sqrt(dl),   idf = 1 + ln(N / (df + 1))
                     coord(q, d) = (tokens of q whose term d contains) / (tokens of q)
                     queryNorm(q) = 1 / sqrt(Σ_{t ∈ q} idf(t)²)   (every token; an unknown one has df = 0)
    BM25             Σ idf · tf · (k1 + 1) / (tf + k1 · (1 − b + b · dl / avgdl))    (reproq.baselines.bm25)
    IB  (LL-DF-H2)   Σ −ln(λ / (tfn + λ)),              λ = (df + 1) / (N + 1)
    DFR (In-L-H2)    Σ tfn · log2((N + 1) / (df + 0.5)) · 1 / (tfn + 1)
                     where for both tfn = tf · log2(1 + c · avgdl / dl)   (normalization H2)
    LMDirichlet      Σ max(0, ln(1 + tf / (μ · p)) + ln(μ / (dl + μ))),   p = (ttf + 1) / (T + 1)
    LMJelinekMercer  Σ ln(1 + ((1 − λ) · tf / dl) / (λ · p))

Of ClassicSimilarity's two extra factors we keep both, so that a score is Lucene's number: coord changes rankings
(a document matching more of the query's tokens gains), queryNorm does not (one constant per query).
Note that LMDirichlet is not the textbook query likelihood: Lucene adds the document's ln(μ / (dl + μ)) once per
*matching* token, not once per query token, and clips each term's sum at 0 (its javadoc: a document with fewer
occurrences "than predicted by the collection language model" gets 0 for the term).

What we do not replicate (as in reproq.baselines.bm25): Lucene 4.x's lossy one-byte length norm (dl is decoded from
floatToByte315(1/sqrt(dl)), exact only when dl is a power of 4), and its float32 arithmetic (we compute in float64).
N counts every document, empty ones too (4.x's maxDoc).

Lucene 8.8.1 (read, and run on tests/fixtures/lucene/) differs: ClassicSimilarity has neither coord nor queryNorm,
multiplies idf in once, not squared, and takes idf = 1 + ln((N + 1) / (df + 1)), which can change rankings; BM25
drops the constant (k1 + 1) (rankings kept); DFR In-L computes A · (1 − 1 / (1 + tfn)), the same number as 4.10's
A · tfn / (tfn + 1); IB, LMDirichlet and LMJelinekMercer are unchanged. Every similarity takes N and avgdl over the
documents that have the field (docCount, not maxDoc: the same when none is empty), stores dl exactly for short
fields (SmallFloat.intToByte4) and computes in float64. tests/baselines/test_lucene.py checks each of these claims
against Lucene 8.8.1's scores.

>>> docs = [["a", "b", "a"], ["b", "c"]]
>>> for name, ranker in SIMILARITIES.items():  # dos Santos et al.'s names
...     print(name, ranker().fit(docs).scores(["a", "b"]).round(4))
TFIDF [0.8772 0.1074]
BM25 [1.0709 0.1986]
IB [1.9157 0.7747]
DFR [0.7589 0.1418]
LMDirichlet [0.0005 0.    ]
LMJelinekMercer [0.7033 0.3567]
"""

# Sources (Lucene 4.10.4 and 8.8.1 as Debian ships them: lucene4.10_4.10.4+dfsg.orig.tar.gz and
# lucene8_8.8.1.orig.tar.xz, lucene/core/src/java/org/apache/lucene/search/), read, not remembered:
# - similarities/DefaultSimilarity.java (4.10): tf = sqrt(freq), idf = log(numDocs/(docFreq+1)) + 1, lengthNorm =
#   1/sqrt(numTerms), coord = overlap/maxOverlap, queryNorm = 1/sqrt(sumOfSquaredWeights);
#   TFIDFSimilarity.java: queryWeight = idf · boost · queryNorm, score = tf(freq) · queryWeight · idf · norm;
#   BooleanQuery.java: maxCoord counts every non-prohibited clause, sumOfSquaredWeights sums every clause.
#   8.8.1's ClassicSimilarity.java: idf = log((docCount+1)/(docFreq+1)) + 1; its TFIDFSimilarity.java: queryWeight =
#   boost · idf, score = tf(freq) · queryWeight · norm (idf once; coord and queryNorm are gone).
# - SimilarityBase.java (4.10): numberOfDocuments = maxDoc, avgFieldLength = sumTotalTermFreq / maxDoc, the norm
#   decodes to 1/f² of floatToByte315(1/sqrt(length)); Similarity.java: coord and queryNorm default to 1.
# - IBSimilarity.java, DistributionLL.java "-log(lambda / (tfn + lambda))", LambdaDF.java "(docFreq+1)/(N+1)",
#   NormalizationH2.java "tf * log2(1 + c * avgFieldLength / len)", c = 1 by default.
# - DFRSimilarity.java (basicModel · afterEffect), BasicModelIn.java "tfn * log2((N + 1) / (n + 0.5))",
#   AfterEffectL.java "1 / (tfn + 1)".
# - LMSimilarity.java "(totalTermFreq+1) / (numberOfFieldTokens+1)", LMDirichletSimilarity.java (mu = 2000 by
#   default, score clipped at 0), LMJelinekMercerSimilarity.java (no default lambda; javadoc: "around 0.1 for
#   title queries and 0.7 for long queries").
# - apache/lucene-solr solr/core/.../similarities/LMJelinekMercerSimilarityFactory.java: lambda defaults to 0.7;
#   DFRSimilarityFactory.java and IBSimilarityFactory.java: no default components, H2's c defaults to 1.

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from reproq.baselines.bm25 import BM25, BM25Config
from reproq.baselines.term_statistics import TermStatistics, TermWeightRanker

__all__ = ["BM25", "BM25Config", "ClassicTFIDF", "ClassicTFIDFConfig", "DFR", "DFRConfig", "IB", "IBConfig",
           "LMDirichlet", "LMDirichletConfig", "LMJelinekMercer", "LMJelinekMercerConfig", "SIMILARITIES"]


# The components IB and DFR share (Lucene's Normalization), and LMDirichlet and LMJelinekMercer (LMSimilarity's
# DefaultCollectionModel); each twice, vectorized and in plain Python for the slow twins.


def _normalization_h2(tf: np.ndarray, dl: np.ndarray, avgdl: float, c: float) -> np.ndarray:
    """NormalizationH2: tfn = tf · log2(1 + c · avgdl / dl)."""
    return tf * np.log2(1 + c * avgdl / dl)


def _normalization_h2_reference(tf: float, dl: float, avgdl: float, c: float) -> float:
    return tf * math.log2(1 + c * avgdl / dl)


def _collection_probability(stats: TermStatistics) -> np.ndarray:
    """p_t = (ttf_t + 1) / (T + 1), shape (V,)."""
    return (stats.total_term_freq + 1) / (stats.n_tokens + 1)


def _collection_probability_reference(stats: TermStatistics, column: int) -> float:
    return (float(stats.total_term_freq[column]) + 1) / (stats.n_tokens + 1)


def _require_positive(name: str, value: float) -> None:
    if not value > 0:
        raise ValueError(f"{name} must be > 0, got {value}")


@dataclass(frozen=True)
class ClassicTFIDFConfig:
    coord: bool = True  # Lucene 4.x DefaultSimilarity.coord (removed in Lucene 7); False drops it for an ablation


class ClassicTFIDF(TermWeightRanker):
    """Lucene 4.x's DefaultSimilarity (ClassicSimilarity from 6.0): the module docstring's first formula.

    ``fit`` also sets ``presence_`` (CSC (N, V), 1 where tf_td > 0): coord's numerator is presence_ @ c_q, so
    ``scores_many`` makes two sparse products of the same size (twice the memory of the other similarities').
    """

    def __init__(self, config: ClassicTFIDFConfig = ClassicTFIDFConfig()):
        self.config = config

    def fit(self, docs):
        super().fit(docs)
        w = self.weights_
        self.presence_ = sp.csc_matrix((np.ones_like(w.data), w.indices, w.indptr), shape=w.shape)
        return self

    def _weights(self, stats, columns, tf, dl):
        idf = 1 + np.log(stats.n_docs / (stats.df + 1))  # (V,)
        return np.sqrt(tf) * idf[columns] ** 2 / np.sqrt(dl)

    def _term_score(self, stats, column, tf, dl):
        idf = 1 + math.log(stats.n_docs / (int(stats.df[column]) + 1))
        return math.sqrt(tf) * idf * idf / math.sqrt(dl)

    def _query_norm(self, query: Sequence[str]) -> float:
        """queryNorm(q) = 1 / sqrt(Σ_{t ∈ q} idf(t)²) over every token (a plain-Python per-query constant)."""
        stats = self.statistics_
        df = [int(stats.df[stats.vocabulary[t]]) if t in stats.vocabulary else 0 for t in query]
        return 1 / math.sqrt(sum((1 + math.log(stats.n_docs / (n + 1))) ** 2 for n in df))

    def scores(self, query, doc_indices=None):
        columns, counts = self.statistics_.query_counts(query)
        if not columns:
            return super().scores(query, doc_indices)  # all zeros
        factor = super().scores(query) * self._query_norm(query)  # (N,)
        if self.config.coord:
            factor = factor * (self.presence_[:, columns] @ counts) / len(query)
        return factor if doc_indices is None else factor[np.asarray(doc_indices, dtype=np.int64)]

    def scores_many(self, queries):
        raw = super().scores_many(queries)  # CSR (n_queries, N)
        row_factor = np.array([self._query_norm(q) if q else 0.0 for q in queries])  # (n_queries,)
        if self.config.coord:
            matched = self.statistics_.query_matrix(queries) @ self.presence_.T  # coord's numerator, (n_queries, N)
            raw = raw.multiply(matched).tocsr()
            row_factor /= np.maximum([len(q) for q in queries], 1)
        return (sp.diags(row_factor) @ raw).tocsr()

    def score(self, query, doc_index):
        """coord · queryNorm · the sum of sqrt(tf) · idf² / sqrt(dl), term by term: the slow twin."""
        total = super().score(query, doc_index)
        if total == 0.0:
            return 0.0
        if self.config.coord:
            vocabulary, tf = self.statistics_.vocabulary, self.statistics_.tf
            matched = sum(1 for t in query if t in vocabulary and tf[doc_index, vocabulary[t]] > 0)
            total *= matched / len(query)
        return total * self._query_norm(query)


@dataclass(frozen=True)
class IBConfig:
    # Components: log-logistic distribution, λ_w = df-based, normalization H2. Lucene and Solr have no default; this
    # is Clinchant & Gaussier 2010's log-logistic model with λ_w = N_w / N and their "DFR normalization 2".
    c: float = 1.0  # Lucene NormalizationH2() default; Solr's IBSimilarityFactory documents c = 1 as H2's default

    def __post_init__(self) -> None:
        _require_positive("c", self.c)


class IB(TermWeightRanker):
    """Lucene's IBSimilarity(DistributionLL, LambdaDF, NormalizationH2(c)): w = −ln(λ / (tfn + λ))."""

    def __init__(self, config: IBConfig = IBConfig()):
        self.config = config

    def _weights(self, stats, columns, tf, dl):
        tfn = _normalization_h2(tf, dl, stats.avgdl, self.config.c)
        lam = ((stats.df + 1) / (stats.n_docs + 1))[columns]
        return -np.log(lam / (tfn + lam))

    def _term_score(self, stats, column, tf, dl):
        tfn = _normalization_h2_reference(tf, dl, stats.avgdl, self.config.c)
        lam = (int(stats.df[column]) + 1) / (stats.n_docs + 1)
        return -math.log(lam / (tfn + lam))


@dataclass(frozen=True)
class DFRConfig:
    # Components: basic model I(n), after-effect L, normalization H2: Amati & van Rijsbergen 2002's I(n)L2 (Terrier's
    # InL2). Lucene and Solr have no default; In-L-H2 has the same value in Lucene 4.10 and 8.x (the Lucene 8 rework
    # removed the basic models P, D and Be, which could score negatively).
    c: float = 1.0  # Lucene NormalizationH2() default; Solr's DFRSimilarityFactory documents c = 1 as H2's default

    def __post_init__(self) -> None:
        _require_positive("c", self.c)


class DFR(TermWeightRanker):
    """Lucene's DFRSimilarity(BasicModelIn, AfterEffectL, NormalizationH2(c)):
    w = tfn · log2((N + 1) / (df + 0.5)) · 1 / (tfn + 1)."""

    def __init__(self, config: DFRConfig = DFRConfig()):
        self.config = config

    def _weights(self, stats, columns, tf, dl):
        tfn = _normalization_h2(tf, dl, stats.avgdl, self.config.c)
        inf_n = np.log2((stats.n_docs + 1) / (stats.df + 0.5))[columns]  # basic model I(n), per unit of tfn
        return tfn * inf_n * (1 / (tfn + 1))

    def _term_score(self, stats, column, tf, dl):
        tfn = _normalization_h2_reference(tf, dl, stats.avgdl, self.config.c)
        inf_n = math.log2((stats.n_docs + 1) / (int(stats.df[column]) + 0.5))
        return tfn * inf_n * (1 / (tfn + 1))


@dataclass(frozen=True)
class LMDirichletConfig:
    mu: float = 2000.0  # Lucene LMDirichletSimilarity() default

    def __post_init__(self) -> None:
        _require_positive("mu", self.mu)


class LMDirichlet(TermWeightRanker):
    """Lucene's LMDirichletSimilarity(μ): w = max(0, ln(1 + tf / (μ·p)) + ln(μ / (dl + μ))), p = (ttf+1)/(T+1)."""

    def __init__(self, config: LMDirichletConfig = LMDirichletConfig()):
        self.config = config

    def _weights(self, stats, columns, tf, dl):
        mu, p = self.config.mu, _collection_probability(stats)[columns]
        return np.maximum(0.0, np.log(1 + tf / (mu * p)) + np.log(mu / (dl + mu)))

    def _term_score(self, stats, column, tf, dl):
        mu, p = self.config.mu, _collection_probability_reference(stats, column)
        return max(0.0, math.log(1 + tf / (mu * p)) + math.log(mu / (dl + mu)))


@dataclass(frozen=True)
class LMJelinekMercerConfig:
    # Lucene has no default; Solr's LMJelinekMercerSimilarityFactory defaults to 0.7, which Lucene's javadoc (after Zhai
    # & Lafferty) calls right for long queries; it suggests ~0.1 for title queries (Elasticsearch's default).
    lambda_: float = 0.7

    def __post_init__(self) -> None:
        if not 0 < self.lambda_ <= 1:
            raise ValueError(f"lambda_ must be in (0, 1], got {self.lambda_}")


class LMJelinekMercer(TermWeightRanker):
    """Lucene's LMJelinekMercerSimilarity(λ): w = ln(1 + ((1 − λ) · tf / dl) / (λ · p)), p = (ttf+1)/(T+1)."""

    def __init__(self, config: LMJelinekMercerConfig = LMJelinekMercerConfig()):
        self.config = config

    def _weights(self, stats, columns, tf, dl):
        lam, p = self.config.lambda_, _collection_probability(stats)[columns]
        return np.log(1 + ((1 - lam) * tf / dl) / (lam * p))

    def _term_score(self, stats, column, tf, dl):
        lam, p = self.config.lambda_, _collection_probability_reference(stats, column)
        return math.log(1 + ((1 - lam) * tf / dl) / (lam * p))


# dos Santos et al. 2015 §3.2's names (their tables abbreviate the last two LMD and LMJ) -> ranker class (each takes
# its config, or none for the defaults)
SIMILARITIES: dict[str, type[TermWeightRanker]] = {
    "TFIDF": ClassicTFIDF, "BM25": BM25, "IB": IB, "DFR": DFR, "LMDirichlet": LMDirichlet,
    "LMJelinekMercer": LMJelinekMercer}
