"""reproq.baselines.lucene: the six Lucene similarities of dos Santos et al. 2015, three ways.

1. By hand: a three-document collection whose expected scores are worked out below from Lucene 4.10's equations
   (not by calling the code under test).
2. Against themselves: every fast path (``scores``, ``scores_many``) against the slow twin ``score``.
3. Against real Lucene: tests/fixtures/lucene/lucene_scores.json is what Lucene 4.10.4 and 8.8.1 computed for
   documents.txt x queries.txt (made by make_lucene_scores.sh there, which needs Java; this test does not).
   Lucene computes in float32, so the tolerance is float32's, a few units of 1.2e-7 (Lucene 4.10's LMDirichlet
   forms 1 + tf/(μ·p) in float32, which alone costs ~1e-7 absolute per term).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from reproq.baselines import bm25, lucene
from reproq.baselines.lucene import (BM25, DFR, IB, SIMILARITIES, BM25Config, ClassicTFIDF, ClassicTFIDFConfig,
                                     DFRConfig, IBConfig, LMDirichlet, LMDirichletConfig, LMJelinekMercer,
                                     LMJelinekMercerConfig)
from reproq.baselines.term_statistics import TermStatistics

LUCENE_SCORES = Path(__file__).resolve().parents[1] / "fixtures" / "lucene" / "lucene_scores.json"

# fresh rankers by name: the six defaults and one other setting of each parameter
RANKERS = {
    "TFIDF": ClassicTFIDF, "TFIDF no coord": lambda: ClassicTFIDF(ClassicTFIDFConfig(coord=False)),
    "BM25": BM25, "BM25 k1=0.9 b=0.4": lambda: BM25(BM25Config(k1=0.9, b=0.4)),
    "IB": IB, "IB c=4": lambda: IB(IBConfig(c=4.0)),
    "DFR": DFR, "DFR c=4": lambda: DFR(DFRConfig(c=4.0)),
    "LMD": LMDirichlet, "LMD mu=10": lambda: LMDirichlet(LMDirichletConfig(mu=10.0)),
    "LMJ": LMJelinekMercer, "LMJ lambda=0.1": lambda: LMJelinekMercer(LMJelinekMercerConfig(lambda_=0.1)),
}

# ----------------------------------------------------------------------------- 1. by hand

# N = 3, dl = (3, 2, 4), T = 9 tokens, avgdl = 3 (so H2's log2(1 + c·avgdl/dl) is 1 for d0 at c = 1)
# tf: d0 a2 b1 | d1 b1 c1 | d2 c1 d3;  df: a1 b2 c2 d1;  ttf: a2 b2 c2 d3;  p = (ttf + 1)/(T + 1): a .3 b .3 c .3 d .4
HAND = [["a", "a", "b"], ["b", "c"], ["c", "d", "d", "d"]]


def test_term_statistics_by_hand():
    stats = TermStatistics.from_docs(HAND)
    column = stats.vocabulary
    assert (stats.n_docs, stats.n_tokens, stats.avgdl) == (3, 9.0, 3.0)
    assert stats.doc_len.tolist() == [3, 2, 4]
    assert {t: int(stats.df[j]) for t, j in column.items()} == {"a": 1, "b": 2, "c": 2, "d": 1}
    assert {t: stats.total_term_freq[j] for t, j in column.items()} == {"a": 2, "b": 2, "c": 2, "d": 3}
    assert stats.tf[2, column["d"]] == 3
    # an empty document counts in N and in avgdl, as in Lucene 4.x (maxDoc), and matches nothing
    with_empty = TermStatistics.from_docs(HAND + [[]])
    assert (with_empty.n_docs, with_empty.avgdl) == (4, 9 / 4)


def test_classic_tfidf_by_hand():
    # idf = 1 + ln(N / (df + 1)); "zzz" is in no document: df = 0, still in queryNorm and in coord's denominator
    idf_a, idf_b, idf_zzz = 1 + math.log(3 / 2), 1 + math.log(3 / 3), 1 + math.log(3 / 1)
    query_norm = 1 / math.sqrt(idf_a**2 + idf_b**2 + idf_zzz**2)
    # per matching term sqrt(tf) · idf² / sqrt(dl); coord = matching query tokens / 3 query tokens
    sum_d0 = math.sqrt(2) * idf_a**2 / math.sqrt(3) + math.sqrt(1) * idf_b**2 / math.sqrt(3)
    sum_d1 = math.sqrt(1) * idf_b**2 / math.sqrt(2)
    query = ["a", "b", "zzz"]
    expected = [2 / 3 * query_norm * sum_d0, 1 / 3 * query_norm * sum_d1, 0.0]
    np.testing.assert_allclose(ClassicTFIDF().fit(HAND).scores(query), expected, rtol=1e-12)
    no_coord = ClassicTFIDF(ClassicTFIDFConfig(coord=False)).fit(HAND)
    np.testing.assert_allclose(no_coord.scores(query), [query_norm * sum_d0, query_norm * sum_d1, 0.0], rtol=1e-12)


def test_bm25_is_the_existing_one_and_its_numbers_are_unchanged():
    assert lucene.BM25 is bm25.BM25 and SIMILARITIES["BM25"] is bm25.BM25
    docs = [line.split() for line in (LUCENE_SCORES.parent / "documents.txt").read_text().splitlines()]
    query = ["install", "install", "ubuntu", "unseenterm"]
    # recorded with reproq.baselines.bm25 as it was before the statistics were shared (commit 8419fc1)
    before = {(1.2, 0.75): [1.3105559442457377, 3.4969506452590626, 0.0, 0.0, 0.0, 0.0, 3.8403633949730347,
                            1.8202773059117652, 0.0, 3.8292343125637043, 0.0, 1.5524551136102094],
              (0.9, 0.4): [1.0230235377590835, 3.200234892977807, 0.0, 0.0, 0.0, 0.0, 4.051444105690355,
                           2.30163140011696, 0.0, 3.380272891668621, 0.0, 1.3704363608283678]}
    for (k1, b), expected in before.items():
        np.testing.assert_allclose(BM25(BM25Config(k1=k1, b=b)).fit(docs).scores(query), expected, rtol=1e-15)


def test_ib_by_hand():
    # tfn = tf · log2(1 + avgdl/dl) (c = 1), λ = (df + 1)/(N + 1), w = −ln(λ / (tfn + λ))
    lam_a, lam_b = 2 / 4, 3 / 4
    tfn_a0, tfn_b0, tfn_b1 = 2 * math.log2(1 + 3 / 3), 1 * math.log2(1 + 3 / 3), 1 * math.log2(1 + 3 / 2)
    assert (tfn_a0, tfn_b0) == (2.0, 1.0)
    d0 = -math.log(lam_a / (tfn_a0 + lam_a)) - math.log(lam_b / (tfn_b0 + lam_b))  # = ln 5 + ln(7/3)
    d1 = -math.log(lam_b / (tfn_b1 + lam_b))
    assert d0 == pytest.approx(math.log(5) + math.log(7 / 3))
    np.testing.assert_allclose(IB().fit(HAND).scores(["a", "b"]), [d0, d1, 0.0], rtol=1e-12)


def test_dfr_by_hand():
    # tfn as in IB; w = tfn · log2((N + 1)/(df + 0.5)) · 1/(tfn + 1)   (I(n), L, H2)
    tfn_b1 = math.log2(1 + 3 / 2)
    d0 = 2 * math.log2(4 / 1.5) / (2 + 1) + 1 * math.log2(4 / 2.5) / (1 + 1)
    d1 = tfn_b1 * math.log2(4 / 2.5) / (tfn_b1 + 1)
    np.testing.assert_allclose(DFR().fit(HAND).scores(["a", "b"]), [d0, d1, 0.0], rtol=1e-12)


def test_lm_dirichlet_by_hand_clips_each_term_at_zero():
    # w = max(0, ln(1 + tf/(μ·p)) + ln(μ/(dl + μ))), μ = 2000, p_c = 0.3, p_d = 0.4
    c_in_d1 = math.log(1 + 1 / (2000 * 0.3)) + math.log(2000 / (2 + 2000))
    c_in_d2 = math.log(1 + 1 / (2000 * 0.3)) + math.log(2000 / (4 + 2000))  # c is rarer in d2 than in the collection
    d_in_d2 = math.log(1 + 3 / (2000 * 0.4)) + math.log(2000 / (4 + 2000))
    assert c_in_d1 > 0 and c_in_d2 < 0 < d_in_d2
    # d2's score is d's term alone: c's negative term is clipped, not subtracted
    np.testing.assert_allclose(LMDirichlet().fit(HAND).scores(["c", "d"]), [0.0, c_in_d1, d_in_d2], rtol=1e-12)


def test_lm_jelinek_mercer_by_hand():
    # w = ln(1 + ((1 − λ)·tf/dl) / (λ·p)), λ = 0.7, p_a = p_b = 0.3
    d0 = math.log(1 + (0.3 * 2 / 3) / (0.7 * 0.3)) + math.log(1 + (0.3 * 1 / 3) / (0.7 * 0.3))
    d1 = math.log(1 + (0.3 * 1 / 2) / (0.7 * 0.3))
    np.testing.assert_allclose(LMJelinekMercer().fit(HAND).scores(["a", "b"]), [d0, d1, 0.0], rtol=1e-12)


@pytest.mark.parametrize("make_config, bad", [(IBConfig, {"c": 0.0}), (DFRConfig, {"c": -1.0}),
                                              (LMDirichletConfig, {"mu": 0.0}),
                                              (LMJelinekMercerConfig, {"lambda_": 0.0}),
                                              (LMJelinekMercerConfig, {"lambda_": 1.5})])
def test_configs_reject_values_lucene_cannot_use(make_config, bad):
    with pytest.raises(ValueError, match=next(iter(bad)).rstrip("_")):
        make_config(**bad)


# ----------------------------------------------------------------------------- 2. fast paths against slow twins


def zipf_collection(seed: int) -> tuple[list[list[str]], list[list[str]]]:
    """80 documents of 1-30 tokens drawn from a Zipf law over 50 terms (so df runs from most documents to one),
    plus an empty one; 25 drawn queries plus a doubled query, one with an unseen token, one of unseen tokens
    only and an empty one."""
    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, 51) ** 1.1
    words = lambda n: [f"t{i}" for i in rng.choice(50, size=n, p=p / p.sum())]  # noqa: E731
    docs = [words(int(rng.integers(1, 31))) for _ in range(80)] + [[]]
    queries = [words(int(rng.integers(1, 10))) for _ in range(25)]
    return docs, queries + [queries[0] * 2, queries[1] + ["unseen"], ["unseen", "also-unseen"], []]


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("name", RANKERS)
def test_fast_path_matches_slow_twin(name, seed):
    docs, queries = zipf_collection(seed)
    ranker = RANKERS[name]().fit(docs)
    for query in queries:
        fast = ranker.scores(query)
        slow = [ranker.score(query, i) for i in range(len(docs))]
        np.testing.assert_allclose(fast, slow, rtol=1e-10, atol=1e-13, err_msg=f"{name}, query {query}")
    assert ranker.scores(queries[0]).max() > 0 and not ranker.scores(["unseen", "also-unseen"]).any()
    assert not ranker.scores([]).any()


@pytest.mark.parametrize("name", RANKERS)
def test_batched_scores_match_one_query_at_a_time(name):
    docs, queries = zipf_collection(2)
    ranker = RANKERS[name]().fit(docs)
    one_by_one = np.stack([ranker.scores(q) for q in queries])  # (n_queries, N)
    batched = ranker.scores_many(queries)
    assert batched.shape == one_by_one.shape and batched.format == "csr" and batched.dtype == np.float64
    np.testing.assert_allclose(batched.toarray(), one_by_one, rtol=1e-12, atol=1e-15)
    # streamed in blocks of 7 queries, as a caller bounds memory: the same rows
    blocks = np.vstack([ranker.scores_many(queries[i:i + 7]).toarray() for i in range(0, len(queries), 7)])
    np.testing.assert_array_equal(blocks, batched.toarray())
    np.testing.assert_array_equal(ranker.scores(queries[3], [5, 0, 5]), one_by_one[3, [5, 0, 5]])


def test_a_repeated_query_token_counts_once_per_occurrence():
    docs, queries = zipf_collection(3)
    for name in ("IB", "DFR", "LMJ"):  # no per-query factor: the doubled query scores exactly twice
        ranker = RANKERS[name]().fit(docs)
        np.testing.assert_allclose(ranker.scores(queries[0] * 2), 2 * ranker.scores(queries[0]), rtol=1e-12)


@pytest.mark.parametrize("name", RANKERS)
def test_shared_statistics_give_the_same_weights(name):
    docs, _ = zipf_collection(4)
    stats = TermStatistics.from_docs(docs)
    a, b = RANKERS[name]().fit(docs), RANKERS[name]().fit(stats)
    assert b.statistics_ is stats
    np.testing.assert_array_equal(a.weights_.toarray(), b.weights_.toarray())


def test_tokens_must_be_sequences_not_strings():
    ranker = IB().fit(HAND)
    for call in (lambda: ranker.scores("a b"), lambda: ranker.scores_many(["a b"]), lambda: IB().fit(["a b"])):
        with pytest.raises(TypeError, match="tokenize first"):
            call()


# ----------------------------------------------------------------------------- 3. against real Lucene

FIXTURE_RANKERS = {  # the fixture's names (LuceneScores.java) -> ours
    "TFIDF": "TFIDF", "BM25": "BM25", "IB": "IB", "DFR": "DFR", "LMD": "LMD", "LMD mu=10": "LMD mu=10",
    "LMJ": "LMJ", "LMJ lambda=0.1": "LMJ lambda=0.1"}


def lucene_record(version: str) -> dict:
    return json.loads(LUCENE_SCORES.read_text())[version]


def ours_on_fixture(record: dict, name: str) -> np.ndarray:
    ranker = RANKERS[FIXTURE_RANKERS[name]]().fit(record["documents"])
    return np.stack([ranker.scores(q) for q in record["queries"]])  # (n_queries, N)


def assert_float32_close(ours: np.ndarray, theirs: np.ndarray, what: str) -> None:
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-6, err_msg=what)
    np.testing.assert_array_equal(ours > 0, theirs > 0, err_msg=f"{what}: which documents score above 0")


def test_fixture_is_lucene_4_10_and_8_8_on_lengths_their_norms_store_exactly():
    old, new = lucene_record("lucene4"), lucene_record("lucene8")
    assert (old["lucene_version"], new["lucene_version"]) == ("4.10.4", "8.8.1")
    assert old["documents"] == new["documents"] and old["queries"] == new["queries"]
    assert set(old["scores"]) == set(new["scores"]) == set(FIXTURE_RANKERS)
    # Lucene 4.x stores floatToByte315(1/sqrt(dl)): exact for dl a power of 4 (LuceneScores.java checks it too)
    assert {len(d) for d in old["documents"]} <= {1, 4, 16, 64}
    assert old["scores"]["DFR"]["lucene_class"] == "DFR I(n)L2" and old["scores"]["IB"]["lucene_class"] == "IB LL-D2"


@pytest.mark.parametrize("name", FIXTURE_RANKERS)
def test_every_score_matches_lucene_4_10(name):
    record = lucene_record("lucene4")
    theirs = np.array(record["scores"][name]["scores"])
    assert theirs.max() > 0
    assert_float32_close(ours_on_fixture(record, name), theirs, f"{name} vs Lucene 4.10.4")


@pytest.mark.parametrize("name", ["IB", "DFR", "LMD", "LMD mu=10", "LMJ", "LMJ lambda=0.1"])
def test_lucene_8_scores_ib_dfr_and_the_language_models_as_4_10_did(name):
    record = lucene_record("lucene8")
    assert_float32_close(ours_on_fixture(record, name), np.array(record["scores"][name]["scores"]), name)


def test_lucene_8_bm25_drops_k1_plus_1():
    record = lucene_record("lucene8")
    theirs = np.array(record["scores"]["BM25"]["scores"])
    assert_float32_close(ours_on_fixture(record, "BM25") / (1.2 + 1), theirs, "BM25 / (k1 + 1)")


def test_lucene_8_classic_similarity_has_no_coord_nor_query_norm_and_a_new_idf_once():
    record = lucene_record("lucene8")
    stats = TermStatistics.from_docs(record["documents"])
    idf = 1 + np.log((stats.n_docs + 1) / (stats.df + 1))  # Lucene 8: (docCount + 1) / (docFreq + 1)
    # sqrt(tf) · idf / sqrt(dl): idf once (queryWeight = boost · idf), not 4.10's idf² (queryWeight · idf)
    per_term = stats.tf.sqrt().multiply(1 / np.sqrt(stats.doc_len)[:, None]).toarray() * idf  # (N, V)
    expected = np.stack([per_term @ stats.query_matrix([q]).toarray().ravel() for q in record["queries"]])
    theirs = np.array(record["scores"]["TFIDF"]["scores"])
    assert_float32_close(expected, theirs, "ClassicSimilarity 8.8.1")
    ours = ours_on_fixture(record, "TFIDF")
    # ... which orders some pair of documents the other way round from 4.10's coord and idf
    margin = 1e-3
    n_docs = ours.shape[1]
    reversed_pairs = [(q, i, j) for q, (o, t) in enumerate(zip(ours, theirs)) for i in range(n_docs)
                      for j in range(n_docs) if o[i] > o[j] + margin and t[i] < t[j] - margin]
    assert reversed_pairs
