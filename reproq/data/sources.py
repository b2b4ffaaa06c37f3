"""Fetch, verify and locate the study's data files.

A file is usable only once its git blob SHA-1 (``sha1(b"blob <size>\\0" + content)``, what ``git
hash-object`` prints) matches the registry. Downloads go to a temporary file beside the target and are
renamed into place only after they verify, so an interrupted or corrupted download never leaves behind a
file that passes for complete; a corrupt local copy stays where it is (never read: :func:`require` refuses it)
until a verified download replaces it. Sources are tried in order: the mirror (``REPROQ_DATA_MIRROR``, a folder
or URL laid out ``<dataset>/<path>``), then GitHub at the pinned commit. A file without a pinned hash is never
downloaded: whatever a server sent would be trusted; a user who has it puts it in place by hand.
"""

from __future__ import annotations

import hashlib
import os
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from tqdm.auto import tqdm

from reproq import paths
from reproq.atomic import replace_atomically
from reproq.data.errors import DataError, MissingDataError
from reproq.data.registry import DATASETS, DataFile, files_of, lookup

CHUNK = 1 << 20
PROGRESS_MIN_BYTES = 4 << 20  # show a progress bar only for files this large
TIMEOUT_S = 60

# (path, size, mtime_ns) -> blob sha1: a file is hashed once per process unless it changes.
_HASH_CACHE: dict[tuple[str, int, int], str] = {}


def git_blob_sha1(path: str | Path) -> str:
    """The git blob SHA-1 of a file, as ``git hash-object`` computes it.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = Path(d) / "hello"; _ = p.write_bytes(b"hello\\n")
    ...     git_blob_sha1(p)
    'ce013625030ba8dba906f756967f9e9ca394464a'
    """
    path = Path(path)
    stat = path.stat()
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    if key not in _HASH_CACHE:
        digest = hashlib.sha1(b"blob %d\0" % stat.st_size)
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(CHUNK), b""):
                digest.update(chunk)
        _HASH_CACHE[key] = digest.hexdigest()
    return _HASH_CACHE[key]


def local_path(f: DataFile, root: Path | None = None) -> Path:
    return (root or paths.data_dir()) / f.dataset / f.path


def state(f: DataFile, root: Path | None = None) -> str:
    """``verified`` | ``missing`` | ``corrupt`` | ``unverified`` (present, but no pinned hash to check)."""
    path = local_path(f, root)
    if not path.is_file():
        return "missing"
    if f.blob_sha1 is None:
        return "unverified"
    return "verified" if git_blob_sha1(path) == f.blob_sha1 else "corrupt"


def fetch_command(dataset: str) -> str:
    return f"reproq data fetch {dataset}"


@dataclass(frozen=True)
class FetchResult:
    file: DataFile
    state: str  # verified | unverified | failed
    source: str  # where it came from ("already here" when nothing was downloaded)
    message: str = ""  # why it failed, for one file (what MissingDataError says)
    causes: tuple[str, ...] = ()  # why it failed, per source, without the file's name: files that share causes


def _open_source(source: str) -> tuple[BinaryIO, int | None]:
    """Open a local path or a URL for reading; returns the stream and its length when known."""
    if "://" not in source:
        if not os.path.isfile(source):
            raise FileNotFoundError(f"no such file {source}")
        return open(source, "rb"), os.path.getsize(source)
    response = urllib.request.urlopen(source, timeout=TIMEOUT_S)  # noqa: S310 (URLs come from the registry)
    length = response.headers.get("Content-Length")
    return response, int(length) if length else None


def _sources(f: DataFile, mirror: str | None) -> list[str]:
    found = []
    if mirror:
        found.append(mirror.rstrip("/") + "/" + urllib.parse.quote(f.key) if "://" in mirror
                     else str(Path(mirror) / f.key))
    found.append(f.url)
    return found


def _download(source: str, f: DataFile, target: Path, progress: bool) -> None:
    """Copy ``source`` to ``target`` atomically, renamed into place only once its hash matches."""
    def write(scratch: Path) -> None:
        stream, length = _open_source(source)
        with stream, open(scratch, "wb") as out, tqdm(
            total=length or f.size, unit="B", unit_scale=True, desc=f.key, leave=False,
            disable=not progress or (length or f.size or 0) < PROGRESS_MIN_BYTES,
        ) as bar:
            copied = 0
            for chunk in iter(lambda: stream.read(CHUNK), b""):
                copied += len(chunk)
                if f.size is not None and copied > f.size:  # never more than the registry's size is copied
                    raise DataError(f"is larger than the registry's {f.size:,} bytes (a different file, or endless); "
                                    f"stopped at {copied:,} bytes and discarded")
                out.write(chunk)
                bar.update(len(chunk))
        if (got := git_blob_sha1(scratch)) != f.blob_sha1:
            raise DataError(f"has git blob SHA-1 {got}, expected {f.blob_sha1} (truncated or a different "
                            "version); it was discarded")

    replace_atomically(target, write)


def _source_name(source: str, mirror: str | None) -> str:
    return "the mirror" if mirror and source.startswith(mirror.rstrip("/")) else "GitHub"


def fetch_file(f: DataFile, *, root: Path | None = None, mirror: str | None = None,
               force: bool = False, progress: bool = True) -> FetchResult:
    """Make ``f`` present and verified under ``root``; never raises for an unreachable file."""
    target = local_path(f, root)
    mirror = mirror if mirror is not None else paths.data_mirror()
    current = state(f, root)
    if current == "unverified" or (current == "verified" and not force):
        return FetchResult(f, current, "already here")
    if f.blob_sha1 is None:
        cause = "no pinned hash, so it is not downloaded (what a server sent would be trusted unchecked)"
        return FetchResult(f, "failed", "", f"{f.key} ({f.note}) has {cause}; if you have it, put your copy at "
                           f"{target} (upstream: {f.url}).", (cause,))
    failures, causes = [], []
    for source in _sources(f, mirror):
        try:
            _download(source, f, target, progress)  # a corrupt copy is replaced only by a verified one
        except (OSError, urllib.error.URLError, DataError) as exc:
            reason = str(getattr(exc, "reason", None) or exc).replace(source, "").strip(" :")
            failures.append(f"{source}: {reason}")
            causes.append(f"{_source_name(source, mirror)}: {reason.replace(f.key, '<file>')}")
            continue
        return FetchResult(f, "verified", source)
    message = (f"{f.key} ({f.note}) could not be fetched; tried " + "; ".join(failures)
               + f". Retry with `{fetch_command(f.dataset)}`"
               + ("" if mirror else " or set REPROQ_DATA_MIRROR to a mirror") + ".")
    return FetchResult(f, "failed", "", message, tuple(causes))


def fetch(dataset: str, *, root: Path | None = None, mirror: str | None = None, force: bool = False,
          progress: bool = True) -> list[FetchResult]:
    """Fetch every registered file of ``dataset``; the results say which are missing and why."""
    return [fetch_file(f, root=root, mirror=mirror, force=force, progress=progress)
            for f in files_of(dataset)]


def require(dataset: str, path: str, *, root: Path | None = None, download: bool = True) -> Path:
    """The verified local copy of ``<dataset>/<path>``, fetched first if needed.

    Raises :class:`MissingDataError` naming the file, where it comes from and the command to retry.
    """
    f = lookup(dataset, path)
    if state(f, root) in ("verified", "unverified"):
        return local_path(f, root)
    if download:
        result = fetch_file(f, root=root)
        if result.state != "failed":
            return local_path(f, root)
        raise MissingDataError(result.message)
    raise MissingDataError(f"{f.key} ({f.note}) is not in {root or paths.data_dir()}; "
                           f"get it with `{fetch_command(dataset)}` (from {f.url}).")


def available(dataset: str, path: str, *, root: Path | None = None, download: bool = True) -> bool:
    """Whether ``<dataset>/<path>`` is (or can be made) present and verified; never raises."""
    try:
        require(dataset, path, root=root, download=download)
    except MissingDataError:
        return False
    return True


def status(datasets: list[str] | None = None, root: Path | None = None) -> list[tuple[str, str, str]]:
    """``(dataset, path, state)`` for every registered file, states as :func:`state`."""
    return [(f.dataset, f.path, state(f, root)) for d in (datasets or DATASETS) for f in files_of(d)]



def provenance(dataset: str, paths_in_dataset: list[str]) -> dict[str, str]:
    """``{"<dataset>/<path>": git blob SHA-1}`` of the files a result was computed from."""
    return {f"{dataset}/{p}": lookup(dataset, p).blob_sha1 or "unverified" for p in paths_in_dataset}
