"""Vocabulary ids, vectors laid out on them, deterministic word2vec, and rcnn's IDF weights."""

from __future__ import annotations

import math

import numpy as np
import pytest

from reproq.data.vocab import (PAD_ID, UNK_ID, Vocabulary, embedding_matrix, idf_weights, text_fingerprint,
                               train_word2vec)


def test_ids_are_fixed_and_frequency_ordered():
    vocab = Vocabulary.build([["b", "a", "b"], ["c", "a", "b"], ["d"]], min_count=2)
    assert vocab.words == ("<pad>", "<unk>", "b", "a")
    assert (PAD_ID, UNK_ID) == (0, 1) and len(vocab) == 4
    assert vocab.encode(["a", "d", "b"]) == [3, 1, 2]
    assert vocab.encode(["a", "d", "b"], unknown="drop") == [3, 2]
    assert "a" in vocab and "d" not in vocab


def test_build_rejects_bad_arguments():
    with pytest.raises(ValueError, match="min_count"):
        Vocabulary.build([["a"]], min_count=0)
    with pytest.raises(ValueError, match="unknown"):
        Vocabulary(["a"]).encode(["a"], unknown="skip")


def test_reserved_words_are_not_duplicated():
    assert Vocabulary(["<pad>", "x", "x", "<unk>", "y"]).words == ("<pad>", "<unk>", "x", "y")


def test_embedding_matrix_places_vectors_by_word():
    vocab = Vocabulary(["a", "b", "c"])
    words, vectors = ["c", "zzz", "a"], np.array([[1, 1], [9, 9], [2, 3]], dtype=np.float32)
    m = embedding_matrix(vocab, words, vectors)
    assert m.dtype == np.float32 and m.shape == (5, 2)
    np.testing.assert_array_equal(m, [[0, 0], [0, 0], [2, 3], [0, 0], [1, 1]])


def test_random_oov_rows_are_seeded_and_leave_pad_and_unk_zero():
    vocab = Vocabulary(["a", "b", "c"])
    vectors = np.random.default_rng(0).normal(size=(1, 8)).astype(np.float32)
    one = embedding_matrix(vocab, ["a"], vectors, oov="random", seed=3)
    two = embedding_matrix(vocab, ["a"], vectors, oov="random", seed=3)
    np.testing.assert_array_equal(one, two)
    assert not one[:2].any() and one[3:].any()
    np.testing.assert_array_equal(one[2], vectors[0])
    assert not np.array_equal(one, embedding_matrix(vocab, ["a"], vectors, oov="random", seed=4))


def test_embedding_matrix_checks_shapes():
    with pytest.raises(ValueError, match="one vector per word"):
        embedding_matrix(Vocabulary(["a"]), ["a", "b"], np.zeros((1, 3)))
    with pytest.raises(ValueError, match="oov"):
        embedding_matrix(Vocabulary(["a"]), ["a"], np.zeros((1, 3)), oov="mean")


def test_word2vec_is_deterministic():
    sentences = [["ubuntu", "wifi", "driver", "broken"], ["wifi", "driver", "missing"], ["ubuntu", "boot", "fails"]] * 20
    words_a, vectors_a = train_word2vec(sentences, dim=8, seed=5, epochs=3)
    words_b, vectors_b = train_word2vec(sentences, dim=8, seed=5, epochs=3)
    assert words_a == words_b and sorted(words_a) == sorted({w for s in sentences for w in s})
    assert vectors_a.shape == (len(words_a), 8) and vectors_a.dtype == np.float32
    np.testing.assert_array_equal(vectors_a, vectors_b)
    assert not np.array_equal(vectors_a, train_word2vec(sentences, dim=8, seed=6, epochs=3)[1])


def test_text_fingerprint_counts_and_hashes():
    a = text_fingerprint([["a", "b"], ["c"]])
    assert (a["sentences"], a["tokens"]) == (2, 3)
    assert a["sha1"] != text_fingerprint([["a"], ["b", "c"]])["sha1"]


def test_idf_weights_match_a_hand_computation():
    # scikit-learn's smoothed idf over 3 documents: ln((1 + n) / (1 + df)) + 1; "a" and "?" are no features
    docs = ["a bb cc", "bb dd", "bb ?"]
    vocab = Vocabulary(["bb", "cc", "a", "?", "zz"])
    idf_bb, idf_cc, idf_dd = 1.0, math.log(4 / 2) + 1, math.log(4 / 2) + 1
    default = (idf_bb + idf_cc + idf_dd) / 3 / 4
    expected = [default, default, idf_bb, idf_cc, default, default, default]
    np.testing.assert_allclose(idf_weights(vocab, docs), expected, rtol=1e-6)
