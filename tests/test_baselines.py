"""Lexical baselines: BM25 (Lucene's classic formula) and TF-IDF cosine, each against a slow twin."""

from __future__ import annotations

import doctest
import math
from collections import Counter

import numpy as np
import pytest

from reproq.baselines import bm25, tfidf
from reproq.baselines.bm25 import BM25, BM25Config
from reproq.baselines.tfidf import TfidfConfig, TfidfRanker, word_ngrams

TWO_DOCS = [["a", "b", "a"], ["b", "c"]]  # N = 2, dl = (3, 2), avgdl = 2.5


def random_corpus(seed: int, n_docs: int = 60, vocab_size: int = 40) -> tuple[list[list[str]], list[list[str]]]:
    """Zipf-ish token draws so some terms are in most documents and some in one; a few empty documents;
    queries with repeated and unseen tokens."""
    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, vocab_size + 1)
    p /= p.sum()
    draw = lambda n: [f"w{i}" for i in rng.choice(vocab_size, size=n, p=p)]  # noqa: E731
    docs = [draw(int(rng.integers(0, 25))) for _ in range(n_docs)]
    docs[3] = []
    queries = [draw(int(rng.integers(1, 8))) + ["unseen"] * int(rng.integers(0, 2)) for _ in range(15)]
    return docs, queries


@pytest.mark.parametrize("module", [bm25, tfidf])
def test_docstring_examples(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0


# ----------------------------------------------------------------------------- BM25


def test_bm25_two_documents_by_hand():
    model = BM25().fit(TWO_DOCS)
    # k1 = 1.2, b = 0.75: length part k1·(1 − b + b·dl/avgdl) = 1.2·(0.25 + 0.75·3/2.5) = 1.38 for doc 0,
    # 1.2·(0.25 + 0.75·2/2.5) = 1.02 for doc 1.
    # idf(a) = ln(1 + (2 - 1 + 0.5)/(1 + 0.5)) = ln 2, idf(b) = ln(1 + (2 - 2 + 0.5)/(2 + 0.5)) = ln 1.2.
    a0 = math.log(2) * 2 * 2.2 / (2 + 1.38)
    b0 = math.log(1.2) * 1 * 2.2 / (1 + 1.38)
    b1 = math.log(1.2) * 1 * 2.2 / (1 + 1.02)
    assert model.avgdl_ == 2.5
    np.testing.assert_allclose(model.scores(["a"]), [a0, 0.0], rtol=1e-12)
    np.testing.assert_allclose(model.scores(["b"]), [b0, b1], rtol=1e-12)
    np.testing.assert_allclose(model.scores(["a", "b", "zzz"]), [a0 + b0, b1], rtol=1e-12)
    assert model.score(["a", "b"], 0) == pytest.approx(a0 + b0, rel=1e-12)
    assert model.score(["b"], 1) == pytest.approx(b1, rel=1e-12)
    # a repeated query term is a repeated Lucene clause: it counts twice
    np.testing.assert_allclose(model.scores(["a", "a"]), [2 * a0, 0.0], rtol=1e-12)
    assert model.score(["a", "a"], 0) == pytest.approx(2 * a0, rel=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("config", [BM25Config(), BM25Config(k1=2.0, b=0.3), BM25Config(k1=0.5, b=1.0)])
def test_bm25_fast_path_matches_slow_twin(seed, config):
    docs, queries = random_corpus(seed)
    model = BM25(config).fit(docs)
    for query in queries:
        fast = model.scores(query)
        slow = [model.score(query, i) for i in range(len(docs))]
        np.testing.assert_allclose(fast, slow, rtol=1e-10, atol=1e-12)
        assert fast.max() > 0  # the corpus and queries are drawn so that something matches


def test_bm25_collection_statistics():
    docs, _ = random_corpus(7)
    model = BM25().fit(docs)
    df = Counter(t for doc in docs for t in set(doc))
    assert model.n_docs_ == len(docs)
    np.testing.assert_array_equal(model.doc_len_, [len(d) for d in docs])
    assert model.avgdl_ == pytest.approx(sum(map(len, docs)) / len(docs))
    assert {t: int(model.df_[j]) for t, j in model.vocabulary_.items()} == dict(df)


def test_bm25_parameter_limits():
    docs = [["x", "pad", "pad", "pad", "pad"], ["x"], ["x", "x", "x", "y"]]
    # b = 0: document length is ignored, so the long and the short document with tf = 1 tie
    s = BM25(BM25Config(b=0.0)).fit(docs).scores(["x"])
    assert s[0] == pytest.approx(s[1]) and s[2] > s[1]
    # k1 = 0: tf saturates at once; every matching document scores idf once per query term
    model = BM25(BM25Config(k1=0.0)).fit(docs)
    np.testing.assert_allclose(model.scores(["x", "y"]), model.idf_[0] + np.array([0, 0, model.idf_[-1]]))
    with pytest.raises(ValueError, match="b must be"):
        BM25Config(b=1.5)
    with pytest.raises(ValueError, match="k1 must be"):
        BM25Config(k1=-1)


# ----------------------------------------------------------------------------- TF-IDF


def slow_tfidf_cosine(docs, query, smooth_idf, sublinear_tf, binary=False, use_idf=True):
    """Hand-rolled unigram tf-idf + cosine, written from scikit-learn's documented formulas."""
    n = len(docs)
    df = Counter(t for d in docs for t in set(d))
    idf = {t: (math.log((1 + n) / (1 + k)) + 1 if smooth_idf else math.log(n / k) + 1) if use_idf else 1.0
           for t, k in df.items()}

    def vector(tokens):
        counts = Counter(t for t in tokens if t in idf)  # unseen query terms have no column
        return {t: (1 if binary else 1 + math.log(c) if sublinear_tf else c) * idf[t] for t, c in counts.items()}

    def cosine(u, v):
        dot = sum(w * v.get(t, 0.0) for t, w in u.items())
        norms = math.sqrt(sum(w * w for w in u.values())) * math.sqrt(sum(w * w for w in v.values()))
        return dot / norms if norms else 0.0

    q = vector(query)
    return [cosine(q, vector(d)) for d in docs]


@pytest.mark.parametrize("smooth_idf", [True, False])
@pytest.mark.parametrize("sublinear_tf", [False, True])
def test_tfidf_matches_slow_twin(smooth_idf, sublinear_tf):
    docs, queries = random_corpus(11)
    model = TfidfRanker(TfidfConfig(smooth_idf=smooth_idf, sublinear_tf=sublinear_tf)).fit(docs)
    for query in queries:
        expected = slow_tfidf_cosine(docs, query, smooth_idf, sublinear_tf)
        np.testing.assert_allclose(model.scores(query), expected, rtol=1e-10, atol=1e-12)


def test_rankines_bag_of_words_and_tfidf_match_slow_twin():
    """Rankine §3.1: BOW is the cosine of binary word vectors; his TF-IDF's idf is 1 + log(N / df)."""
    docs, queries = random_corpus(12)
    bow = TfidfRanker(TfidfConfig(binary=True, use_idf=False)).fit(docs)
    tfidf = TfidfRanker(TfidfConfig(smooth_idf=False)).fit(docs)
    for query in queries:
        np.testing.assert_allclose(bow.scores(query), slow_tfidf_cosine(docs, query, False, False, binary=True,
                                                                        use_idf=False), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(tfidf.scores(query), slow_tfidf_cosine(docs, query, False, False),
                                   rtol=1e-10, atol=1e-12)


def test_tfidf_identical_scores_one_disjoint_zero():
    docs = [["how", "install", "java", "java"], ["remove", "python"], ["install", "python"]]
    for config in [TfidfConfig(), TfidfConfig(ngram_max=3, stop_words=True)]:
        s = TfidfRanker(config).fit(docs).scores(["how", "install", "java", "java"])
        assert s[0] == pytest.approx(1.0) and s[1] == 0.0 and 0.0 < s[2] < 1.0
        assert TfidfRanker(config).fit(docs).scores(["nothing", "known"]).tolist() == [0.0, 0.0, 0.0]


def test_tfidf_ngrams_change_the_ranking():
    # doc 0 has "new york hotel" as a phrase but extra noise; doc 1 has the words, scattered
    docs = [["new", "york", "hotel", "cheap", "cheap"], ["york", "hotel", "in", "new", "jersey"],
            ["london", "hotel"], ["paris", "museum"]]  # fmt: skip
    query = ["new", "york", "hotel"]
    unigram = TfidfRanker(TfidfConfig(ngram_max=1)).fit(docs).scores(query)
    bigram = TfidfRanker(TfidfConfig(ngram_max=2)).fit(docs).scores(query)
    assert unigram[1] > unigram[0] and bigram[0] > bigram[1]


def test_tfidf_stop_words_change_the_ranking():
    # doc 0 shares only stop words with the query, doc 1 its content words
    docs = [["how", "to", "do", "it"], ["install", "java", "on", "ubuntu", "server", "please"],
            ["ubuntu", "java", "error"]]  # fmt: skip
    query = ["how", "to", "install", "java"]
    kept = TfidfRanker(TfidfConfig(stop_words=False)).fit(docs).scores(query)
    pruned = TfidfRanker(TfidfConfig(stop_words=True)).fit(docs).scores(query)
    assert kept[0] > kept[1] and pruned[0] == 0.0 and pruned[1] > pruned[2] > 0.0


def test_word_ngrams_prune_stop_words_before_forming_ngrams():
    assert word_ngrams(["the", "cat", "the", "hat"], ngram_max=2) == [
        "the", "cat", "the", "hat", "the cat", "cat the", "the hat"]  # fmt: skip
    assert word_ngrams(["the", "cat", "the", "hat"], ngram_max=2, stop_words=True) == ["cat", "hat", "cat hat"]
    assert word_ngrams(["a", "b"], ngram_max=3) == ["a", "b", "a b"]
    with pytest.raises(ValueError, match="ngram_max"):
        TfidfConfig(ngram_max=0)


# ----------------------------------------------------------------------------- both: one interface


@pytest.mark.parametrize("ranker", [BM25(), TfidfRanker(TfidfConfig(ngram_max=2))], ids=["bm25", "tfidf"])
def test_rankers_share_one_interface(ranker):
    docs, queries = random_corpus(3)
    assert ranker.fit(docs) is ranker
    full = ranker.scores(queries[0])
    assert full.shape == (len(docs),) and full.dtype == np.float64 and np.isfinite(full).all()
    subset = [5, 0, 5, len(docs) - 1]  # any order, repeats allowed: candidates of one query
    np.testing.assert_array_equal(ranker.scores(queries[0], doc_indices=subset), full[subset])
    assert ranker.scores([]).tolist() == [0.0] * len(docs)
    with pytest.raises(TypeError, match="tokenize first"):
        ranker.scores("how to install java")
    with pytest.raises(TypeError, match="tokenize first"):
        type(ranker)().fit(["a whole string", ["tokens"]])


def test_tfidf_fitted_on_another_collection_scores_with_its_statistics():
    """Smolyakov & Srikant's TF-IDF(source): idf from one corpus, vectors of another; a word the statistics never
    saw counts nothing."""
    from reproq.baselines.tfidf import TfidfRanker

    target = [["app", "crash", "wifi"], ["wifi", "slow"], ["battery", "drain"]]
    source = [["wifi", "driver"], ["kernel", "panic"], ["wifi", "slow", "kernel"]]
    on_source = TfidfRanker().fit(target, statistics=source)
    assert on_source.scores(["battery", "drain"])[2] == 0.0  # unseen by the source: no feature
    assert TfidfRanker().fit(target).scores(["battery", "drain"])[2] > 0.99
    assert set(on_source.vectorizer_.vocabulary_) == {"wifi", "driver", "kernel", "panic", "slow"}
    assert on_source.scores(["app", "crash", "wifi"])[0] == pytest.approx(1.0)  # only "wifi" of doc 0 is a feature
