"""What a training run leaves behind, and how a grid of runs picks its configuration. Knows no task.

Both tasks select as their papers do: every configuration is trained with every seed, the epoch is chosen on
dev (by the fit loop's ``KeepBest``), and the configuration with the best dev metric averaged over its seeds
wins (Lei et al. §6: "We used MRR to identify the best training epoch and the model configuration. For the
same model configuration, we report average performance across 5 independent runs."). TEST is never looked at.

:func:`run_grid` hands the runs to an executor (:mod:`reproq.train.executors`: here one after another, or on a Dask
cluster) and keeps each finished run's record in a :class:`RunStore` when given one, so that a grid run again — after
a crash, on another executor — skips what is done. Each record carries the peak memory of the process that ran it.
"""

from __future__ import annotations

import functools
import hashlib
import json
import sys
import warnings
from collections.abc import Callable, Hashable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from reproq import atomic
from reproq.peak_memory import PeakMemory
from reproq.train import checkpoint, retrain
from reproq.train.executors import Executor, from_environment


@dataclass(frozen=True)
class RunResult:
    config: Hashable  # the task's frozen TrainConfig
    seed: int
    history: list[dict]  # per epoch: loss and dev metrics ("dev_MAP", ...); epoch 0 (untrained) where evaluated
    best_epoch: int
    epochs_run: int
    scores: dict[str, dict[str, float]]  # per evaluated set ("dev", "test", "test_clean", "untrained_test", ...)
    n_parameters: int
    seconds: float = field(compare=False)
    peak_memory_mb: float | None = field(default=None, compare=False)  # of the process that ran it (sampled)
    # the run settings it was trained under (reproq.train.loop.FitState.settings): its records carry them
    settings: dict = field(default_factory=dict, compare=False)

    @property
    def dev(self) -> dict[str, float]:
        return self.scores["dev"]

    @property
    def test(self) -> dict[str, float]:
        return self.scores["test"]


@dataclass(frozen=True)
class GridResult:
    runs: dict[Hashable, list[RunResult]]  # every configuration's runs, one per seed
    best: Hashable  # the configuration with the highest mean dev metric

    @property
    def best_runs(self) -> list[RunResult]:
        return self.runs[self.best]

    def table(self, metric: str) -> pd.DataFrame:
        """One row per configuration: the settings that differ between configurations (nested configs
        flattened, ``ranker.hidden_dim``), the mean dev ``metric`` over its seeds, and the number of seeds."""
        rows = [{**pd.json_normalize(asdict(config), sep=".").iloc[0].to_dict(),
                 f"dev {metric}": float(np.mean([r.dev[metric] for r in runs])), "seeds": len(runs)}
                for config, runs in self.runs.items()]
        frame = pd.DataFrame(rows)
        varying = [c for c in frame.columns[:-2] if frame[c].astype(str).nunique() > 1]
        return frame[varying + list(frame.columns[-2:])]


class RunStore:
    """Each finished run's record as JSON in the run's checkpoint folder (``run.json`` in
    :func:`reproq.train.checkpoint.folder` of ``key(config, seed)``): what :func:`run_grid` skips. ``key`` must cover
    everything the numbers depend on (data, configuration, seed, code: :func:`reproq.train.checkpoint.key`). The
    configuration is not stored: a record is read back for the configuration that asked for it. What the scores were
    computed for beyond the key (``scoring``: answer selection's P@k cut-offs) is stored with them, and a record scored
    for other cut-offs is not reused: its run is scored again from its finished checkpoint, with no training.

    A record is bound to itself and to its run's checkpoint: it keeps its own SHA-256 and the checkpoint's as they
    were when the run finished, and a record whose numbers or checkpoint changed since is not reused (one warning
    line; the run trains again). This catches a damaged or hand-edited cache, not a forger who recomputes the
    digests: only training again proves a number."""

    def __init__(self, root: str | Path, key: Callable[[Hashable, int], str], scoring: dict | None = None):
        self.root, self.key = Path(root), key
        self.scoring = json.loads(json.dumps(scoring or {}))  # as read back from a record

    @classmethod
    def under(cls, root: str | Path | None, key: Callable[[Hashable, int], str],
              scoring: dict | None = None) -> RunStore | None:
        """The store under a task's ``checkpoint_root``; None without one."""
        return None if root is None else cls(root, key, scoring)

    def path(self, config: Hashable, seed: int) -> Path:
        return checkpoint.folder(self.root, self.key(config, seed)) / "run.json"

    def load(self, config: Hashable, seed: int) -> RunResult | None:
        path = self.path(config, seed)
        record = atomic.read_json(path, otherwise="the run is done again")
        if record is not None and not isinstance(record, dict):
            warnings.warn(f"{path}: not a run's record (a JSON {type(record).__name__}, not an object); the run is "
                          "done again", RuntimeWarning, stacklevel=2)
            return None
        if record is None or not retrain.reusable(record.get("batch")):  # `reproq run --retrain`: before this batch
            return None
        digests = {name: record.pop(name, None) for name in ("record_sha256", "checkpoint_sha256")}
        if digests != {"record_sha256": _digest(record), "checkpoint_sha256": _file_digest(path.with_name(checkpoint.FILE))}:
            if path.with_name(checkpoint.FILE).is_file():  # never resumed nor re-scored: trained from its start
                checkpoint.set_aside(path.parent, "untrusted")
            warnings.warn(f"{path}: the run's record or checkpoint changed since the run finished; it trains again "
                          "from its start", RuntimeWarning, stacklevel=2)
            return None
        if record.pop("scoring", {}) != self.scoring:  # scored for other cut-offs: scored again, not trained
            return None
        record.pop("batch", None)
        record.pop("name", None)
        return RunResult(config, **record)

    def save(self, run: RunResult) -> None:
        path = self.path(run.config, run.seed)
        # numpy scalars as the numbers they are, so that the record read back equals the run
        record = json.loads(json.dumps({k: v for k, v in asdict(run).items() if k != "config"}, default=_number))
        record["batch"] = retrain.current()  # the retraining batch that ran it ("" outside one)
        record["name"] = run_name(run.config, run.seed)  # for a reader of the folder: its key is a hash
        record["scoring"] = self.scoring
        record.update(record_sha256=_digest(record), checkpoint_sha256=_file_digest(path.with_name(checkpoint.FILE)))
        atomic.write_text(path, json.dumps(record, indent=1) + "\n")


def run_name(config: Hashable, seed: int) -> str:
    """A training run's name a person can read beside its hashed key: its configuration's ``label()`` (the encoder
    or method, sizes, setting, learning rate) and its seed."""
    return f"{config.label() if hasattr(config, 'label') else config} seed {seed}"


def _digest(record: dict) -> str:
    return hashlib.sha256(json.dumps(record, sort_keys=True).encode()).hexdigest()


def _file_digest(path: Path) -> str | None:
    """The SHA-256 of ``path``'s bytes; None where there is no such file."""
    return atomic.sha256(path) if path.is_file() else None


def _number(value) -> float | int:
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"a run's record holds {type(value).__name__} {value!r}, which is not a number")


def _measured(run_one: Callable[[Hashable, int], RunResult], batch: str, config: Hashable, seed: int) -> RunResult:
    """``run_one(config, seed)`` with its peak memory, working for the retraining ``batch`` of the grid that sent it
    wherever it runs (a worker never sees the runner's environment)."""
    with PeakMemory(children=False) as memory, retrain.in_batch(batch):
        run = run_one(config, seed)
    return replace(run, peak_memory_mb=round(memory.peak_mb, 1))


def run_grid(run_one: Callable[[Hashable, int], RunResult], configs: Sequence[Hashable], seeds: Sequence[int], *,
             metric: str, executor: Executor | None = None, store: RunStore | None = None) -> GridResult:
    """``run_one(config, seed)`` for every configuration and seed, through ``executor`` (default: the one
    ``reproq run --executor`` chose, else one after another here); the runs ``store`` holds are not run again, and
    every finished run goes into it. The best configuration by the mean over seeds of ``run.dev[metric]`` (each run
    at its best dev epoch). The records come in the order of ``configs`` and ``seeds`` whatever the executor."""
    if not configs or not seeds:
        raise ValueError("run_grid needs at least one configuration and one seed")
    configs = list(dict.fromkeys(configs))
    items = [(c, s) for c in configs for s in seeds]
    found = {item: None if store is None else store.load(*item) for item in items}
    missing = [item for item in items if found[item] is None]
    if len(missing) < len(items):
        print(f"{len(items) - len(missing)} of {len(items)} runs reused from {store.root} "
              "(`reproq run --retrain` trains them again)", file=sys.stderr, flush=True)

    def done(i: int, run: RunResult) -> None:
        if store is not None:
            store.save(run)

    ran = (executor or from_environment()).map(functools.partial(_measured, run_one, retrain.current()), missing,
                                               done=done)
    found.update(zip(missing, ran))
    runs = {c: [found[c, s] for s in seeds] for c in configs}
    best = max(runs, key=lambda c: float(np.mean([r.dev[metric] for r in runs[c]])))
    return GridResult(runs, best)
