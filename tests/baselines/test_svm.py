"""The SVM re-ranker of Lei et al. 2016 Table 2: its features by hand and against slow twins, the pairwise
transform, SVM-light's default C, and Lei et al.'s protocol (test queries only ever scored)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from reproq import profiles
from reproq.baselines import svm
from reproq.baselines.lexical import FIELDS, question_tokens
from reproq.baselines.tfidf import TfidfRanker
from reproq.corpora import load_askubuntu
from reproq.data.askubuntu import Question, TrainQuery
from reproq.data.vocab import lowercase
from reproq.question_retrieval.evaluate import retrieval_scores


# ----------------------------------------------------------------------------- slow twins


def lcs_reference(a, b) -> int:
    """Longest common subsequence, the textbook O(|a|·|b|) table."""
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            table[i + 1][j + 1] = table[i][j] + 1 if x == y else max(table[i][j + 1], table[i + 1][j])
    return table[-1][-1]


def substring_reference(a, b) -> int:
    """Longest common substring: the longest a[i:i+k] found in b, by brute force."""
    return max((k for i in range(len(a)) for k in range(1, len(a) - i + 1) if a[i : i + k] in b), default=0)


def ratio(num, den) -> float:
    return num / den if den else 0.0


def measures_reference(q: tuple[str, ...], c: tuple[str, ...], max_chars: int) -> dict[str, float]:
    """Every measure but the TF-IDF cosine, with Python sets and the slow twins above."""
    grams = lambda seq, n: {tuple(seq[i : i + n]) for i in range(len(seq) - n + 1)}  # noqa: E731
    text_q, text_c = " ".join(q), " ".join(c)
    found = {}
    for kind, ns, a, b in (("word", svm.WORD_NS, q, c), ("char", svm.CHAR_NS, text_q, text_c)):
        for n in ns:
            sq, sc = grams(a, n), grams(b, n)
            found[f"{kind}{n}_jaccard"] = ratio(len(sq & sc), len(sq | sc))
            found[f"{kind}{n}_containment"] = ratio(len(sq & sc), len(sq))
    found["word_lcs"] = ratio(lcs_reference(q, c), max(len(q), len(c)))
    found["length_ratio"] = ratio(min(len(q), len(c)), max(len(q), len(c)))
    cut_q, cut_c = text_q[:max_chars], text_c[:max_chars]
    found["char_substring"] = ratio(substring_reference(cut_q, cut_c), max(len(cut_q), len(cut_c)))
    return found


# ----------------------------------------------------------------------------- features


def test_every_measure_of_a_pair_by_hand():
    corpus = {"q": Question("q", ("A", "b", "c", "d"), ()), "c": Question("c", ("b", "C", "e"), ())}
    x = svm.SimilarityFeatures().fit(corpus).transform(["q"], ["c"])
    # lower-cased: q = a b c d, c = b c e; texts "a b c d" (7 characters), "b c e" (5)
    idf_1 = math.log(3 / 2) + 1  # a, d, e are in one of the 2 documents (smoothed idf); b, c in both: idf 1
    expected = {
        "word1_jaccard": 2 / 5, "word2_jaccard": 1 / 4, "word3_jaccard": 0.0,  # {b, c}; {b c}; none
        "word1_containment": 2 / 4, "word2_containment": 1 / 3, "word3_containment": 0.0,
        "char3_jaccard": 2 / 6,  # "b c", " c " of {"a b", " b ", "b c", " c ", "c d"} ∪ {"c e"}
        "char4_jaccard": 1 / 5,  # "b c " of {"a b ", " b c", "b c ", " c d"} ∪ {" c e"}
        "tfidf_cosine": 2 / math.sqrt((2 * idf_1**2 + 2) * (idf_1**2 + 2)),
        "word_lcs": 2 / 4,  # b c
        "char_substring": 4 / 7,  # "b c "
        "length_ratio": 3 / 4,
    }
    assert list(expected) == sorted(expected, key=svm.MEASURES.index)
    np.testing.assert_allclose(x, [[expected[m] for m in svm.MEASURES] * len(FIELDS)], rtol=1e-12)


def test_a_one_word_question_has_no_bigrams_and_gets_zeros_not_nans():
    corpus = {"q": Question("q", ("ubuntu",), ()), "c": Question("c", ("ubuntu", "ubuntu"), ())}
    x = dict(zip(svm.FEATURE_NAMES, svm.SimilarityFeatures().fit(corpus).transform(["q", "q"], ["c", "q"]).T))
    assert x["title:word1_jaccard"].tolist() == [1.0, 1.0]
    assert x["title:word2_jaccard"].tolist() == [0.0, 0.0]
    assert x["title:word_lcs"].tolist() == [0.5, 1.0]
    assert x["title:char_substring"].tolist() == [6 / 13, 1.0]


@pytest.mark.parametrize("seed", [0, 1])
def test_features_agree_with_the_slow_twins_on_long_repetitive_texts(seed):
    # three word types: many repeated n-grams, many tied LCS paths and substrings; up to 150 tokens, so the LCS
    # spans several 64-bit words, and up to 250 characters, past difflib's 200-character junk heuristic
    rng = np.random.default_rng(seed)
    words = lambda: tuple(rng.choice(["a", "b", "ab"], size=rng.integers(0, 150)))  # noqa: E731
    corpus = {str(k): Question(str(k), words(), words()) for k in range(30)}
    pairs = [(str(i), str(j)) for i, j in rng.integers(0, len(corpus), size=(60, 2))] + [("0", "0")]
    x = dict(zip(svm.FEATURE_NAMES, svm.SimilarityFeatures(max_chars=250).fit(corpus).transform(*zip(*pairs)).T))
    for field in FIELDS:
        tokens = {i: lowercase(question_tokens(corpus[i], field)) for i in corpus}
        slow = [measures_reference(tokens[q], tokens[c], max_chars=250) for q, c in pairs]
        for measure in (m for m in svm.MEASURES if m != "tfidf_cosine"):
            np.testing.assert_allclose(x[f"{field}:{measure}"], [s[measure] for s in slow], rtol=1e-12,
                                       err_msg=f"{field}:{measure}")


# ----------------------------------------------------------------------------- the ranking SVM


def test_pairwise_transform_pairs_each_positive_with_each_negative_of_its_own_group():
    x = np.array([[1.0, 0.0], [5.0, 5.0], [0.0, 2.0], [3.0, 3.0], [0.0, 4.0]])
    labels, groups = np.array([1, 0, 0, 1, 1]), np.array([7, 3, 7, 3, 7])
    d, t = svm.pairwise_transform(x, labels, groups)
    # group 3: positive row 3, negative row 1; group 7: positives rows 0 and 4, negative row 2
    differences = [x[3] - x[1], x[0] - x[2], x[4] - x[2]]
    assert t.tolist() == [1, -1, 1]
    np.testing.assert_array_equal(d, [s * diff for s, diff in zip(t, differences)])
    np.testing.assert_array_equal(t[:, None] * d, differences)  # every constraint reads t·w·d = w·(x⁺ − x⁻)


def test_svmlight_default_c_is_one_over_the_squared_mean_length():
    x = np.array([[3.0, 4.0], [0.0, 1.0], [0.0, 0.0]])  # lengths 5, 1, 0: mean 2; mean x·x = 26/3
    assert svm.svmlight_default_c(x) == pytest.approx(1 / 4)
    assert svm.svmlight_default_c(x) != pytest.approx(3 / 26)  # the help text's "[avg. x*x]^-1", read literally
    with pytest.raises(ValueError, match="undefined"):
        svm.svmlight_default_c(np.zeros((2, 3)))


def toy_groups(rng, n_groups=30, size=10):
    """Feature 0 says relevance (1 for a positive, 0 otherwise); features 1-3 are noise three times as large."""
    labels = (rng.random((n_groups, size)) < 0.3).astype(int)
    labels[:, 0], labels[:, 1] = 1, 0  # each group has a positive and a negative
    x = np.column_stack([labels.ravel(), 3 * rng.normal(size=(labels.size, 3))])
    return x, labels.ravel(), np.repeat(np.arange(n_groups), size)


def test_a_feature_that_decides_relevance_gives_a_perfect_ranking():
    rng = np.random.default_rng(0)
    model = svm.RankingSVM().fit(*toy_groups(rng))
    x, labels, groups = toy_groups(rng)
    scores = model.decision_function(x)
    for g in np.unique(groups):
        here = groups == g
        assert scores[here][labels[here] == 1].min() > scores[here][labels[here] == 0].max()
    assert np.argmax(np.abs(model.coef_)) == 0


def test_the_svm_uses_the_default_c_of_its_standardised_differences():
    x, labels, groups = toy_groups(np.random.default_rng(1))
    model = svm.RankingSVM().fit(x, labels, groups)
    d, _ = svm.pairwise_transform(model.scaler_.transform(x), labels, groups)
    assert model.c_ == svm.svmlight_default_c(d)
    assert svm.RankingSVM(c=0.5).fit(x, labels, groups).c_ == 0.5


# ----------------------------------------------------------------------------- on the synthetic stand-in


@pytest.fixture(scope="module")
def data():
    return load_askubuntu("synthetic", synthetic_config=profiles.get("smoke").synthetic_config("askubuntu", 0))


@pytest.fixture(scope="module")
def scores(data):
    return svm.svm_scores(data, seed=0)


def test_fast_features_agree_with_the_slow_twins_on_synthetic_pairs(data):
    rng = np.random.default_rng(0)
    ids = list(data.corpus)
    pairs = [(ids[i], ids[j]) for i, j in rng.integers(0, len(ids), size=(150, 2))] + [(ids[0], ids[0])]
    features = svm.SimilarityFeatures(max_chars=60).fit(data.corpus)
    x = dict(zip(svm.FEATURE_NAMES, features.transform(*zip(*pairs)).T))
    for field in FIELDS:
        tokens = {i: lowercase(question_tokens(data.corpus[i], field)) for pair in pairs for i in pair}
        slow = [measures_reference(tokens[q], tokens[c], max_chars=60) for q, c in pairs]
        for measure in svm.MEASURES:
            if measure != "tfidf_cosine":
                np.testing.assert_allclose(x[f"{field}:{measure}"], [s[measure] for s in slow], rtol=1e-12,
                                           err_msg=f"{field}:{measure}")
        ranker = TfidfRanker().fit([lowercase(question_tokens(data.corpus[i], field)) for i in ids])
        row = {i: k for k, i in enumerate(ids)}
        cosine = [ranker.scores(tokens[q], [row[c]])[0] for q, c in pairs]  # TfidfRanker's own query path
        np.testing.assert_allclose(x[f"{field}:tfidf_cosine"], cosine, rtol=1e-9, atol=1e-12)


def test_scores_are_aligned_with_the_candidates(data, scores):
    for split in ("dev", "test"):
        queries = getattr(data, split)
        assert [len(s) for s in scores[split]] == [len(q.candidate_ids) for q in queries]
        assert all(np.isfinite(s).all() for s in scores[split])


def test_the_svm_beats_a_random_scorer_on_dev_mrr(data, scores):
    rng = np.random.default_rng(0)
    chance = np.mean([retrieval_scores(data.dev, [rng.random(len(q.candidate_ids)) for q in data.dev])["MRR"]
                      for _ in range(20)])
    assert retrieval_scores(data.dev, scores["dev"])["MRR"] > chance + 0.1


def test_same_seed_same_scores(data, scores):
    again = svm.svm_scores(data, seed=0)
    for split in ("dev", "test"):
        for a, b in zip(scores[split], again[split]):
            np.testing.assert_array_equal(a, b)


def test_test_queries_are_never_trained_on_even_when_the_training_file_lists_one(data, monkeypatch):
    test_query = data.test[0]
    leaky = dataclasses.replace(data, train=data.train + [
        TrainQuery(test_query.id, test_query.candidate_ids[:1], test_query.candidate_ids[1:])])
    protocol = svm.training_protocol(leaky)
    test_ids, dev_ids = {q.id for q in data.test}, {q.id for q in data.dev}
    assert not test_ids & {g.query_id for groups in protocol.values() for g in groups}
    assert not dev_ids & {g.query_id for g in protocol["dev"]}
    assert dev_ids & {g.query_id for g in protocol["test"]}  # dev does train the test model (Lei et al. §6)
    assert [g.query_id for g in protocol["dev"]] == [g.query_id for g in protocol["test"]][: len(protocol["dev"])]

    seen = []  # every (query, candidate) pair svm_scores featurises: the first call is the training set
    transform = svm.SimilarityFeatures.transform
    monkeypatch.setattr(svm.SimilarityFeatures, "transform",
                        lambda self, q, c: seen.append(set(q)) or transform(self, q, c))
    svm.svm_scores(leaky, seed=0)
    assert seen[0] and not seen[0] & test_ids
    assert seen[1:] == [dev_ids, test_ids]  # the rest is scoring, one split at a time
