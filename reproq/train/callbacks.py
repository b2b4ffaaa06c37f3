"""Callbacks for :func:`reproq.train.loop.fit`: evaluate each epoch, keep the best state, stop early, show progress,
schedule the learning rate, record gradient norms.

They keep no state of their own that a resumed run would lose: whatever they need later lives in the
:class:`~reproq.train.loop.FitState` (history, best), which the checkpoint holds.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable

import numpy as np
import torch

from reproq.train.loop import Callback, FitState


class Evaluate(Callback):
    """Add ``prefix + name`` for every metric of ``evaluate(model)`` to the epoch's record.

    The model is evaluated in eval mode (no dropout) and without gradients, then put back in train mode.
    """

    def __init__(self, evaluate: Callable[[torch.nn.Module], dict], prefix: str = "dev_"):
        self.evaluate, self.prefix = evaluate, prefix

    def on_epoch_end(self, state: FitState, model: torch.nn.Module, record: dict) -> None:
        was_training = model.training
        model.eval()
        with torch.no_grad():
            metrics = self.evaluate(model)
        model.train(was_training)
        record.update({self.prefix + k: float(v) for k, v in metrics.items()})


def _better(value: float, best: float, mode: str) -> bool:
    return value > best if mode == "max" else value < best


class KeepBest(Callback):
    """Keep a copy of the model's state at the epoch with the best ``metric`` (first best on ties) in
    ``state.best``. Lei et al.: "We used MRR to identify the best training epoch". Only trained epochs are
    candidates: the untrained model's record (epoch 0, :func:`reproq.train.loop.fit`'s ``evaluate_untrained``) is there
    to compare with, and a run that kept it would report a network no update ever touched. (A run of 0 epochs keeps
    it: it asked for the untrained model.)"""

    def __init__(self, metric: str = "dev_MRR", mode: str = "max"):
        if mode not in ("max", "min"):
            raise ValueError(f"mode must be 'max' or 'min', got {mode!r}")
        self.metric, self.mode = metric, mode

    def on_epoch_end(self, state: FitState, model: torch.nn.Module, record: dict) -> None:
        if self.metric not in record:
            raise KeyError(f"KeepBest needs {self.metric!r} in the epoch record (found {sorted(record)}); "
                           "put the Evaluate callback before it")
        value = record[self.metric]
        untrained = record["epoch"] == 0  # kept only while no trained epoch exists (a run of 0 epochs)
        if untrained and state.best is not None:
            return
        if state.best is None or state.best["epoch"] == 0 or _better(value, state.best["value"], self.mode):
            state.best = {"epoch": record["epoch"], "metric": self.metric, "value": value,
                          "model": {k: v.detach().clone().cpu() for k, v in model.state_dict().items()}}


class EarlyStopping(Callback):
    """Stop after ``patience`` trained epochs without a better ``metric`` (taolei87/rcnn stops after 15); the untrained
    model's epoch 0 is no candidate (as for :class:`KeepBest`)."""

    def __init__(self, metric: str = "dev_MRR", patience: int = 15, mode: str = "max"):
        self.metric, self.patience, self.mode = metric, patience, mode

    def on_epoch_end(self, state: FitState, model: torch.nn.Module, record: dict) -> None:
        values = [r[self.metric] for r in state.history if r["epoch"] > 0]
        if not values:
            return
        best_at = 0
        for i, v in enumerate(values):
            if _better(v, values[best_at], self.mode):
                best_at = i
        if len(values) - 1 - best_at >= self.patience:
            state.stop = True


class ProgressBar(Callback):
    """One tqdm bar per fit, one step per epoch, showing the running loss and the last epoch's metric."""

    def __init__(self, total_epochs: int, desc: str = "", metric: str = "dev_MRR", disable: bool = False):
        self.total, self.desc, self.metric, self.disable = total_epochs, desc, metric, disable
        self.bar, self.running, self.seen = None, 0.0, 0

    def on_fit_start(self, state: FitState, model: torch.nn.Module) -> None:
        from tqdm import tqdm

        self.bar = tqdm(total=self.total, initial=min(state.epoch, self.total), desc=self.desc, unit="epoch",
                        file=sys.stderr, disable=self.disable, mininterval=1.0, dynamic_ncols=False, ncols=100)

    def on_batch_end(self, state: FitState, loss: float) -> None:
        self.running, self.seen = self.running + loss, self.seen + 1
        if self.seen % 20 == 0:
            self.bar.set_postfix_str(f"loss {self.running / self.seen:.4f}", refresh=False)

    def on_epoch_end(self, state: FitState, model: torch.nn.Module, record: dict) -> None:
        self.running, self.seen = 0.0, 0
        loss = record.get("loss", math.nan)
        shown = f"loss {loss:.4f}" + (f" {self.metric} {record[self.metric]:.4f}" if self.metric in record else "")
        self.bar.set_postfix_str(shown, refresh=False)
        if record["epoch"] > 0:
            self.bar.update(1)

    def on_fit_end(self, state: FitState, model: torch.nn.Module) -> None:
        self.bar.close()


class LearningRateSchedule(Callback):
    """Set every parameter group's learning rate to ``schedule(epoch)`` before each epoch (a function of
    the epoch alone, so a resumed run continues the same schedule)."""

    def __init__(self, optimizer: torch.optim.Optimizer, schedule: Callable[[int], float]):
        self.optimizer, self.schedule = optimizer, schedule

    def _set(self, epoch: int) -> None:
        for group in self.optimizer.param_groups:
            group["lr"] = self.schedule(epoch)

    def on_fit_start(self, state: FitState, model: torch.nn.Module) -> None:
        self._set(state.epoch + 1)

    def on_epoch_end(self, state: FitState, model: torch.nn.Module, record: dict) -> None:
        self._set(record["epoch"] + 1)


class GradientNorms(Callback):
    """The mean L2 norm, over an epoch's updates, of the gradient of each linear layer of ``module`` (Smolyakov &
    Srikant Figure 14 plots a domain classifier's), recorded as ``grad_norm_layer<i>``."""

    def __init__(self, module: torch.nn.Module):
        self.layers = [m for m in module.modules() if isinstance(m, torch.nn.Linear)]
        self.sums, self.n = np.zeros(len(self.layers)), 0

    def on_batch_end(self, state, loss: float) -> None:
        self.sums += [float(layer.weight.grad.norm()) if layer.weight.grad is not None else 0.0 for layer in self.layers]
        self.n += 1

    def on_epoch_end(self, state, model, record: dict) -> None:
        if self.n:
            record.update({f"grad_norm_layer{i + 1}": float(v / self.n) for i, v in enumerate(self.sums)})
        self.sums, self.n = np.zeros(len(self.layers)), 0
