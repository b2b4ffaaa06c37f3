"""The floors of answer selection: counts by hand, the features-only LR against a direct scikit-learn fit, chance
level through random ties, and SemEval's chronological baseline."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from reproq.answer_selection import floors
from reproq.answer_selection.evaluate import ranking_scores
from reproq.baselines.overlap import OverlapFeatures, question_texts
from reproq.data.qa import Candidate, QAQuestion
from reproq.data.semeval import read_semeval
from reproq.data.trecqa import read_trecqa_xml

FIXTURES = Path(__file__).parents[1] / "fixtures"


def _question(qid: str, question: str, *answers: tuple[str, int]) -> QAQuestion:
    candidates = tuple(Candidate(f"{qid}-{i}", tuple(text.split()), label) for i, (text, label) in enumerate(answers))
    return QAQuestion(qid, tuple(question.split()), candidates)


HAND = [_question("q1", "Who founded the Wicca movement ?",
                  ("Gardner founded Wicca", 1), ("the movement grew", 0), ("cats sleep", 0)),
        _question("q2", "When did Gardner die ?", ("Gardner died in 1964", 1))]


def test_overlap_count_by_hand():
    # q1: Q = {who, founded, the, wicca, movement, ?}; "Gardner founded Wicca" shares {founded, wicca}: 2,
    # "the movement grew" shares {the, movement}: 2, "cats sleep" nothing: 0 (case is ignored, stop words count)
    # q2: Q = {when, did, gardner, die, ?}; "Gardner died in 1964" shares {gardner}: 1 ("died" is not "die")
    scores = floors.overlap_count_scores(HAND)
    assert [s.tolist() for s in scores] == [[2.0, 2.0, 0.0], [1.0]]


def test_idf_overlap_count_by_hand():
    # IDF texts: the 6 distinct texts of HAND (2 questions, 4 answers): N = 6.
    # n_w: founded 2, wicca 2, the 2, movement 2, gardner 3 -> idf = ln(6/3) = ln 2 for the first four, ln(6/4)
    # for gardner. All words: q1 [ln2 + ln2, ln2 + ln2, 0], q2 [ln 1.5]. Without stop words "the" drops out of
    # q1's second answer: [2 ln 2, ln 2, 0].
    texts = question_texts(HAND)
    all_words = floors.idf_overlap_count_scores(HAND, texts)
    np.testing.assert_allclose(np.concatenate(all_words), [2 * math.log(2), 2 * math.log(2), 0, math.log(1.5)])
    nostop = floors.idf_overlap_count_scores(HAND, texts, nostop=True)
    np.testing.assert_allclose(np.concatenate(nostop), [2 * math.log(2), math.log(2), 0, math.log(1.5)])


def test_feature_scores_names_its_columns():
    features = OverlapFeatures().fit(question_texts(HAND))
    np.testing.assert_allclose(floors.feature_scores(HAND, features, "overlap")[0], [2 / 9, 2 / 9, 0])  # |Q|+|A| = 6+3
    with pytest.raises(ValueError, match="overlap_count"):
        floors.feature_scores(HAND, features, "overlap_count")  # a raw-count name on the normalised variant


def test_bm25_scores_by_hand():
    # The collection is all four answers of HAND, lower-cased: N = 4, lengths 3, 3, 2, 4, avgdl = 3.
    # q2 shares only "gardner" with "gardner died in 1964": df 2, idf = ln(1 + (4 - 2 + 0.5) / (2 + 0.5)) = ln 2,
    # tf part = 1 * 2.2 / (1 + 1.2 * (0.25 + 0.75 * 4 / 3)) = 2.2 / 2.5 = 0.88: score 0.88 ln 2.
    scores = floors.bm25_scores(HAND)
    np.testing.assert_allclose(scores[1], [0.88 * math.log(2)])
    assert scores[0][2] == 0 and scores[0][0] > 0 and scores[0][1] > 0  # "cats sleep" shares nothing with q1


def _direct_fit(train, questions, features, C=1.0):
    """A scikit-learn fit written out without the floors module: the pairs flattened by hand."""
    x = np.array([features.transform(q.tokens, c.tokens) for q in train for c in q.candidates])
    y = np.array([c.label for q in train for c in q.candidates])
    model = LogisticRegression(C=C, solver="lbfgs", max_iter=1000, random_state=0).fit(x, y)
    scores = [model.decision_function(np.array([features.transform(q.tokens, c.tokens) for c in q.candidates]))
              for q in questions if q.candidates]
    return model, scores


@pytest.mark.parametrize("normalize", [True, False])
def test_features_only_is_a_plain_logistic_regression_on_the_fixture(normalize):
    questions = read_trecqa_xml(FIXTURES / "trecqa" / "sample.xml")
    features = OverlapFeatures(normalize=normalize).fit(question_texts(questions))
    model = floors.fit_features_only(questions, features, C=0.5)
    direct, direct_scores = _direct_fit(questions, questions, features, C=0.5)
    np.testing.assert_allclose(model.coef_, direct.coef_, rtol=1e-10)
    np.testing.assert_allclose(model.intercept_, direct.intercept_, rtol=1e-10)
    scores = floors.features_only_scores(model, questions, features)
    assert [len(s) for s in scores] == [len(q.candidates) for q in questions]  # 41.3 has none: an empty array
    np.testing.assert_allclose(np.concatenate(scores), np.concatenate(direct_scores), rtol=1e-10)
    assert floors.choose_c(questions, questions, features) in floors.C_GRID


@pytest.fixture(scope="module")
def trecqa_test_and_train(real_data):
    from reproq.data import trecqa

    for split in ("train", "test"):
        real_data("trecqa", trecqa.XML_FILES[split])
    return trecqa.load_trecqa("test"), trecqa.load_trecqa("train")


def test_features_only_is_a_plain_logistic_regression_on_real_test(trecqa_test_and_train):
    test, train = trecqa_test_and_train
    features = OverlapFeatures().fit(question_texts(train, test))
    model = floors.fit_features_only(train, features)
    direct, direct_scores = _direct_fit(train, test, features)
    np.testing.assert_allclose(model.coef_, direct.coef_, rtol=1e-10)
    np.testing.assert_allclose(model.intercept_, direct.intercept_, rtol=1e-10)
    scores = floors.features_only_scores(model, test, features)
    np.testing.assert_allclose(np.concatenate(scores), np.concatenate(direct_scores), rtol=1e-10)
    assert ranking_scores(test, scores)["MAP"] > 0.6  # well above chance (~0.51)


def _chance_map(questions) -> float:
    """E[MAP] of a uniformly random ranking: a question with R positives of N has
    E[AP] = (H_N + (R - 1) / (N - 1) (N - H_N)) / N (H_N the harmonic number); 0 when R = 0."""
    expected = []
    for q in questions:
        n, r = len(q.candidates), q.n_positive
        h = sum(1 / k for k in range(1, n + 1))
        expected.append(0.0 if r == 0 else 1.0 if n == 1 else (h + (r - 1) / (n - 1) * (n - h)) / n)
    return float(np.mean(expected))


def test_a_constant_scorer_is_at_chance_on_real_test(trecqa_test_and_train):
    test, _ = trecqa_test_and_train
    scored = [q for q in test if q.candidates]
    chance = _chance_map(scored)
    assert chance == pytest.approx(0.507, abs=0.001)  # DESIGN "Ties leak labels": 0.507 over the 95 questions
    constant = [np.zeros(len(q.candidates)) for q in test]
    maps = [ranking_scores(test, constant, seed=seed)["MAP"] for seed in range(20)]
    assert np.mean(maps) == pytest.approx(chance, abs=0.015)  # per-seed sd ~0.018, so the mean of 20 ~0.004
    assert ranking_scores(test, floors.random_scores(test, seed=0))["MAP"] == pytest.approx(chance, abs=0.06)
    # The count floor ties a lot. Through random ties (seed 0) it gets 0.6822 over the 95 questions; with the ties
    # broken positives first, as the TrecQA file lists them, it would get 0.7749.
    counts = floors.overlap_count_scores(test)
    assert ranking_scores(test, counts)["MAP"] == pytest.approx(0.6822, abs=1e-4)
    leaky = [s + 1e-9 * q.labels for q, s in zip(test, counts)]  # the same counts, ties in file order
    assert ranking_scores(test, leaky)["MAP"] == pytest.approx(0.7749, abs=1e-4)


def test_chronological_scores_read_the_forum_order_from_the_ids():
    questions = read_semeval(FIXTURES / "semeval2016" / "subtaskA-sample.xml")
    assert [c.id for c in questions[0].candidates] != sorted(c.id for c in questions[0].candidates)  # shuffled
    scores = floors.chronological_scores(questions)
    for q, s in zip(questions, scores):
        in_order = [c.id for _, c in sorted(zip(-s, q.candidates), key=lambda pair: pair[0])]
        assert in_order == sorted(c.id for c in q.candidates)
    np.testing.assert_array_equal(scores[0], [-3, -1, -2])  # Q268_R16: C3, C1, C2 after the shuffle
    # Q268_R16's one Good comment is C3, third in forum order: AP 1/3; Q318_R6's two comments are both Good: AP 1
    assert ranking_scores(questions, scores)["MAP"] == pytest.approx((1 / 3 + 1) / 2)
    with pytest.raises(ValueError, match="q1-0"):
        floors.chronological_scores(HAND)


def test_random_scores_repeat_with_their_seed():
    a, b, c = (floors.random_scores(HAND, seed=s) for s in (1, 1, 2))
    assert [len(s) for s in a] == [3, 1]
    assert all(np.array_equal(x, y) for x, y in zip(a, b)) and not np.array_equal(a[0], c[0])


def test_a_floor_record_is_its_expectation_over_tie_orders_question_by_question():
    from reproq.answer_selection.evaluate import TIE_ORDERS
    from reproq.results import Provenance

    scores = floors.overlap_count_scores(HAND)  # q1 ties its positive with a negative (2, 2, 0)
    records = floors.floor_records(Provenance(code_version="test"), {"overlap count": scores}, HAND, seed=4,
                                   metrics=["MAP"], paper="tay2018", table="Table 6", dataset="trecqa", split="test")
    (record,) = records
    orders = [ranking_scores(HAND, scores, seed=4 + i, per_question=True) for i in range(TIE_ORDERS)]
    assert record.value == pytest.approx(np.mean([o["MAP"] for o in orders]))
    assert record.per_question == pytest.approx(np.mean([o["per_query"]["MAP"] for o in orders], axis=0), abs=1e-6)
    assert 0.5 < record.per_question[0] < 1 and record.per_question[1] == 1.0  # q1: AP 1 or 1/2; q2 untied
    assert record.seeds == () and record.method == "floor: overlap count"
    assert record.config["tie orders"] == TIE_ORDERS
    assert record.config["sd over tie orders"]["MAP"] == pytest.approx(np.std([o["MAP"] for o in orders], ddof=1))


def test_beside_records_are_the_floors_the_extra_scorers_and_the_anchor_with_its_own_provenance(monkeypatch):
    from reproq.baselines import anchor
    from reproq.results import Provenance

    provenance = Provenance(data={"trecqa/test": "abc"}, word_vectors="word2vec on trecqa", code_version="test")
    monkeypatch.setattr(anchor, "answer_scores", lambda model, questions: [np.arange(len(q.candidates))[::-1] * 1.0
                                                                           for q in questions])
    monkeypatch.setattr(anchor, "provenance", lambda: {"anchor": "weights 1.0"})
    keys = dict(paper="tay2018", table="Table 6", dataset="trecqa", split="test")
    texts = question_texts(HAND)
    extra = {"random": floors.random_scores(HAND)}
    records = floors.beside_records(HAND, HAND, texts, provenance, seed=4, metrics=["MAP"], extra=extra,
                                    anchor_model=object(), **keys)
    expected = floors.floor_records(provenance, floors.floor_scores(HAND, HAND, texts) | extra, HAND, seed=4,
                                    metrics=["MAP"], **keys)
    assert records[:len(expected)] == expected
    (anchored,) = records[len(expected):]
    assert anchored.method == anchor.METHOD and anchored.value == 1.0  # the positives come first in HAND
    assert anchored.data == {"trecqa/test": "abc", "anchor": "weights 1.0"}  # no word vectors: it has its own
    assert floors.beside_records(HAND, HAND, texts, provenance, seed=4, metrics=["MAP"], extra=extra,
                                 **keys) == expected  # no anchor model, no anchor row
