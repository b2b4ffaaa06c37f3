"""The one training routine every run of the study goes through, whatever it trains.

Seed the generators, build the model, optimise the objective over each epoch's batches (epochs count from 1; epoch 0
is the untrained model, evaluated unless asked not to), evaluate after every epoch, keep the epoch with the best
*selection metric* (the papers all choose the epoch on dev: Lei et al. §6 "We used MRR to identify the best training
epoch"), stop after ``patience`` epochs without a better one, checkpoint every epoch under the run's key (started
again, a run resumes where it stopped; finished, it trains no further), and leave the best epoch's weights in the
model, in eval mode. What a task's run says is only what differs: the model, the objective, the batches, the
evaluations and the metric that selects (``question_retrieval.run``, ``.adaptation``, ``.pretrain``,
``.full_collection_training``, ``answer_selection.run``).

One clock: :func:`time.perf_counter`. A run's seconds are its fit's, summed over every process that trained it (kept in
its checkpoint: :attr:`~reproq.train.loop.FitState.seconds`), and this process's building and scoring: a run resumed
or read back from its finished checkpoint says how long it took to train, not how long it took to read.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import torch
from torch import nn

from reproq.models import count_parameters
from reproq.train import callbacks as cb
from reproq.train import checkpoint
from reproq.train.loop import Callback, FitState, fit
from reproq.train.grid import RunResult
from reproq.train.runtime import resolve_device, seed_everything


@dataclass(frozen=True)
class Selection:
    """Which epoch a run keeps: the best ``metric`` of the epoch records (``"dev_MRR"``; ``mode`` "min" for a
    perplexity), stopping after ``patience`` epochs without a better one."""

    metric: str
    patience: int
    mode: str = "max"


@dataclass(frozen=True)
class Fitted:
    """A finished run of :func:`train`: the model (best epoch's weights, eval mode), the loop's final state, the
    device it ran on, and when this process began the run and called and left the fit loop."""

    model: nn.Module
    state: FitState
    device: torch.device
    started: float  # time.perf_counter() when this process began the run
    fit_span: tuple[float, float]  # time.perf_counter() when this process called the fit loop and when it returned

    @property
    def seconds(self) -> float:
        """The fit's seconds over every process that trained the run, and this process's before and after it."""
        called, returned = self.fit_span
        return self.state.seconds + (called - self.started) + (time.perf_counter() - returned)

    def result(self, config, seed: int, scores: dict, *, counted: nn.Module | None = None) -> RunResult:
        """The run's :class:`~reproq.train.grid.RunResult`: ``scores`` of the kept epoch, the trainable parameters
        of ``counted`` (default: the whole model), its :attr:`seconds`."""
        return RunResult(config, seed, self.state.history, self.state.best["epoch"], self.state.epoch, scores,
                         count_parameters(counted if counted is not None else self.model), self.seconds,
                         settings=self.state.settings)


def train(build: Callable[[torch.device], nn.Module], objective, batches: Callable[[int], Iterable], *,
          seed: int, device: str | torch.device, epochs: int, selection: Selection,
          evaluations: Callable[[nn.Module, torch.device], Sequence[Callback]],
          optimizer: Callable[[list[nn.Parameter]], torch.optim.Optimizer], key: str,
          checkpoint_root: str | Path | None, desc: str, progress: bool = True,
          schedule: Callable[[int], float] | None = None, evaluate_untrained: bool = True, reseed: bool = False,
          started: float | None = None) -> Fitted:
    """Train one run (module docstring) and return it :class:`Fitted`.

    Parameters
    ----------
    build
        ``build(device) -> model`` after the generators are seeded with ``seed``: the model as training starts
        (pre-trained weights loaded, say); it is moved to ``device``.
    objective, batches
        ``objective(model, batch) -> loss`` and ``batches(epoch)``, the epoch's batches (moved to the device here).
    evaluations
        ``evaluations(model, device)``: the callbacks that put the epoch's metrics into its record (the selection
        metric among them), in order.
    optimizer
        ``optimizer(trainable parameters)``, e.g. ``functools.partial(torch.optim.Adam, lr=1e-3)``; ``schedule``
        sets its learning rate per epoch.
    key
        What the run's checkpoint belongs to (:func:`reproq.train.checkpoint.key`): its folder under
        ``checkpoint_root`` (None: no checkpoint) and the fingerprint a resumed run must match.
    reseed
        Seed the generators again once the model is built, so that the draws of training do not depend on how many
        the model's initialisation took (answer selection's runs).
    """
    started = time.perf_counter()
    device = resolve_device(device)
    seed_everything(seed)
    model = build(device).to(device)
    if reseed:
        seed_everything(seed)
    optimiser = optimizer([p for p in model.parameters() if p.requires_grad])
    callbacks = [*evaluations(model, device), cb.KeepBest(selection.metric, mode=selection.mode),
                 cb.EarlyStopping(selection.metric, patience=selection.patience, mode=selection.mode)]
    if schedule is not None:
        callbacks.append(cb.LearningRateSchedule(optimiser, schedule))
    callbacks.append(cb.ProgressBar(epochs, desc=desc, metric=selection.metric, disable=not progress))

    def on_device(epoch: int):
        for batch in batches(epoch):
            yield batch.to(device)

    called = time.perf_counter()
    state = fit(model, objective, optimiser, on_device, epochs=epochs, callbacks=callbacks, fingerprint=key,
                checkpoint_dir=checkpoint.folder(checkpoint_root, key), evaluate_untrained=evaluate_untrained)
    returned = time.perf_counter()
    model.load_state_dict(state.best["model"])
    model.eval()
    return Fitted(model, state, device, started, (called, returned))
