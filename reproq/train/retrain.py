"""What ``reproq run --retrain`` changes: no checkpoint or run record written before the batch is reused.

Decided by identity, never by a file's clock: the runner gives each retraining batch an id
(:data:`RETRAIN_BATCH`, in its kernels' environment); every checkpoint and run record names the batch that wrote it
(:func:`current`, empty outside a retraining batch); under ``--retrain`` a cached file is reused only if it names this
batch (a notebook that reads another's finished run, a run resumed after a kill). The id travels with each training
task to wherever it runs — a local kernel, local or external Dask workers, which never see the runner's environment —
as part of the task (:func:`in_batch`, set by :func:`reproq.train.grid.run_grid`).
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator

from reproq import run_settings

RETRAIN_BATCH = run_settings.VARIABLES["retrain_batch"]  # the retraining batch's id, set by the runner for its kernels
_UNSET = object()
_TASK: contextvars.ContextVar = contextvars.ContextVar("retrain_batch", default=_UNSET)


def current() -> str:
    """The retraining batch this code works for: the one its task brought (:func:`in_batch`), else the runner's
    environment; ``""`` outside a retraining batch."""
    batch = _TASK.get()
    return run_settings.read("retrain_batch") if batch is _UNSET else batch


@contextlib.contextmanager
def in_batch(batch: str) -> Iterator[None]:
    """Within the block, :func:`current` is ``batch`` whatever this process's environment says (a task on a worker)."""
    token = _TASK.set(batch)
    try:
        yield
    finally:
        _TASK.reset(token)


def reusable(written_by: str | None) -> bool:
    """Whether a cached file written by batch ``written_by`` may be reused: yes, unless this is a retraining batch
    and another batch (or none) wrote it."""
    batch = current()
    return not batch or written_by == batch
