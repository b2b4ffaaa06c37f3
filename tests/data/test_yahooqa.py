"""YahooQA reader on a tiny env.pkl built here in the upstream structure, pickled the way Python 2 wrote it."""

from __future__ import annotations

import pickle
import struct
import zipfile

import pytest

from reproq.data.errors import FormatError
from reproq.data.yahooqa import load_yahooqa, read_yahooqa


def py2_pickle(obj) -> bytes:
    """Protocol 2 with Python 2 ``str`` opcodes (SHORT_BINSTRING / BINSTRING: bytes, no encoding), the way the
    upstream env.pkl was written, so the reader meets what it will meet."""
    def dump(o) -> bytes:
        if isinstance(o, str):
            raw = o.encode("utf-8")
            return (b"U" + bytes([len(raw)]) if len(raw) < 256 else b"T" + struct.pack("<i", len(raw))) + raw
        if isinstance(o, int):
            return b"K" + bytes([o])
        if isinstance(o, list):
            return b"](" + b"".join(dump(x) for x in o) + b"e"
        if isinstance(o, dict):
            return b"}(" + b"".join(dump(k) + dump(v) for k, v in o.items()) + b"u"
        raise TypeError(type(o))
    return b"\x80\x02" + dump(obj) + b"."


ENV = {
    "train": {"how do i fix my car ?": [["take it to a mechanic", 1], ["i like pie", 0], ["café au lait", 0]],
              "what is a qrnn": [["a quasi recurrent network", 1], ["no idea", 0]]},
    "dev": {"why is the sky blue": [["rayleigh scattering", 1], ["because", 0]]},
    "test": {"who wrote hamlet": [["shakespeare did", 1], ["a dog", 0], ["nobody", 0]]},
}


@pytest.fixture
def archive(tmp_path):
    path = tmp_path / "env.pkl.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("env.pkl", py2_pickle(ENV))
    return path


def test_reads_every_split_from_the_zip(archive):
    splits = read_yahooqa(archive)
    assert sorted(splits) == ["dev", "test", "train"]
    train = splits["train"]
    assert [q.id for q in train] == ["train-0", "train-1"]
    assert train[0].tokens == ("how", "do", "i", "fix", "my", "car", "?")
    texts = {c.tokens: c.label for c in train[0].candidates}
    assert texts == {("take", "it", "to", "a", "mechanic"): 1, ("i", "like", "pie"): 0, ("café", "au", "lait"): 0}
    assert [c.id for c in train[0].candidates] == ["train-0-0", "train-0-1", "train-0-2"]
    assert [q.n_positive for q in splits["test"]] == [1]


def test_reads_a_bare_pickle_too(tmp_path):
    path = tmp_path / "env.pkl"
    path.write_bytes(pickle.dumps(ENV, protocol=2))  # a Python 3 pickle of the same structure
    assert len(read_yahooqa(path)["dev"][0].candidates) == 2


@pytest.mark.parametrize("env, message", [
    ({"train": {}, "dev": {}}, "splits train, dev, test"),
    ({**ENV, "dev": {"q": [["a", 2]]}}, "0 or 1"),
    ({**ENV, "dev": {"q": "not a list"}}, "list of"),
    ({**ENV, "dev": []}, "as a dict"),
])
def test_malformed_content_names_the_problem(tmp_path, env, message):
    path = tmp_path / "env.pkl"
    path.write_bytes(pickle.dumps(env))
    with pytest.raises(FormatError, match=message):
        read_yahooqa(path)


def test_a_zip_without_env_pkl_or_garbage_is_a_format_error(tmp_path):
    wrong = tmp_path / "wrong.zip"
    with zipfile.ZipFile(wrong, "w") as zf:
        zf.writestr("other.txt", "x")
    with pytest.raises(FormatError, match="env.pkl"):
        read_yahooqa(wrong)
    garbage = tmp_path / "garbage.pkl"
    garbage.write_bytes(b"\x80\x02not a pickle")
    with pytest.raises(FormatError):
        read_yahooqa(garbage)


def test_unknown_split():
    with pytest.raises(ValueError, match="unknown YahooQA split"):
        load_yahooqa("valid")


class _Calls:
    """Pickles to a call of ``os.makedirs`` — what a crafted env.pkl could do with ``os.system``."""

    def __init__(self, target):
        self.target = str(target)

    def __reduce__(self):
        import os
        return os.makedirs, (self.target,)


def test_a_pickle_that_would_call_a_function_is_refused(tmp_path):
    witness = tmp_path / "created-by-the-pickle"
    path = tmp_path / "env.pkl"
    path.write_bytes(pickle.dumps({"train": _Calls(witness), "dev": {}, "test": {}}, protocol=2))
    with pytest.raises(FormatError, match=r"env.pkl:1: .*refers to (posix|os)\.makedirs"):
        read_yahooqa(path)
    assert not witness.exists()  # refused before anything ran
