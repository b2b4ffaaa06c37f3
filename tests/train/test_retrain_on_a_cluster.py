"""``reproq run --retrain`` on an external Dask cluster (issue 42): the workers never see the runner's environment,
so the retraining batch travels with each task; every run trains again, and its record and checkpoint name the batch."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import cloudpickle
import pytest
import torch
from torch import nn

from reproq import paths
from reproq.train import checkpoint, retrain
from reproq.train.executors import DaskExecutor, check
from reproq.train.grid import RunResult, RunStore, run_grid
from reproq.train.loop import fit

pytestmark = pytest.mark.slow
cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import a test module by name


def key(config: str, seed: int) -> str:
    return f"{seed:016d}"


def toy_run(root: str, seed: int) -> RunResult:
    """A tiny model fitted with its checkpoint in the folder :class:`RunStore` keeps its record in."""
    torch.manual_seed(seed)
    model = nn.Linear(3, 1)
    x = torch.randn(32, 3, generator=torch.Generator().manual_seed(0))
    state = fit(model, lambda m, b: ((m(b) - 1.0) ** 2).mean(), torch.optim.SGD(model.parameters(), lr=0.1),
                lambda epoch: [x], epochs=2, checkpoint_dir=checkpoint.folder(root, key(root, seed)), fingerprint="toy",
                evaluate_untrained=False)
    return RunResult(root, seed, state.history, 2, 2, {"dev": {"score": float(seed)}}, 4, 0.0)


@pytest.fixture
def cluster(tmp_path):
    """A Dask scheduler and one worker, started here as separate processes without the runner's environment."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    env = {k: v for k, v in os.environ.items() if k != retrain.RETRAIN_BATCH}
    env["PYTHONPATH"] = os.pathsep.join([str(paths.ROOT), env.get("PYTHONPATH", "")])
    logs = tmp_path / "cluster.log"
    with open(logs, "w") as log:
        procs = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                                   "--port", str(port), "--dashboard-address", ":0"], env=env, stdout=log, stderr=log)]
        procs.append(subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address, "--nworkers", "1",
                                       "--nthreads", "1", "--dashboard-address", ":0"], env=env, stdout=log, stderr=log))
    executor = DaskExecutor(address=address)
    try:
        executor.client.wait_for_workers(1, timeout=120)
        check("dask", address=address)  # a real scheduler passes the runner's check (its handshake too)
        yield executor
    finally:
        executor.close()
        for p in procs:
            p.kill()
            p.wait()


def test_retrain_on_an_external_cluster_trains_every_run_again(cluster, tmp_path, monkeypatch):
    monkeypatch.delenv(retrain.RETRAIN_BATCH, raising=False)
    root = str(tmp_path / "runs")
    store = RunStore(root, key=key)
    run_grid(toy_run, [root], [1, 2], metric="score", executor=cluster, store=store)

    def written_by() -> list[tuple[str, str]]:
        """Each run's (record's batch, checkpoint's batch)."""
        return [(json.loads(store.path(root, s).read_text())["batch"],
                 json.loads((store.path(root, s).parent / checkpoint.DIGEST).read_text())["batch"]) for s in (1, 2)]

    assert written_by() == [("", ""), ("", "")]
    monkeypatch.setenv(retrain.RETRAIN_BATCH, "b2")  # the runner's kernel, told to retrain; the worker is not
    run_grid(toy_run, [root], [1, 2], metric="score", executor=cluster, store=store)
    assert written_by() == [("b2", "b2"), ("b2", "b2")]  # every run trained again, during this batch
    assert all(not Path(p).name.endswith(".untrusted") for p in Path(root).rglob("*"))
