"""Executors return results in the items' order; a run's stored record reads back as the run it was."""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import os

import numpy as np
import pytest

from reproq import notebook_json
from reproq.train import executors
from reproq.train.executors import Sequential, executor
from reproq.train.grid import RunResult, RunStore, run_grid


def fake_run(config: str, seed: int) -> RunResult:
    history = [{"epoch": 0, "loss": math.nan, "dev_MRR": np.float32(0.25)}, {"epoch": 1, "loss": 0.5, "dev_MRR": 0.5}]
    return RunResult(config, seed, history, 1, 1, {"dev": {"MRR": np.float64(0.5 + seed / 100)}}, np.int64(7), 1.0)


def test_sequential_keeps_the_order_and_reports_each_run():
    finished = []
    assert Sequential().map(lambda a, b: a * b, [(1, 2), (3, 4)], done=lambda i, r: finished.append((i, r))) == [2, 12]
    assert finished == [(0, 2), (1, 12)]


def test_a_stored_run_reads_back_as_it_was(tmp_path):
    store = RunStore(tmp_path, key=lambda config, seed: f"{config}-{seed:040d}")
    run = fake_run("a", 3)
    assert store.load("a", 3) is None
    store.save(run)
    back = store.load("a", 3)
    assert back.config == "a" and back.scores == run.scores and back.n_parameters == 7 and back.seconds == 1.0
    assert math.isnan(back.history[0]["loss"]) and back.history[0]["dev_MRR"] == run.history[0]["dev_MRR"]
    assert back.history[1:] == run.history[1:]
    assert json.loads(store.path("a", 3).read_text())["name"] == "a seed 3"  # beside its hashed folder
    with pytest.raises(TypeError, match="not a number"):
        store.save(RunResult("b", 1, [{"loss": object()}], 1, 1, {}, 0, 0.0))


def test_every_kind_of_training_run_has_a_readable_name():
    from reproq.answer_selection.inputs import TrainConfig as AnswerConfig
    from reproq.models.answer_ranker import RankerConfig
    from reproq.question_retrieval.inputs import TrainConfig as RetrievalConfig
    from reproq.train.grid import run_name

    assert run_name(AnswerConfig(ranker=RankerConfig(method="CTRN", hidden_dim=64)), 2) == (
        "CTRN m=300 d=64 h=128 on train lr=0.001 batch=64 alignment=literal seed 2")
    assert run_name(RetrievalConfig(encoder="cnn"), 1) == "cnn() last title+body lr=0.001 dropout=0.1 seed 1"


def test_a_grid_records_each_runs_peak_memory_and_skips_stored_runs(tmp_path):
    store, calls = RunStore(tmp_path, key=lambda config, seed: f"{config}{seed}".ljust(16, "0")), []

    def counted(config, seed):
        calls.append((config, seed))
        return fake_run(config, seed)

    grid = run_grid(counted, ["a", "b"], [1, 2], metric="MRR", executor=Sequential(), store=store)
    assert grid.best == "a" and calls == [("a", 1), ("a", 2), ("b", 1), ("b", 2)]
    assert all(run.peak_memory_mb > 10 for run in grid.best_runs)
    again = run_grid(counted, ["b", "c"], [1, 2], metric="MRR", executor=Sequential(), store=store)
    assert calls[4:] == [("c", 1), ("c", 2)] and list(again.runs) == ["b", "c"]


def test_an_unknown_executor_is_named():
    with pytest.raises(ValueError, match="unknown executor 'ray'; choose one of local, dask"):
        executor("ray")
    assert executor("local").name == "local"


def test_a_scheduler_address_is_checked_before_anything_runs():
    import socket

    from reproq.train.executors import check

    with socket.socket() as listening:  # something that listens but does not speak Dask: the grid waited for ever
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        with pytest.raises(ValueError, match=r"something listens at tcp://127.0.0.1:\d+, but no Dask scheduler "
                                             r"answered within 10 s"):
            check("dask", address=f"tcp://127.0.0.1:{listening.getsockname()[1]}")
        free = listening.getsockname()[1]
    with pytest.raises(ValueError, match=f"no Dask scheduler answers at tcp://127.0.0.1:{free}"):
        check("dask", address=f"tcp://127.0.0.1:{free}")
    with pytest.raises(ValueError, match="must look like tcp://HOST:PORT"):
        check("dask", address="http://scheduler")


def test_a_listener_announcing_a_huge_frame_is_no_scheduler_in_one_line():
    """Issue 55: a listener that announced a 2^62-byte frame made a 4 EiB allocation and a MemoryError traceback."""
    import socket
    import struct
    import threading

    from reproq.train.executors import check

    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen()

        def announce():
            peer, _ = listening.accept()
            with peer:
                peer.sendall(struct.pack("<Q", 2 ** 62))
                peer.recv(1 << 16)

        threading.Thread(target=announce, daemon=True).start()
        with pytest.raises(ValueError, match=r"something listens at tcp://127.0.0.1:\d+, but no Dask") as caught:
            check("dask", address=f"tcp://127.0.0.1:{listening.getsockname()[1]}")
    assert len(str(caught.value).splitlines()) == 1


def test_retrain_reuses_nothing_cached_before_the_batch(tmp_path, monkeypatch, capsys):
    from reproq.train import checkpoint, retrain

    store, calls = RunStore(tmp_path, key=lambda config, seed: f"{config}{seed}".ljust(16, "0")), []

    def counted(config, seed):
        calls.append((config, seed))
        return fake_run(config, seed)

    checkpoint.save(tmp_path / "a1".ljust(16, "0"), {"epoch": 1})
    run_grid(counted, ["a"], [1, 2], metric="MRR", executor=Sequential(), store=store)
    run_grid(counted, ["a"], [1, 2], metric="MRR", executor=Sequential(), store=store)
    said = capsys.readouterr().err
    assert len(calls) == 2 and "2 of 2 runs reused from" in said  # said, not silent
    # as the runner's line and the kept copy read it (reproq.notebook_json.REUSED): said there, not on the page
    assert [notebook_json.REUSED.fullmatch(line)[2] for line in said.splitlines()] == ["2"]
    future = store.path("a", 1).stat().st_mtime + 10 ** 6
    os.utime(store.path("a", 1), (future, future))  # a record dated in the future: no clock decides
    monkeypatch.setenv(retrain.RETRAIN_BATCH, "b2")  # `reproq run --retrain`: a batch of its own
    assert checkpoint.load(tmp_path / "a1".ljust(16, "0")) is None
    run_grid(counted, ["a"], [1, 2], metric="MRR", executor=Sequential(), store=store)
    assert calls[2:] == [("a", 1), ("a", 2)]
    assert json.loads(store.path("a", 1).read_text())["batch"] == "b2"  # each record names the batch that ran it
    run_grid(counted, ["a"], [1, 2], metric="MRR", executor=Sequential(), store=store)  # what b2 wrote is reused
    assert len(calls) == 4


def test_a_forged_checkpoint_dated_in_the_future_is_not_reused_under_retrain(tmp_path, monkeypatch):
    """Issue 55 (held since 6c072d8): a checkpoint forged before `reproq run --retrain` (sealed with its digest as the
    study seals one, the run's record written over it), then dated a year ahead with its digest and the record, is not
    resumed and its run trains again: the batch that wrote a file decides, no clock (the test above dates the record
    only)."""
    import time

    from reproq.train import checkpoint, retrain

    monkeypatch.delenv(retrain.RETRAIN_BATCH, raising=False)
    store = RunStore(tmp_path, key=lambda config, seed: f"{config}{seed}".ljust(16, "0"))
    folder = store.path("a", 1).parent
    checkpoint.save(folder, {"epoch": 9, "forged": True})
    store.save(fake_run("a", 1))
    future = time.time() + 365 * 24 * 3600
    for written in (folder / checkpoint.FILE, folder / checkpoint.DIGEST, store.path("a", 1)):
        os.utime(written, (future, future))
    assert store.load("a", 1) is not None  # whole as written: only the batch refuses it below
    monkeypatch.setenv(retrain.RETRAIN_BATCH, "b2")
    assert checkpoint.load(folder) is None and store.load("a", 1) is None
    calls = []
    run_grid(lambda c, s: calls.append((c, s)) or fake_run(c, s), ["a"], [1], metric="MRR", executor=Sequential(),
             store=store)
    assert calls == [("a", 1)] and json.loads(store.path("a", 1).read_text())["batch"] == "b2"


@pytest.mark.parametrize("damage", ["a score", "the checkpoint"])
def test_a_record_whose_numbers_or_checkpoint_changed_is_not_reused(tmp_path, damage):
    import json

    from reproq.train import checkpoint

    store = RunStore(tmp_path, key=lambda config, seed: f"{config}{seed}".ljust(16, "0"))
    checkpoint.save(store.path("a", 1).parent, {"epoch": 1})
    store.save(fake_run("a", 1))
    assert store.load("a", 1) is not None
    if damage == "a score":  # the attack of issue 33: every score of a cached run.json set by hand
        record = json.loads(store.path("a", 1).read_text())
        record["scores"]["dev"]["MRR"] = 0.987654
        store.path("a", 1).write_text(json.dumps(record))
    else:
        checkpoint.save(store.path("a", 1).parent, {"epoch": 2})
    with pytest.warns(RuntimeWarning, match="changed since the run finished; it trains again from its start"):
        assert store.load("a", 1) is None
    assert checkpoint.load(store.path("a", 1).parent) is None  # set aside: never resumed, never re-scored


def test_a_run_record_that_is_not_an_object_is_one_warning_and_the_run_trains_again(tmp_path):
    """Issue 55: a run.json that is a list was "'list' object has no attribute 'get'", and every rerun failed until
    the file was found."""
    store = RunStore(tmp_path, key=lambda config, seed: f"{config}{seed}".ljust(16, "0"))
    store.save(fake_run("a", 1))
    store.path("a", 1).write_text("[1, 2]")
    with pytest.warns(RuntimeWarning, match=r"run.json: not a run's record \(a JSON list, not an object\)"):
        assert store.load("a", 1) is None
    calls = []
    with pytest.warns(RuntimeWarning, match="not a run's record"):
        run_grid(lambda c, s: calls.append((c, s)) or fake_run(c, s), ["a"], [1], metric="MRR", executor=Sequential(),
                 store=store)
    assert calls == [("a", 1)] and store.load("a", 1) is not None  # trained again, and its record written over


DIES_ONCE = '''import os, pathlib
marker = pathlib.Path(os.environ["REPROQ_TEST_DIED_ONCE"])
def dask_setup(worker):  # the first worker to start dies while it starts, as a killed one would
    if not marker.exists():
        marker.write_text("died")
        os._exit(1)
'''


@pytest.mark.slow
def test_a_worker_lost_while_the_local_cluster_starts_costs_one_more_start(tmp_path, monkeypatch):
    """Issue 42: a worker killed during start-up failed the grid with "Nanny failed to start", never retried."""
    import dask
    import distributed  # noqa: F401  (its defaults in dask.config before the set below, kept after it)

    from reproq.train.executors import DaskExecutor, _client

    (tmp_path / "dies_once.py").write_text(DIES_ONCE)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setenv("REPROQ_TEST_DIED_ONCE", str(tmp_path / "died"))
    monkeypatch.syspath_prepend(str(tmp_path))
    _client.cache_clear()
    dask_executor = DaskExecutor(workers=2, threads=1)
    try:
        with dask.config.set({"distributed.worker.preload": ["dies_once"]}), \
                pytest.warns(RuntimeWarning, match="failed to start .*starting the cluster once more"):
            assert dask_executor.map(math.sqrt, [(4.0,), (9.0,)]) == [2.0, 3.0]
        assert (tmp_path / "died").exists()  # a worker did die as it started
    finally:
        dask_executor.close()


def _timed_run(config: str, seed: int) -> RunResult:
    """A run that takes a moment and says where and when it ran (in its settings)."""
    import time

    from distributed import get_worker

    began = time.monotonic()
    time.sleep(0.4)
    run = fake_run(config, seed)
    return dataclasses.replace(run, settings={"worker": get_worker().address, "began": began,
                                              "ended": time.monotonic()})


@pytest.mark.slow
def test_workers_that_declare_a_gpu_run_one_run_each_at_a_time_and_say_which_device():
    """Issue 56: on a cluster of GPU workers (each `dask worker --resources GPU=1`) one run per GPU at a time, each
    run saying the device it had; here two workers declare a GPU they do not have, with two threads each (which
    without the resource would run two runs side by side on a worker), and the runs equal the local backend's."""
    from distributed import LocalCluster

    from reproq.train.executors import DaskExecutor

    items = [(c, s) for c in ("a", "b", "c") for s in (1, 2)]
    with LocalCluster(n_workers=2, threads_per_worker=2, processes=True, dashboard_address=None,
                      resources={"GPU": 1}) as cluster:
        ran = DaskExecutor(cluster.scheduler_address, threads=1).map(_timed_run, items)
        assert executors.gpu_resources(executors._client(cluster.scheduler_address, 1, 1)) == {"GPU": 1}
        executors._client.cache_clear()
    def numbers(runs):
        return [(r.config, r.seed, r.scores, r.history[1:], r.best_epoch) for r in runs]

    assert numbers(ran) == numbers(Sequential().map(fake_run, items))  # the local backend's runs
    assert {run.settings["device"] for run in ran} == {"cpu"}  # no GPU here: the device each run had
    by_worker = {}
    for run in ran:
        by_worker.setdefault(run.settings["worker"], []).append((run.settings["began"], run.settings["ended"]))
    for spans in by_worker.values():  # never two runs at once on one worker
        spans.sort()
        assert all(ended <= began for (_, ended), (began, _) in zip(spans, spans[1:])), spans


def test_a_record_scored_for_other_cut_offs_is_scored_again_not_reused(tmp_path):
    # notebook 12 stored QatarLiving runs without P@1; notebook 06, asking for P@1, reused them and failed on 'P@1'
    def key(config, seed):
        return f"{config}{seed}".ljust(16, "0")

    def run_one(ks, config, seed):
        calls.append(ks)
        return RunResult(config, seed, [], 1, 1, {"dev": {"MAP": 0.5}, "test": {f"P@{k}": 1.0 for k in ks}}, 3, 1.0)

    calls = []
    for ks in ((), (1,), (1,), ()):
        store = RunStore(tmp_path, key=key, scoring={"ks": list(ks)})
        grid = run_grid(functools.partial(run_one, ks), ["a"], [0], metric="MAP", store=store)
        assert set(grid.best_runs[0].test) == {f"P@{k}" for k in ks}
    assert calls == [(), (1,), ()]  # the second (1,) is reused
