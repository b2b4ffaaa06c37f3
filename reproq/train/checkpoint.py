"""Checkpoints written atomically: a reader finds the previous complete file or the new one, never half of one.

A checkpoint is one ``torch.save`` dict (model and optimizer state, generator states, epoch, history,
best state, the caller's fingerprint of its settings) at ``<dir>/last.pt``.
"""

from __future__ import annotations

import os
from pathlib import Path

import torch

FILE = "last.pt"


def save(directory: str | Path, payload: dict) -> Path:
    """Write ``payload`` to ``directory/last.pt`` through a temporary file and an atomic rename."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / FILE
    scratch = directory / f".{FILE}.{os.getpid()}.tmp"
    try:
        with open(scratch, "wb") as fh:
            torch.save(payload, fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(scratch, target)
    finally:
        scratch.unlink(missing_ok=True)
    return target


def load(directory: str | Path) -> dict | None:
    """The last checkpoint in ``directory``, or None when there is none."""
    path = Path(directory) / FILE
    if not path.is_file():
        return None
    # our own files: they hold numpy / python generator states, which weights_only loading refuses
    return torch.load(path, map_location="cpu", weights_only=False)
