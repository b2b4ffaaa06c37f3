"""One fit loop for every model: nothing here knows what it trains.

The caller brings the model, an *objective* ``objective(model, batch) -> scalar loss`` (or a dict of tensors: the
scalar ``"loss"`` that is minimised and its named parts, each averaged into the history as ``loss_<part>``), an
optimizer, and
``batches(epoch) -> iterable`` that yields the epoch's batches (epochs count from 1; resampling negatives
per epoch, seeded by the epoch, is the caller's business, which is what makes a resumed run repeat the
same batches). Callbacks (:mod:`reproq.train.callbacks`) evaluate, keep the best state, stop early and
show progress; they see a :class:`FitState`.

With a ``checkpoint_dir`` the loop writes a checkpoint after every epoch (model, optimizer, generator
states, history, best state) and, started again with the same ``fingerprint``, resumes after the last
checkpointed epoch; on CPU with the same seed the result equals an uninterrupted run's exactly.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import torch

from reproq import run_settings
from reproq.train import checkpoint, runtime


@dataclass
class FitState:
    """What the loop has done so far; callbacks read it and may set ``stop`` or ``best``."""

    epoch: int = 0  # epochs finished; 0 before training
    history: list[dict] = field(default_factory=list)  # one record per epoch: {"epoch", "loss", metrics...}
    best: dict | None = None  # {"epoch", "metric", "value", "model": state_dict} (see callbacks.KeepBest)
    stop: bool = False  # a callback asks the loop to end after this epoch
    finished: bool = False  # the run is complete (a resumed finished run trains no further)
    # the run settings of the process that began the run (reproq.run_settings.current()), kept when it is resumed or
    # reused, so that its records say how it was trained, not how it was read back ({}: a checkpoint from before)
    settings: dict = field(default_factory=dict)
    # the wall time of the fit so far, summed over every process that trained it (kept in the checkpoint), so that a
    # run resumed or read back says how long it took to train, not to read (0: a checkpoint from before)
    seconds: float = 0.0


class Callback:
    """Hooks called by :func:`fit`, in the order the callbacks are given. Each may read and change the state."""

    def on_fit_start(self, state: FitState, model: torch.nn.Module) -> None: ...

    def on_batch_end(self, state: FitState, loss: float) -> None: ...

    def on_epoch_end(self, state: FitState, model: torch.nn.Module, record: dict) -> None:
        """``record`` is the epoch's history entry, already appended; callbacks may add metrics to it."""

    def on_fit_end(self, state: FitState, model: torch.nn.Module) -> None: ...


def fit(model: torch.nn.Module, objective: Callable[[torch.nn.Module, object], torch.Tensor],
        optimizer: torch.optim.Optimizer, batches: Callable[[int], Iterable], *, epochs: int,
        callbacks: Sequence[Callback] = (), checkpoint_dir: str | Path | None = None, fingerprint: str = "",
        evaluate_untrained: bool = True, grad_clip: float | None = None) -> FitState:
    """Train for ``epochs`` epochs (fewer if a callback stops it) and return the final :class:`FitState`.

    With ``evaluate_untrained`` the callbacks first see an "epoch 0" record (loss NaN): the model before
    any update, the baseline a trained model must beat. A checkpoint whose fingerprint differs from
    ``fingerprint`` raises ValueError rather than mixing two runs.
    """
    if epochs < 0:
        raise ValueError(f"epochs must be >= 0, got {epochs}")
    state = FitState(settings=run_settings.current())
    saved = checkpoint.load(checkpoint_dir) if checkpoint_dir is not None else None
    if saved is not None:
        if saved["fingerprint"] != fingerprint:
            raise ValueError(f"{checkpoint_dir} holds a checkpoint of other settings (fingerprint "
                             f"{saved['fingerprint']!r}, this run {fingerprint!r}); remove it or use another folder")
        model.load_state_dict(saved["model"])
        optimizer.load_state_dict(saved["optimizer"])
        runtime.set_rng_state(saved["rng"])
        state = FitState(**{"settings": {}, **saved["state"]})
    clock, before = time.perf_counter(), state.seconds

    def save() -> None:
        state.seconds = before + time.perf_counter() - clock
        if checkpoint_dir is not None:
            _save(checkpoint_dir, model, optimizer, state, fingerprint)

    def end_epoch(record: dict) -> None:
        state.epoch = record["epoch"]
        state.history.append(record)
        for cb in callbacks:
            cb.on_epoch_end(state, model, record)
        save()

    for cb in callbacks:
        cb.on_fit_start(state, model)
    if evaluate_untrained and not state.history:
        end_epoch({"epoch": 0, "loss": math.nan})
    while not state.finished and not state.stop and state.epoch < epochs:
        epoch = state.epoch + 1
        model.train()
        totals, n = {"loss": 0.0}, 0
        for batch in batches(epoch):
            optimizer.zero_grad(set_to_none=True)
            out = objective(model, batch)
            loss, parts = (out["loss"], out) if isinstance(out, dict) else (out, {"loss": out})
            if not torch.isfinite(loss):
                raise FloatingPointError(f"epoch {epoch}, batch {n + 1}: the loss is {loss.item()}")
            loss.backward()
            if grad_clip is not None:
                torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
            optimizer.step()
            values = {name: part.item() for name, part in parts.items()}
            totals, n = {name: totals.get(name, 0.0) + v for name, v in values.items()}, n + 1
            for cb in callbacks:
                cb.on_batch_end(state, values["loss"])
        end_epoch({"epoch": epoch, **{name if name == "loss" else f"loss_{name}": total / max(n, 1)
                                      for name, total in totals.items()}})
    if not state.finished:
        state.finished = True
        save()
    for cb in callbacks:
        cb.on_fit_end(state, model)
    return state


def _save(directory, model, optimizer, state: FitState, fingerprint: str) -> None:
    checkpoint.save(directory, {
        "fingerprint": fingerprint, "model": model.state_dict(), "optimizer": optimizer.state_dict(),
        "rng": runtime.rng_state(),
        "state": {"epoch": state.epoch, "history": state.history, "best": state.best, "stop": state.stop,
                  "finished": state.finished, "settings": state.settings,
                  "seconds": state.seconds},
    })
