"""Downloads land verified and atomically; bad copies are rejected and fetched again."""

from __future__ import annotations

import hashlib
import io
import re
import subprocess

import pytest

from reproq.data import registry, sources
from reproq.data.errors import MissingDataError
from reproq.data.registry import DataFile

CONTENT = b"421122\t502523 178532\t502523 178532 372151\t1.0 0.5 0.25\n" * 200


def blob(content: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()


@pytest.fixture
def entry() -> DataFile:
    return DataFile("toyset", "someone/toyset", "0" * 40, "sub/dev.txt", blob(CONTENT), len(CONTENT), "toy file")


@pytest.fixture
def mirror(tmp_path, entry):
    root = tmp_path / "mirror"
    (root / entry.dataset / "sub").mkdir(parents=True)
    (root / entry.key).write_bytes(CONTENT)
    return root


def leftovers(root):
    return [p for p in root.rglob("*") if ".part-" in p.name or p.name.endswith(".tmp")]


def test_git_blob_sha1_matches_git(tmp_path):
    path = tmp_path / "f.txt"
    path.write_bytes(CONTENT)
    expected = subprocess.run(["git", "hash-object", str(path)], capture_output=True, text=True).stdout.strip()
    assert sources.git_blob_sha1(path) == expected == blob(CONTENT)


def test_registry_rows_are_pinned_and_unique():
    keys = [f.key for f in registry.FILES]
    assert len(keys) == len(set(keys))
    for f in registry.FILES:
        assert f.blob_sha1 is None or re.fullmatch(r"[0-9a-f]{40}", f.blob_sha1), f
        assert f.url.startswith("https://raw.githubusercontent.com/")
    assert registry.lookup("askubuntu", "dev.txt").size == 74744
    assert registry.lookup("yahooqa", "data/env.pkl.zip").blob_sha1 is None  # known but unverified


def test_fetch_from_folder_mirror_verifies(tmp_path, entry, mirror):
    root = tmp_path / "data"
    result = sources.fetch_file(entry, root=root, mirror=str(mirror))
    assert result.state == "verified" and result.source.startswith(str(mirror))
    assert (root / entry.key).read_bytes() == CONTENT
    assert sources.fetch_file(entry, root=root, mirror=str(mirror)).source == "already here"


def test_fetch_from_url_mirror(tmp_path, entry, mirror):
    result = sources.fetch_file(entry, root=tmp_path / "data", mirror=mirror.as_uri())
    assert result.state == "verified"


def test_corrupt_local_copy_is_fetched_again(tmp_path, entry, mirror):
    root = tmp_path / "data"
    (root / entry.key).parent.mkdir(parents=True)
    (root / entry.key).write_bytes(CONTENT[:-7] + b"garbage")
    assert sources.state(entry, root) == "corrupt"
    assert sources.fetch_file(entry, root=root, mirror=str(mirror)).state == "verified"
    assert sources.state(entry, root) == "verified"


def test_truncated_source_is_rejected_and_leaves_nothing(tmp_path, entry, mirror):
    (mirror / entry.key).write_bytes(CONTENT[: len(CONTENT) // 2])
    root = tmp_path / "data"
    result = sources.fetch_file(entry, root=root, mirror=str(mirror))
    assert result.state == "failed"
    assert "git blob SHA-1" in result.message and "reproq data fetch toyset" in result.message
    assert not (root / entry.key).exists() and not leftovers(root)


def test_a_download_stops_at_the_registrys_size(tmp_path, entry, monkeypatch):
    """Issue 55: 1.07 GB were copied for a 610 KB file before the hash check said no."""
    class Endless(io.RawIOBase):
        served = 0

        def read(self, size=-1):
            Endless.served += size
            return b"x" * size

    monkeypatch.setattr(sources, "_open_source", lambda source: (Endless(), None))
    root = tmp_path / "data"
    result = sources.fetch_file(entry, root=root, mirror=str(tmp_path))
    assert result.state == "failed" and "larger than the registry's" in result.message
    assert Endless.served <= len(CONTENT) + 2 * sources.CHUNK and not (root / entry.key).exists()
    assert not leftovers(root)


@pytest.mark.parametrize("interruption", [OSError("connection reset"), KeyboardInterrupt()])
def test_interrupted_download_leaves_nothing_that_passes_for_complete(tmp_path, entry, monkeypatch,
                                                                      interruption):
    class Dropping(io.BytesIO):
        def read(self, size=-1):
            if self.tell() > 0:
                raise interruption
            return super().read(100)

    monkeypatch.setattr(sources, "_open_source", lambda source: (Dropping(CONTENT), len(CONTENT)))
    root = tmp_path / "data"
    if isinstance(interruption, KeyboardInterrupt):
        with pytest.raises(KeyboardInterrupt):
            sources.fetch_file(entry, root=root, mirror="unused")
    else:
        assert sources.fetch_file(entry, root=root, mirror="unused").state == "failed"
    assert not (root / entry.key).exists() and not leftovers(root)
    assert sources.state(entry, root) == "missing"


def test_missing_data_names_the_fetch_command(tmp_path):
    with pytest.raises(MissingDataError, match=r"reproq data fetch askubuntu"):
        sources.require("askubuntu", "text_tokenized.txt.gz", root=tmp_path, download=False)
    assert not sources.available("askubuntu", "text_tokenized.txt.gz", root=tmp_path, download=False)


def test_unreachable_file_message_names_dataset_file_and_origin(tmp_path, entry, monkeypatch):
    monkeypatch.delenv("REPROQ_DATA_MIRROR", raising=False)
    monkeypatch.setattr(sources, "_open_source", lambda s: (_ for _ in ()).throw(OSError("no route")))
    result = sources.fetch_file(entry, root=tmp_path, mirror=None)
    assert result.state == "failed"
    assert entry.key in result.message and entry.url in result.message and "toy file" in result.message
    assert "REPROQ_DATA_MIRROR" in result.message


def test_real_mirror_file_verifies(real_data):
    path = real_data("askubuntu", "dev.txt")
    assert sources.git_blob_sha1(path) == registry.lookup("askubuntu", "dev.txt").blob_sha1


def test_a_corrupt_copy_stays_until_a_verified_one_replaces_it(tmp_path, entry):
    root = tmp_path / "data"
    (root / entry.key).parent.mkdir(parents=True)
    (root / entry.key).write_bytes(b"an old, damaged copy")
    result = sources.fetch_file(entry, root=root, mirror=str(tmp_path / "empty-mirror"))
    assert result.state == "failed" and (root / entry.key).read_bytes() == b"an old, damaged copy"
    assert sources.state(entry, root) == "corrupt"  # and require() hands only verified files to readers


def test_scratch_files_of_dead_downloads_are_cleared(tmp_path, entry, mirror):
    root = tmp_path / "data"
    (root / entry.key).parent.mkdir(parents=True)
    dead = root / entry.dataset / "sub" / ".dev.txt.999999999.tmp"  # no process has that id
    dead.write_bytes(CONTENT[:10])
    assert sources.fetch_file(entry, root=root, mirror=str(mirror)).state == "verified"
    assert not dead.exists() and not leftovers(root)


def test_a_file_without_a_pinned_hash_is_never_downloaded(tmp_path, entry, mirror):
    unpinned = DataFile(entry.dataset, entry.repo, "master", entry.path, None, None, "toy file, no hash")
    root = tmp_path / "data"
    result = sources.fetch_file(unpinned, root=root, mirror=str(mirror))  # the mirror has it: still not fetched
    assert result.state == "failed" and "no pinned hash" in result.message and not (root / entry.key).exists()
    (root / entry.key).parent.mkdir(parents=True)
    (root / entry.key).write_bytes(CONTENT)  # a copy the user put there is theirs to trust
    assert sources.fetch_file(unpinned, root=root, mirror=str(mirror)).state == "unverified"


@pytest.mark.parametrize("path", ["../../etc/passwd", "/etc/passwd", "a/../../b", ""])
def test_registry_paths_stay_inside_the_data_folder(path):
    with pytest.raises(ValueError, match="inside its dataset's folder"):
        DataFile("toyset", "someone/toyset", "0" * 40, path, None, None, "escapes")
