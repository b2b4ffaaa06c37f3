"""Readers of the AskUbuntu / Android family: tiny fixtures, malformed lines, the real files, the loaders."""

from __future__ import annotations

import gzip
import re
import shutil
import urllib.error
import urllib.request
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from reproq.data import askubuntu, sources
from reproq import corpora
from reproq.corpora import SyntheticDataWarning, load_android, load_askubuntu
from reproq.data.askubuntu import (EvalQuery, Question, read_android_eval, read_corpus, read_eval, read_heldout,
                                   read_train, read_vectors)
from reproq.data.errors import FormatError, MissingDataError
from reproq.synthetic import SyntheticConfig

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
# small enough to generate in well under a second
SMALL = dict(n_questions=600, n_intents=120, n_train_queries=50, n_dev_queries=20, n_test_queries=20,
             n_heldout=20, n_concepts=100, n_filler=100, vector_dim=8)


def test_corpus_fixture_and_body_truncation(tmp_path):
    corpus = read_corpus(FIXTURES / "askubuntu/text_tokenized.txt")
    assert list(corpus) == ["9", "11", "12", "14", "15"]  # 13 has an empty title: left out, as Lei et al.
    body = "i have had significant problems with watching flash video in 64-bit ubuntu ."
    title = "how do i install adobe flash player ?"
    assert corpus["11"] == Question("11", tuple(title.split()), tuple(body.split()))
    assert corpus["12"].body == ()  # a line with only id and title
    assert read_corpus(FIXTURES / "askubuntu/text_tokenized.txt", max_body_len=3)["9"].body == (
        "update", "manager", "is")

    long = tmp_path / "long.txt.gz"  # also: gzip by suffix
    with gzip.open(long, "wt") as fh:
        fh.write("1\ta title\t" + " ".join(f"w{i}" for i in range(150)) + "\n")
    assert read_corpus(long)["1"].body == tuple(f"w{i}" for i in range(100))  # Lei et al. footnote 5
    assert len(read_corpus(long, max_body_len=None)["1"].body) == 150
    with pytest.raises(ValueError, match="max_body_len"):
        read_corpus(long, max_body_len=0)


def test_train_heldout_vectors_fixtures():
    train = read_train(FIXTURES / "askubuntu/train_random.txt")
    assert [(q.id, q.similar_ids, q.random_ids) for q in train] == [
        ("9", ("15",), ("11", "12", "14")), ("11", ("14", "12"), ("9", "15", "13"))]
    assert read_heldout(FIXTURES / "askubuntu/heldout.txt") == ["184795", "26114", "410927"]
    words, vectors = read_vectors(FIXTURES / "askubuntu/vector/vectors_pruned.200.txt")
    assert words == ["how", "ubuntu", "?"]
    assert vectors.dtype == np.float32 and vectors.shape == (3, 4)
    np.testing.assert_allclose(vectors[1], [-1.5, 2.0, 0.25, 0.001])


def test_eval_fixture_keeps_file_order_and_scores():
    dev = read_eval(FIXTURES / "askubuntu/dev.txt")
    assert dev[0] == EvalQuery("9", ("15",), ("15", "11", "14", "12"), (31.5, 20.25, 12.0, 9.875))
    assert dev[0].labels.tolist() == [1, 0, 0, 0]
    assert dev[1].similar_ids == () and dev[1].labels.tolist() == [0, 0, 0, 0]  # no positive: kept


def test_android_eval_fixture_groups_dedupes_and_shuffles():
    dev = read_android_eval(FIXTURES / "android/dev.pos.txt", FIXTURES / "android/dev.neg.txt")
    by_id = {q.id: q for q in dev}
    assert set(by_id) == {"40", "50"}
    assert by_id["40"].similar_ids == ("47",) and sorted(by_id["40"].candidate_ids) == ["47", "50", "51"]
    # 50-51 is in both files: kept once, as a positive
    assert by_id["50"].similar_ids == ("52", "51")
    assert sorted(by_id["50"].candidate_ids) == ["40", "47", "51", "52"]
    assert int(by_id["50"].labels.sum()) == 2 and by_id["40"].bm25_scores is None
    again = read_android_eval(FIXTURES / "android/dev.pos.txt", FIXTURES / "android/dev.neg.txt")
    assert again == dev  # the shuffle is seeded
    corpus = read_corpus(FIXTURES / "android/corpus.tsv")
    assert corpus["47"].title == ("root", "galaxy", "s3")


@pytest.mark.parametrize("reader, text, message", [
    (read_corpus, "1\ttitle\tbody\textra\n",
     ":1: expected 3 fields (id, title, body separated by tabs), found 4 fields"),
    (read_corpus, "1 2\ttitle\tbody\n", "one question id in the first field, found '1 2'"),
    (read_train, "1\t2 3 4\n", "expected 3 fields (query id, similar ids, random ids separated by tabs), found 2"),
    (read_eval, "1\t2\t" + " ".join(map(str, range(2, 22))) + "\t" + " ".join(["1.0"] * 19) + "\n",
     "expected one BM25 score per candidate (20 candidates), found 19 scores"),
    (read_eval, "1\t2\t2 3\t1.0 abc\n", "expected BM25 scores as numbers"),
    (read_eval, "1\t9\t2 3\t1.0 0.5\n",
     "expected similar ids among the candidates, found similar id 9 not among them"),
    (read_eval, "1\t2\t2 3\n", "expected 4 fields"),
    (read_heldout, "1\n2 3\n", ":2: expected one question id, found 2 fields"),
    (read_vectors, "a 1 2 3\nb 1 2\n", ":2: expected a word and 3 numbers, found 2 numbers"),
    (read_vectors, "a 1 2\nb 1 x\n", ":2: expected numbers after the word"),
    (read_vectors, "a\n", ":1: expected a word and some numbers, found 0 numbers"),
    (read_heldout, b"1\n\xff\xfe\n", ":2: expected UTF-8 text"),
])
def test_malformed_line_names_file_and_line(tmp_path, reader, text, message):
    path = tmp_path / "bad.txt"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(FormatError, match=re.escape(message)) as err:
        reader(path)
    assert str(err.value).startswith(str(path))


def test_malformed_android_pair(tmp_path):
    (tmp_path / "pos.txt").write_text("1 2\n")
    (tmp_path / "neg.txt").write_text("1 3\n1 4 5\n")
    with pytest.raises(FormatError, match=r"neg.txt:2: expected 2 fields \(query id and candidate id\), found 3"):
        read_android_eval(tmp_path / "pos.txt", tmp_path / "neg.txt")


@pytest.mark.parametrize("split, with_positive, positives", [("dev", 189, 1177), ("test", 186, 1078)])
def test_real_askubuntu_eval(real_data, split, with_positive, positives):
    queries = read_eval(real_data("askubuntu", f"{split}.txt"))
    assert len(queries) == 200 and {len(q.candidate_ids) for q in queries} == {20}
    assert sum(q.labels.sum() > 0 for q in queries) == with_positive  # DESIGN.md: 189 dev, 186 test
    assert sum(int(q.labels.sum()) for q in queries) == positives
    assert all(list(q.bm25_scores) == sorted(q.bm25_scores, reverse=True) for q in queries)
    # Lei et al. Table 1: 5.8 / 5.5 positives per query on average (over the queries with one)
    assert positives / with_positive == pytest.approx({"dev": 6.2, "test": 5.8}[split], abs=0.05)
    assert len(read_heldout(real_data("askubuntu", "heldout.txt"))) == 1989


# (queries, candidate pairs once deduplicated, positive pairs); the files hold 118,600 + 1,186 dev and
# 118,500 + 1,185 test lines, of which 6 + 3 dev and 5 + 4 test are repeats or in both files
@pytest.mark.parametrize("split, counts", [("dev", (1145, 119777, 1186)), ("test", (1148, 119676, 1185))])
def test_real_android_eval(real_data, split, counts):
    queries = read_android_eval(real_data("android", f"{split}.pos.txt"), real_data("android", f"{split}.neg.txt"))
    n_pairs, n_positive = sum(len(q.candidate_ids) for q in queries), sum(int(q.labels.sum()) for q in queries)
    assert (len(queries), n_pairs, n_positive) == counts
    assert all(q.labels.sum() > 0 for q in queries)
    # the files list positives first; after the shuffle they sit anywhere (mean relative position ~0.5)
    where = np.concatenate([np.flatnonzero(q.labels) / (len(q.labels) - 1) for q in queries])
    assert 0.45 < where.mean() < 0.55


@pytest.fixture
def offline(monkeypatch, tmp_path):
    """An empty data dir and no network: whatever is not in the mirror cannot be had."""
    def refuse(*args, **kwargs):
        raise urllib.error.URLError("offline in tests")
    monkeypatch.setattr(urllib.request, "urlopen", refuse)
    monkeypatch.setenv("REPROQ_DATA", str(tmp_path / "data"))


def test_auto_falls_back_to_synthetic_loudly(real_data, offline):
    real_data("askubuntu", "dev.txt")  # the mirror is there (skip otherwise), but it has no corpus
    assert not sources.available("askubuntu", "text_tokenized.txt.gz")
    config = SyntheticConfig(**SMALL)
    with pytest.warns(SyntheticDataWarning, match="NOT a reproduction") as caught:
        data = load_askubuntu("auto", synthetic_config=config)
    message = str(caught[0].message)
    assert "text_tokenized.txt.gz" in message and "reproq data fetch askubuntu" in message
    assert data.synthetic and len(data.corpus) == 600 and len(data.dev) == 20 and data.vectors[1].shape[1] == 8
    assert all(v.startswith("synthetic seed=0 config=") for v in data.provenance.values())
    assert set(data.provenance) == {f"askubuntu/{p}" for p in askubuntu.ASKUBUNTU_FILES.values()}


def test_real_source_raises_naming_the_fetch_command(offline):
    with pytest.raises(MissingDataError, match="reproq data fetch askubuntu"):
        load_askubuntu("real")
    with pytest.raises(MissingDataError, match="reproq data fetch android"):
        load_android("real")
    with pytest.raises(ValueError, match="source must be"):
        load_askubuntu("mirror")


def test_real_source_reads_every_file(monkeypatch, tmp_path):
    """With every file present and verified, "real" reads them all (a fake registry pins the fixtures)."""
    root = tmp_path / "data"
    shutil.copytree(FIXTURES / "askubuntu", root / "askubuntu")
    shutil.copy(root / "askubuntu/dev.txt", root / "askubuntu/test.txt")
    files = {field: path.removesuffix(".gz") for field, path in askubuntu.ASKUBUNTU_FILES.items()}
    monkeypatch.setattr(corpora, "ASKUBUNTU_FILES", files)
    monkeypatch.setattr(sources, "require", lambda dataset, path, root=None: root / dataset / path)
    monkeypatch.setattr(sources, "lookup", lambda dataset, path: SimpleNamespace(blob_sha1=f"sha-{path}"))
    data = load_askubuntu("real", root=root)
    assert not data.synthetic and data.source_dir == root / "askubuntu"
    assert len(data.corpus) == 5 and len(data.train) == 2 and len(data.dev) == 2 and data.test == data.dev
    assert data.provenance["askubuntu/dev.txt"] == "sha-dev.txt"


def test_synthetic_android_bundle_shape():
    data = load_android("synthetic", synthetic_config=SyntheticConfig(domain="android", **SMALL), real_pairs=False)
    assert data.synthetic and data.train is None and data.vectors is None and data.heldout == []
    assert len(data.dev) == 20 and all(q.bm25_scores is None for q in data.dev)
    with pytest.raises(ValueError, match="domain"):
        load_android("synthetic", synthetic_config=SyntheticConfig(**SMALL), real_pairs=False)


def test_the_android_stand_in_copies_the_real_pair_structure(real_data):
    """With the real pair files at hand, the synthetic corpus is written for exactly their ids, and they are the
    evaluation sets: 1,145 dev and 1,148 test queries (Smolyakov & Srikant Table 2), each with the real positives,
    which share the query's intent in the text (a TF-IDF cosine separates them from the negatives)."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    from reproq.metrics import auc_meter_score

    for split in ("dev", "test"):
        real_data("android", f"{split}.pos.txt"), real_data("android", f"{split}.neg.txt")
    data = load_android("synthetic", synthetic_config=SyntheticConfig(domain="android", **SMALL))
    real = {split: read_android_eval(sources.require("android", f"{split}.pos.txt"),
                                     sources.require("android", f"{split}.neg.txt")) for split in ("dev", "test")}
    assert (len(data.dev), len(data.test)) == (1145, 1148) and data.synthetic
    assert [(q.id, q.similar_ids, q.candidate_ids) for q in data.test] == \
        [(q.id, q.similar_ids, q.candidate_ids) for q in real["test"]]
    assert {i for q in data.dev + data.test for i in (q.id, *q.candidate_ids)} == set(data.corpus)
    assert data.provenance["android/test.pos.txt"] == sources.provenance("android", ["test.pos.txt"])[
        "android/test.pos.txt"] and "real pair files" in data.provenance["android/corpus.tsv.gz"]
    text = {i: " ".join(q.title + q.body) for i, q in data.corpus.items()}
    tfidf = TfidfVectorizer(token_pattern=r"\S+").fit(text.values())
    labels, scores = [], []
    for q in data.test[:200]:
        m = tfidf.transform([text[q.id]] + [text[c] for c in q.candidate_ids])
        labels.append(q.labels), scores.append((m[1:] @ m[0].T).toarray().ravel())
    assert auc_meter_score(np.concatenate(labels), np.concatenate(scores)) > 0.85  # measured: 0.94 (test, all)
