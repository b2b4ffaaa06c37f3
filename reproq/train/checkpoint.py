"""Checkpoints written atomically: a reader finds the previous complete file or the new one, never half of one.

A checkpoint is one ``torch.save`` dict (model and optimizer state, generator states, epoch, history,
best state, the caller's fingerprint of its settings) at ``<dir>/last.pt``.
"""

from __future__ import annotations

import functools
import hashlib
import json
import pickle
import warnings
from dataclasses import asdict, is_dataclass
from pathlib import Path

import torch

from reproq.atomic import replace_atomically
from reproq.train.retrain import reusable

FILE = "last.pt"


def save(directory: str | Path, payload: dict) -> Path:
    """Write ``payload`` to ``directory/last.pt`` atomically, synced to disk before the rename."""
    return replace_atomically(Path(directory) / FILE, lambda scratch: torch.save(payload, scratch), fsync=True)


def load(directory: str | Path) -> dict | None:
    """The last checkpoint in ``directory``, or None when there is none. Read with ``weights_only=True``: tensors and
    plain values only, so a file that would build any other object (a poisoned cache) is refused, never run. A file
    that cannot be read at all (cut short, overwritten: this module never writes half a file) is set aside as
    ``last.pt.damaged`` with one warning line, and the run trains again from the start."""
    path = Path(directory) / FILE
    if not path.is_file() or not reusable(path):
        return None
    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as exc:
        raise ValueError(f"{path}: refused, it holds more than tensors and plain values ({str(exc).splitlines()[0]}); "
                         "delete it and the run trains again") from None
    except (RuntimeError, EOFError, OSError) as exc:  # torch's zip reader says RuntimeError for a damaged archive
        damaged = path.with_name(f"{FILE}.damaged")
        path.replace(damaged)
        warnings.warn(f"{path} could not be read ({str(exc).splitlines()[0]}); set aside as {damaged.name}, the run "
                      "trains again from the start", RuntimeWarning, stacklevel=2)
        return None


NOT_HASHED = {"results", "report", "figures", "bench", "labs", "cli.py", "batch.py", "schedule.py", "peak_memory.py"}


def hashed_files() -> list[Path]:
    """The library files a trained model's numbers may depend on: every ``.py`` file of ``reproq`` except those that
    only write, read back, draw or teach (:data:`NOT_HASHED`: ``results``, ``report``, ``figures``, ``bench``,
    ``labs``, the command line, the notebook runner, its scheduler and its memory sampler): a figure's fix trains
    nothing again."""
    root = Path(__file__).resolve().parents[1]
    return sorted(p for p in root.rglob("*.py") if p.relative_to(root).parts[0] not in NOT_HASHED)


@functools.lru_cache(maxsize=1)
def code_hash() -> str:
    """A hash of :func:`hashed_files`, so that a checkpoint written by older code is never resumed."""
    root = Path(__file__).resolve().parents[1]
    digest = hashlib.sha1()
    for path in hashed_files():
        digest.update(str(path.relative_to(root)).encode() + path.read_bytes())
    return digest.hexdigest()


def key(*parts) -> str:
    """The name of a run's checkpoint folder: a hash of ``parts`` (data, configuration, seed: anything
    JSON-able, dataclasses as dicts) and of :func:`code_hash`."""
    blob = json.dumps([*(asdict(p) if is_dataclass(p) else p for p in parts), code_hash()], sort_keys=True,
                      default=str)
    return hashlib.sha1(blob.encode()).hexdigest()


def folder(root: str | Path | None, key_: str) -> Path | None:
    """Where the run called ``key_`` (:func:`key`) keeps its checkpoint under ``root``; None without a root."""
    return None if root is None else Path(root) / key_[:16]
