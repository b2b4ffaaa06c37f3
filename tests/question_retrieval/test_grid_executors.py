"""A grid of real training runs (tiny stand-in, 4 configurations × 2 seeds) on a local Dask cluster gives the records
the local backend gives, in the same order; a worker killed mid-run costs nothing but time; finished runs are not
run again."""

from __future__ import annotations

import functools
import json
import os
import sys
from dataclasses import asdict, replace
from pathlib import Path

import cloudpickle
import pytest

from reproq.question_retrieval import inputs
from reproq.question_retrieval import run as ex
from reproq.train.grid import GridResult, RunResult, run_grid
from reproq.train.executors import DaskExecutor, Sequential

pytestmark = pytest.mark.slow
cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import a test module by name


@pytest.fixture(scope="module")
def data(tiny_prepared):
    return tiny_prepared()


@pytest.fixture(scope="module")
def dask():
    executor = DaskExecutor(workers=2)  # each worker at this process's torch thread count: the same numbers
    yield executor
    executor.close()


def grid_configs() -> list[inputs.TrainConfig]:
    base = inputs.TrainConfig(encoder="cnn", encoder_settings=(("hidden_dim", 8),), epochs=2, queries_per_batch=10,
                          max_train_queries=20)
    return [inputs.with_question(replace(base, lr=lr), dropout=dropout) for lr in (1e-3, 3e-3) for dropout in (0.1, 0.2)]


def records(grid: GridResult) -> list[RunResult]:
    return [run for config_runs in grid.runs.values() for run in config_runs]


def numbers(grid: GridResult) -> list[str]:
    """Each run as exact text: every number of every epoch (NaN, the untrained epoch's loss, equal to itself), not
    the seconds, the memory or the settings of the process that ran it (a Dask worker's are its own)."""
    left_out = ("seconds", "peak_memory_mb", "settings")
    return [json.dumps({k: v for k, v in asdict(run).items() if k not in left_out}, default=repr)
            for run in records(grid)]


def test_a_dask_cluster_gives_the_local_backends_records_in_order(data, dask, tmp_path):
    options = dict(device="cpu", progress=False)
    local = ex.run_grid(data, grid_configs(), [1, 2], executor=Sequential(), **options)
    remote = ex.run_grid(data, grid_configs(), [1, 2], executor=dask, checkpoint_root=tmp_path, **options)
    assert len(records(local)) == 8
    assert numbers(remote) == numbers(local)
    assert [(r.config, r.seed) for r in records(remote)] == [(c, s) for c in grid_configs() for s in (1, 2)]
    assert remote.best == local.best
    assert all(r.peak_memory_mb > 50 for r in records(remote) + records(local))  # a python process with torch
    stored = sorted(tmp_path.glob("*/run.json"))
    assert len(stored) == 8  # every run's record beside its checkpoint


def _dies_once(marker: Path, run_one, config, seed):
    """Kill the worker process the first time the run (config, seed 2) starts; afterwards just run."""
    if seed == 2 and not marker.exists():
        marker.touch()
        os._exit(1)  # no exception, no cleanup: what an out-of-memory kill looks like to the scheduler
    return run_one(config, seed)


def test_a_killed_worker_still_gives_every_record(data, dask, tmp_path):
    run_one = functools.partial(ex.run_one, data, device="cpu", progress=False)
    configs = grid_configs()[:2]
    expected = run_grid(run_one, configs, [1, 2], metric="MRR", executor=Sequential())
    marker = tmp_path / "killed"
    grid = run_grid(functools.partial(_dies_once, marker, run_one), configs, [1, 2], metric="MRR",
                         executor=dask)
    assert marker.exists()  # a worker did die
    assert numbers(grid) == numbers(expected)


def test_finished_runs_are_not_run_again(data, tmp_path, monkeypatch):
    calls, run_one = [], ex.run_one

    def counted(prepared, config, seed, **options):
        calls.append((config, seed))
        return run_one(prepared, config, seed, **options)

    options = dict(device="cpu", progress=False, checkpoint_root=tmp_path)
    first = ex.run_grid(data, grid_configs()[:2], [1], executor=Sequential(), **options)
    monkeypatch.setattr(ex, "run_one", counted)
    again = ex.run_grid(data, grid_configs()[:3], [1], executor=Sequential(), **options)
    assert calls == [(grid_configs()[2], 1)]  # only the configuration that was not there
    assert numbers(again)[:2] == numbers(first)  # read back from the records


def _arrive(marker: str, test_pid: int, fn):
    """Unpickled in a worker process: the first time, that process dies right there (as if killed while the shared
    run function was reaching it); otherwise the wrapper again (the scheduler unpickles and pickles it on its way).
    Never in the test's own process (client, scheduler)."""
    if os.getpid() != test_pid and not os.path.exists(marker):
        Path(marker).touch()
        os._exit(1)
    return _DiesOnArrival(marker, fn)


class _DiesOnArrival:
    """The run function, wrapped so that unpickling it in a worker process kills that worker once."""

    def __init__(self, marker: Path | str, fn):
        self.marker, self.fn = str(marker), fn

    def __call__(self, *item):
        return self.fn(*item)

    def __reduce__(self):
        return _arrive, (self.marker, os.getpid(), self.fn)


def test_a_worker_killed_while_the_run_function_reaches_it_costs_a_retry_not_a_hang(data, dask, tmp_path):
    """The shared run function and its data are sent before any run starts: a worker lost then must not hang the
    grid (a broadcast scatter waited for ever on the dead worker)."""
    import threading

    run_one = functools.partial(ex.run_one, data, device="cpu", progress=False)
    configs = grid_configs()[:2]
    expected = run_grid(run_one, configs, [1, 2], metric="MRR", executor=Sequential())
    marker = tmp_path / "killed"
    outcome = {}

    def grid():
        try:
            outcome["grid"] = run_grid(_DiesOnArrival(marker, run_one), configs, [1, 2], metric="MRR", executor=dask)
        except Exception as exc:  # noqa: BLE001 - said below
            outcome["error"] = exc

    worker = threading.Thread(target=grid, daemon=True)
    worker.start()
    worker.join(timeout=150)
    assert marker.exists()  # a worker did die as the run function reached it
    assert not worker.is_alive(), "the grid hangs after a worker was lost while receiving the run function"
    assert "error" not in outcome, f"the grid failed after a worker was lost: {outcome.get('error')!r}"
    assert numbers(outcome["grid"]) == numbers(expected)
