"""Every file the study writes goes through here: a reader finds the old file or the new one, never half of one.

The content is written to a scratch file beside the target (``.<name>.<pid>.tmp``) and renamed over it with
``os.replace``, which is atomic on one file system. A writer that raises leaves the target as it was; a process
killed mid-write leaves only a scratch file, which later writes of the same target clear away.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


def sha256(path: str | Path, *, prefix: bytes = b"") -> str:
    """The SHA-256 of ``prefix`` and a file's bytes, the file read a MiB at a time."""
    digest = hashlib.sha256(prefix)
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@contextlib.contextmanager
def updating(path: str | Path) -> Iterator[Path]:
    """Hold the lock of a file that several processes read, change and write back (``pipeline_cost.json``, a
    ``settings.json``), so that none loses another's change: an OS lock on ``.<name>.lock`` beside it, released by the
    kernel if its holder dies."""
    from filelock import FileLock

    path = unlinked(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(refuse_link(path.with_name(f".{path.name}.lock"))):
        yield path


def clear_stale_scratch(path: Path) -> None:
    """Remove scratch files of ``path`` left by processes that no longer run."""
    for scratch in path.parent.glob(f".{path.name}.*.tmp"):
        pid = scratch.name[len(path.name) + 2:-len(".tmp")]
        if not pid.isdigit() or not _alive(int(pid)):
            scratch.unlink(missing_ok=True)


def replace_atomically(path: str | Path, write: Callable[[Path], None], *, fsync: bool = False) -> Path:
    """``write(scratch)``, then rename the scratch file over ``path`` (``fsync`` first where a crash of the
    machine, not only of the process, must not lose it). Returns ``path``.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     target = Path(d) / "a.txt"
    ...     _ = replace_atomically(target, lambda p: p.write_text("new"))
    ...     print(target.read_text(), sorted(p.name for p in Path(d).iterdir()))
    new ['a.txt']
    """
    path = unlinked(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    clear_stale_scratch(path)
    scratch = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    scratch.unlink(missing_ok=True)  # a link planted at the scratch name goes, never written through
    try:
        write(scratch)
        if fsync:
            with open(scratch, "rb") as fh:
                os.fsync(fh.fileno())
        os.replace(scratch, path)
    except OSError as exc:
        if exc.filename is None and exc.errno is not None:  # a failed write (a full disk) names no file: this one
            raise OSError(exc.errno, exc.strerror, str(path)) from exc
        raise
    finally:
        scratch.unlink(missing_ok=True)
    return path


def _anchors() -> list[Path]:
    """The folders below which no link is followed: the committed study's (``results/``, ``figures/``, ``docs/``) and
    the build folder. Each may itself be a link (a build folder on another disk); what is inside them may not. The
    data folder is not one of them: a link to a shared copy of the data is a user's choice."""
    from reproq import paths

    return [Path(os.path.abspath(folder)) for folder in (paths.ROOT / "results", paths.ROOT / "figures",
                                                          paths.ROOT / "docs", paths.build_dir())]


def unlinked(path: str | Path, *, reading: bool = False) -> Path:
    """``path``, or ValueError in one line where a folder on its way inside the committed study's folders or the
    build folder (:func:`_anchors`) is a symbolic link (a write would land where the link points: a folder link in
    ``build/smoke/results`` made a smoke run rewrite committed files), or, ``reading``, where the file itself is a link
    (a planted ``settings.json`` was read and copied into what a run wrote) or is there but is not a regular file (a
    FIFO named ``x.jsonl`` hung every reader). A link at the name of a file written is replaced by the file
    (:func:`replace_atomically`)."""
    path = Path(os.path.abspath(path))
    anchor = max((a for a in _anchors() if path.is_relative_to(a)), key=lambda a: len(a.parts), default=None)
    if anchor is not None:
        step, parts = anchor, path.relative_to(anchor).parts
        for part in parts if reading else parts[:-1]:  # a link at a written file's own name is replaced, not followed
            step = step / part
            if step.is_symlink():
                raise ValueError(f"{step} is a symbolic link (to {os.readlink(step)}); reproq never reads or writes "
                                 "through one inside its folders: remove it and run again")
    if reading and path.exists() and not path.is_file():
        raise ValueError(f"{path} is not a regular file (a folder, a FIFO or a device); reproq reads only files: "
                         "remove it and run again")
    return path


def refuse_link(path: str | Path) -> Path:
    """``path``, or ValueError in one line where it is a symbolic link: a file this project writes in place (a lock,
    a log) is never written through a link planted at its name."""
    if Path(path).is_symlink():
        raise ValueError(f"{path} is a symbolic link (to {os.readlink(path)}); reproq never writes through one: "
                         "remove it and run again")
    return Path(path)


def open_for_appending(path: str | Path):
    """``path`` opened for writing text at its end (never truncated), refused (:func:`refuse_link`) where it is a
    link; for what is written as it goes (a log), which cannot be written whole and renamed."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0)
    try:
        return os.fdopen(os.open(refuse_link(path), flags, 0o644), "w")
    except OSError as exc:  # a link planted between the check and the open
        raise ValueError(f"{path}: {exc.strerror}; reproq never writes through a link: remove it and run again") from None


def write_text(path: str | Path, text: str) -> Path:
    return replace_atomically(path, lambda scratch: scratch.write_text(text))


def write_json(path: str | Path, obj) -> Path:
    """``obj`` as indented JSON (non-JSON values as ``str``), with a final newline."""
    return write_text(path, json.dumps(obj, indent=2, default=str) + "\n")


def read_json(path: str | Path, *, otherwise: str):
    """The JSON in ``path``, or None when it is missing or unreadable (torn by a writer that did not come through
    here, or edited by hand); an unreadable file is said in one warning naming it and what happens ``otherwise``."""
    path = unlinked(path, reading=True)
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        warnings.warn(f"{path}: unreadable ({exc}); {otherwise}", stacklevel=2)
        return None
