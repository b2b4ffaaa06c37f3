"""TF-IDF cosine ranker: the TF-IDF baseline of Lei et al. 2016 §6.

Lei et al. rank "using cosine similarity based on a vector-based word representation for each question"
and tune the "n-gram feature order n ∈ {1, 2, 3} with and without stop words pruning"; the chosen setting
is not reported, so the config exposes both knobs. Documents and queries are pre-tokenized. Features are
word n-grams of order 1..``ngram_max``; with ``stop_words`` the tokens in scikit-learn's English list are
removed *before* n-grams are formed, so "install the driver" yields the bigram "install driver" (this is
also what scikit-learn's own word analyzer does). Tokens are compared as given: case-folding is the
tokenizer's job.

Vectors are scikit-learn's ``TfidfVectorizer`` with ``norm="l2"``, fitted on the documents only (the query
adds nothing to df)::

    w_td   = tf_td · idf_t,   tf_td = count (1 + ln count if sublinear_tf; 1 if binary)
    idf_t  = ln((1 + N) / (1 + df_t)) + 1   (smooth_idf; else ln(N / df_t) + 1, Rankine's; 1 without use_idf)
    s(q, d) = cos(w_q, w_d) = w_q · w_d / (‖w_q‖ ‖w_d‖)

A query whose n-grams are all unseen gets 0.0 for every document.

>>> ranker = TfidfRanker(TfidfConfig(ngram_max=2)).fit([["new", "york"], ["york", "new"]])
>>> ranker.scores(["new", "york"]).round(3)
array([1.   , 0.503])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS, TfidfVectorizer


@dataclass(frozen=True)
class TfidfConfig:
    ngram_max: int = 1  # Lei et al. 2016 §6 searched n ∈ {1, 2, 3}; unigrams are the plain VSM baseline
    stop_words: bool = False  # Lei et al. 2016 §6 tried with and without; off = the text as given
    sublinear_tf: bool = False  # scikit-learn TfidfVectorizer default (raw counts)
    smooth_idf: bool = True  # scikit-learn TfidfVectorizer default (as if one extra document held every term)
    use_idf: bool = True  # False: term frequencies alone (with ``binary``: Rankine's BOW, a cosine of word sets)
    binary: bool = False  # tf is 1 for a present term (Rankine §3.1's bag of words)

    def __post_init__(self) -> None:
        if self.ngram_max < 1:
            raise ValueError(f"ngram_max must be >= 1, got {self.ngram_max}")


def word_ngrams(tokens: Sequence[str], ngram_max: int = 1, stop_words: bool = False) -> list[str]:
    """Word n-grams of order 1..``ngram_max``, space-joined, after removing stop words if asked.

    >>> word_ngrams(["install", "the", "driver"], ngram_max=2, stop_words=True)
    ['install', 'driver', 'install driver']
    """
    if isinstance(tokens, str):  # a str is a Sequence[str] too; it would become one-letter tokens
        raise TypeError(f"expected a sequence of tokens, got a str {tokens[:40]!r}; tokenize first")
    kept = [t for t in tokens if not (stop_words and t in ENGLISH_STOP_WORDS)]
    return [" ".join(kept[i : i + n]) for n in range(1, ngram_max + 1) for i in range(len(kept) - n + 1)]


class TfidfRanker:
    """Cosine similarity of tf-idf vectors; ``fit`` / ``scores`` as in :class:`reproq.baselines.bm25.BM25`.

    Attributes set by ``fit``: ``vectorizer_`` (the fitted ``TfidfVectorizer``) and ``doc_vectors_``
    (CSR (N, F), rows of unit length, or zero for a document with no features).
    """

    def __init__(self, config: TfidfConfig = TfidfConfig()):
        self.config = config

    def fit(self, docs: Sequence[Sequence[str]], *, statistics: Sequence[Sequence[str]] | None = None
            ) -> "TfidfRanker":
        """Fit the vocabulary and idf on ``statistics`` (default: ``docs``) and keep the unit-length tf-idf vectors
        of ``docs`` (Smolyakov & Srikant fit TF-IDF on the source domain and score the target: then a target word
        the source never saw counts nothing)."""
        if len(docs) == 0 or (statistics is not None and len(statistics) == 0):
            raise ValueError("cannot fit TF-IDF on an empty collection")
        c = self.config
        self.vectorizer_ = TfidfVectorizer(
            # a callable analyzer gets each pre-tokenized document as is, so scikit-learn does no
            # lower-casing, token pattern or n-gram step of its own: word_ngrams is the whole analysis
            analyzer=partial(word_ngrams, ngram_max=c.ngram_max, stop_words=c.stop_words),
            norm="l2",  # unit rows: a dot product is then the cosine
            sublinear_tf=c.sublinear_tf,
            smooth_idf=c.smooth_idf,
            use_idf=c.use_idf,
            binary=c.binary,
        )
        if statistics is None:
            self.doc_vectors_ = self.vectorizer_.fit_transform(docs).tocsr()
        else:
            self.doc_vectors_ = self.vectorizer_.fit(statistics).transform(docs).tocsr()
        return self

    def scores(self, query: Sequence[str], doc_indices: Sequence[int] | None = None) -> np.ndarray:
        """Cosine of ``query`` with every document, or only ``doc_indices`` (in that order); float64."""
        q = self.vectorizer_.transform([query])  # (1, F), unit length or all zero
        docs = self.doc_vectors_
        if doc_indices is not None:
            docs = docs[np.asarray(doc_indices, dtype=np.int64)]
        return np.asarray((docs @ q.T).todense(), dtype=np.float64).ravel()
