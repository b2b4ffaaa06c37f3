"""The four word-overlap features of Severyn & Moschitti 2015 (castor's definitions), by hand and on TrecQA."""

from __future__ import annotations

import doctest
import math

import numpy as np
import pytest

from reproq.baselines import overlap
from reproq.baselines.overlap import FEATURE_NAMES, NLTK_STOP_WORDS, OverlapFeatures, question_texts
from reproq.data.records import Candidate, QAQuestion


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
