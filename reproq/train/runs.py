"""What a training run leaves behind, and how a grid of runs picks its configuration. Knows no task.

Both tasks select as their papers do: every configuration is trained with every seed, the epoch is chosen on
dev (by the fit loop's ``KeepBest``), and the configuration with the best dev metric averaged over its seeds
wins (Lei et al. §6: "We used MRR to identify the best training epoch and the model configuration. For the
same model configuration, we report average performance across 5 independent runs."). TEST is never looked at.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd


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


def run_grid(run_one: Callable[[Hashable, int], RunResult], configs: Sequence[Hashable], seeds: Sequence[int], *,
             metric: str) -> GridResult:
    """``run_one(config, seed)`` for every configuration and seed; the best configuration by the mean over
    seeds of ``run.dev[metric]`` (each run at its best dev epoch)."""
    if not configs or not seeds:
        raise ValueError("run_grid needs at least one configuration and one seed")
    runs = {c: [run_one(c, s) for s in seeds] for c in dict.fromkeys(configs)}
    best = max(runs, key=lambda c: float(np.mean([r.dev[metric] for r in runs[c]])))
    return GridResult(runs, best)
