"""Checkpoints written atomically: a reader finds the previous complete file or the new one, never half of one.

A checkpoint is one ``torch.save`` dict (model and optimizer state, generator states, epoch, history,
best state, the caller's fingerprint of its settings) at ``<dir>/last.pt``, and beside it ``last.pt.sha256``: the
digest of its bytes and of its folder's name (the run's key), written with it, and the retraining batch that wrote
it (:mod:`reproq.train.retrain`). A checkpoint is resumed only with its
digest: one replaced in its folder, or copied there from another run's (with or without its digest), is set aside
and the run trains from its start. This catches a swapped or stray file, not a forger who recomputes the digest:
only training again proves a number.
"""

from __future__ import annotations

import functools
import hashlib
import json
import pickle
import warnings
from dataclasses import asdict, dataclass, is_dataclass
from pathlib import Path

import torch

from reproq import atomic, imports
from reproq.atomic import replace_atomically, sha256, write_text
from reproq.train import retrain

FILE = "last.pt"
DIGEST = f"{FILE}.sha256"  # written with each checkpoint: what binds it to its run


def save(directory: str | Path, payload: dict) -> Path:
    """Write ``payload`` to ``directory/last.pt`` atomically, synced to disk before the rename, then its digest."""
    return seal(replace_atomically(Path(directory) / FILE, lambda scratch: torch.save(payload, scratch), fsync=True))


def seal(path: Path) -> Path:
    """Write the checkpoint ``path``'s digest file: its :func:`bound_digest` and the retraining batch writing it."""
    write_text(path.with_name(DIGEST), json.dumps({"sha256": bound_digest(path), "batch": retrain.current()}) + "\n")
    return path


def bound_digest(path: Path) -> str:
    """The SHA-256 of the checkpoint folder's name (the run's key) and of the file's bytes: the same bytes in another
    run's folder have another digest."""
    return sha256(path, prefix=path.parent.name.encode() + b"\0")


def set_aside(directory: str | Path, suffix: str) -> Path:
    """Move ``directory/last.pt`` to ``last.pt.<suffix>`` (its digest with it) so that the run trains from its start."""
    path = Path(directory) / FILE
    aside = path.replace(path.with_name(f"{FILE}.{suffix}"))
    if path.with_name(DIGEST).is_file():
        path.with_name(DIGEST).replace(path.with_name(f"{DIGEST}.{suffix}"))
    return aside


def load(directory: str | Path) -> dict | None:
    """The last checkpoint in ``directory``, or None when there is none. A file without the digest written with it, or
    whose digest differs (cut short, replaced, copied from another run's folder), is never read: it is set aside as
    ``last.pt.untrusted`` with one warning line, and the run trains from its start. Read with ``weights_only=True``:
    tensors and plain values only, so a file that would build any other object (a poisoned cache) is refused, never
    run. One that cannot be read all the same is set aside as ``last.pt.damaged``, as above."""
    path = Path(directory) / FILE
    if not path.is_file():
        return None
    written = atomic.read_json(path.with_name(DIGEST), otherwise="the checkpoint is not resumed") \
        if path.with_name(DIGEST).is_file() else None
    if not retrain.reusable((written or {}).get("batch")):  # `reproq run --retrain`: written before this batch
        return None
    if (written or {}).get("sha256") != bound_digest(path):
        aside = set_aside(directory, "untrusted")
        why = "no digest was written with it" if written is None else "cut short, replaced or copied from another run"
        warnings.warn(f"{path}: not the checkpoint this run wrote ({why}); set aside as {aside.name}, the run trains "
                      "from its start", RuntimeWarning, stacklevel=2)
        return None
    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as exc:
        raise ValueError(f"{path}: refused, it holds more than tensors and plain values ({_first_line(exc)}); "
                         "delete it and the run trains again") from None
    except (RuntimeError, EOFError, OSError) as exc:  # torch's zip reader says RuntimeError for a damaged archive
        damaged = set_aside(directory, "damaged")
        warnings.warn(f"{path} could not be read ({_first_line(exc)}); set aside as {damaged.name}, the run "
                      "trains again from the start", RuntimeWarning, stacklevel=2)
        return None


def _first_line(exc: BaseException) -> str:
    """An exception's first line, or its type's name where it has no message (torch's EOFError on a 0-byte file)."""
    return (str(exc).splitlines() or [type(exc).__name__])[0]


@dataclass(frozen=True)
class Code:
    """The code a run's numbers depend on: the modules ``entries`` (its training routine, its model's family) reach
    through reproq's imports (:func:`reproq.imports.reached`), not following an import of ``not_followed`` (the
    other encoder families: a run of the QRNN is not bound to the RCNN's file). Not reached, so never in a key: the
    papers' configurations and readings, the profiles, figures, report, runner and command line (a run's
    configuration is a part of its key by value)."""

    entries: tuple[str, ...]
    not_followed: frozenset[str] = frozenset()

    def files(self) -> list[Path]:
        """The source files of the modules reached, with a C++ source beside one (the RCNN's kernel)."""
        found = imports.module_files()
        modules = imports.reached(imports.package_graph(), self.entries, not_followed=self.not_followed)
        unknown = [m for m in self.entries if m not in found]
        if unknown:
            raise ValueError(f"no module {', '.join(unknown)} in reproq")
        return sorted(f for m in modules for f in (found[m], found[m].with_suffix(".cpp")) if f.is_file())

    def digest(self) -> str:
        return _digest(self)


@functools.cache
def _digest(code: Code) -> str:
    """A hash of :meth:`Code.files` (names and code: :func:`reproq.imports.code_of`), once per process."""
    digest = hashlib.sha1()
    for path in code.files():
        digest.update(str(path.relative_to(imports.PACKAGE)).encode() + imports.code_of(path))
    return digest.hexdigest()


def key(*parts, code: Code) -> str:
    """The name of a run's checkpoint folder: a hash of ``parts`` (data, configuration, seed: anything
    JSON-able, dataclasses as dicts) and of the ``code`` its numbers depend on, so that a checkpoint written by other
    code is never resumed, and a change elsewhere (a reading's sentence, another model) trains nothing again."""
    blob = json.dumps([*(asdict(p) if is_dataclass(p) else p for p in parts), code.digest()], sort_keys=True,
                      default=str)
    return hashlib.sha1(blob.encode()).hexdigest()


def folder(root: str | Path | None, key_: str) -> Path | None:
    """Where the run called ``key_`` (:func:`key`) keeps its checkpoint under ``root``; None without a root."""
    return None if root is None else Path(root) / key_[:16]
