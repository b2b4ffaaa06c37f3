"""The four word-overlap features of Severyn & Moschitti 2015 (castor's definitions) and their raw-count variant
(Yu et al. 2014), by hand and on TrecQA."""

from __future__ import annotations

import doctest
import math

import numpy as np
import pytest

from reproq.baselines import overlap
from reproq.baselines.overlap import (FEATURE_NAMES, NLTK_STOP_WORDS, RAW_FEATURE_NAMES, OverlapFeatures,
                                     question_texts)
from reproq.data.qa import Candidate, QAQuestion


def test_docstring_examples():
    result = doctest.testmod(overlap)
    assert result.attempted > 0 and result.failed == 0


def test_stop_word_list_is_nltks():
    assert len(NLTK_STOP_WORDS) == 179
    assert {"the", "of", "what", "who", "is", "don't", "wouldn't"} <= NLTK_STOP_WORDS
    assert not {"wicca", "worship", "?"} & NLTK_STOP_WORDS  # punctuation is not removed (castor keeps it)


def test_features_by_hand():
    texts = [["who", "founded", "wicca", "?"], ["gardner", "founded", "wicca", "."], ["wicca", "is", "old", "."],
             ["who", "is", "he", "?"], ["who", "founded", "wicca", "?"]]  # the duplicate counts once: N = 4
    feats = OverlapFeatures().fit(texts)
    assert feats.n_texts_ == 4
    idf = {w: math.log(4 / (1 + n)) for w, n in {"founded": 2, "wicca": 3, "?": 2, ".": 2, "who": 2}.items()}
    values = feats.transform(["Who", "founded", "Wicca", "?"], ["Gardner", "founded", "Wicca", "."])
    # all words: Q = {who, founded, wicca, ?}, A = {gardner, founded, wicca, .}, |Q| + |A| = 8
    # without stop words ("who"): |Q| + |A| = 3 + 4 = 7
    expected = [2 / 8, (idf["founded"] + idf["wicca"]) / 8, 2 / 7, (idf["founded"] + idf["wicca"]) / 7]
    np.testing.assert_allclose(values, expected)
    assert feats.transform(["the"], ["a"]).tolist() == [0.0, 0.0, 0.0, 0.0]  # nothing left: no division by 0


# A pair where a stop word ("the") is shared, so every one of the four columns differs. The IDF texts are the
# pair and four more, all distinct: N = 6. n_w: founded 2 (q, a), the 3 (q, a, "the cat"), wicca 3 (q, a,
# "wicca is old"), so idf(founded) = ln(6/3) = ln 2 and idf(the) = idf(wicca) = ln(6/4) = ln 1.5.
# All words:     Q = {who, founded, the, wicca, ?}, A = {gardner, founded, the, wicca, movement}
#                Q ∩ A = {founded, the, wicca}: count 3, idf sum ln 2 + 2 ln 1.5 = ln 4.5, |Q| + |A| = 10
# No stop words: Q = {founded, wicca, ?}, A = {gardner, founded, wicca, movement} ("who", "the" are stop words)
#                Q ∩ A = {founded, wicca}: count 2, idf sum ln 2 + ln 1.5 = ln 3, |Q| + |A| = 3 + 4 = 7
PAIR_Q = ["Who", "founded", "the", "Wicca", "?"]
PAIR_A = ["Gardner", "founded", "the", "Wicca", "movement"]
PAIR_TEXTS = [PAIR_Q, PAIR_A, ["wicca", "is", "old"], ["the", "cat"], ["a", "dog"], ["birds"]]


def test_raw_counts_by_hand():
    feats = OverlapFeatures(normalize=False).fit(PAIR_TEXTS)
    assert feats.feature_names == RAW_FEATURE_NAMES
    # [3, ln 4.5, 2, ln 3] = [3, 0.6931 + 2 * 0.4055, 2, 0.6931 + 0.4055]
    np.testing.assert_allclose(feats.transform(PAIR_Q, PAIR_A), [3, 1.5040774, 2, 1.0986123], rtol=1e-7)
    assert feats.transform(["the"], ["a"]).tolist() == [0.0, 0.0, 0.0, 0.0]


def test_normalised_features_by_hand_on_the_same_pair():
    feats = OverlapFeatures().fit(PAIR_TEXTS)
    assert feats.feature_names == FEATURE_NAMES
    # [3 / 10, ln 4.5 / 10, 2 / 7, ln 3 / 7] = [0.3, 1.5040774 / 10, 0.2857143, 1.0986123 / 7]
    np.testing.assert_allclose(feats.transform(PAIR_Q, PAIR_A), [0.3, 0.15040774, 0.28571429, 0.15694461],
                               rtol=1e-7)


def test_the_variants_differ_only_by_the_denominator(real_data):
    from reproq.data import trecqa

    real_data("trecqa", trecqa.XML_FILES["dev"])
    dev = trecqa.load_trecqa("dev")
    texts = question_texts(dev)
    normalised = np.concatenate(OverlapFeatures().fit(texts).transform_questions(dev))
    raw = np.concatenate(OverlapFeatures(normalize=False).fit(texts).transform_questions(dev))
    sizes = np.array([[len({w.lower() for w in q.tokens}) + len({w.lower() for w in c.tokens})]
                      for q in dev for c in q.candidates], dtype=np.float64)
    np.testing.assert_allclose(normalised[:, :2] * sizes, raw[:, :2], rtol=1e-12)
    assert (raw[:, 0] == np.round(raw[:, 0])).all() and raw[:, 0].max() > 1  # counts, not fractions


def test_unfitted_raises():
    with pytest.raises(ValueError, match="not fitted"):
        OverlapFeatures().transform(["a"], ["a"])


def test_on_real_trecqa_positives_overlap_more(real_data):
    from reproq.data import trecqa

    real_data("trecqa", trecqa.XML_FILES["test"])
    test = trecqa.load_trecqa("test")
    feats = OverlapFeatures().fit(question_texts(test))
    per_question = feats.transform_questions(test)
    assert [f.shape for f in per_question] == [(len(q.candidates), len(FEATURE_NAMES)) for q in test]
    pairs = np.concatenate(per_question)
    labels = np.concatenate([q.labels for q in test])
    assert pairs.shape == (1517, 4) and np.isfinite(pairs).all()
    assert (pairs[labels == 1].mean(0) > pairs[labels == 0].mean(0)).all()  # every feature separates, on average


def test_question_texts_lists_every_text():
    q = QAQuestion("1", ("a",), (Candidate("1-0", ("b",), 1), Candidate("1-1", ("c",), 0)))
    assert question_texts([q], [q]) == [("a",), ("b",), ("c",)] * 2
