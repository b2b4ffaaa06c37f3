"""Where a grid's training runs execute: here, one after another (the default), or on a Dask cluster.

A paper's grid is configurations × seeds of independent training runs (Lei et al. Table 2 alone is some 180
configurations × 5 seeds at the ``paper`` profile). :func:`reproq.train.grid.run_grid` hands them to an executor,
which calls ``fn(*item)`` for every item and returns the results in the items' order, whatever order they finished
in — so both backends give the same records in the same order.

- :class:`Sequential`: in this process, in order. The default, and what every committed result used.
- :class:`DaskExecutor`: on a Dask cluster (``dask.distributed``): a local cluster of worker processes started for
  the purpose, or a running one at ``address`` (``tcp://host:8786``, from ``dask scheduler`` and ``dask worker`` on
  the machines, or from dask-jobqueue on SLURM/PBS, dask-kubernetes, ...). The run function, with the prepared
  data it carries, is one task's result, fetched once by each worker that needs it; each run is one task. When a
  worker dies (killed, out of memory) while it receives that data or mid-run, the scheduler gives its tasks to
  another worker (up to ``distributed.scheduler.allowed-failures`` times, 3 by default); a run that raises is tried
  again ``retries`` times. Each worker process runs one run at a
  time with the same torch thread count as a local run, so its numbers are the local run's. Workers that declare a
  GPU (``dask worker --resources GPU=1``, one per GPU: :func:`gpu_resources`) each run one run at a time on it, and
  each run's settings say which device it had.

Why Dask and not Ray: both would do. Dask's ``distributed`` is a pure-Python wheel of a few MB that starts a
scheduler and workers in a second on a laptop and connects to the usual HPC schedulers through dask-jobqueue;
Ray brings a ~200 MB wheel and its daemons (raylet, object store, dashboard) for features a grid of independent
runs does not use (actors, a shared-memory object store), which on the 2-core machines of this project cost
memory that the runs need.

Runs on a remote cluster write their checkpoints where ``checkpoint_root`` points: a file system every worker
sees (and the client, which keeps each finished run's record there: :class:`reproq.train.grid.RunStore`).

``reproq run --executor dask [--address ...] [--workers N]`` sets this for the notebooks through the environment
(the run settings ``executor``, ``address`` and ``workers`` of :mod:`reproq.run_settings`, read by
:func:`from_environment`); nothing in a notebook names the executor.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import warnings
from collections.abc import Callable, Sequence
from typing import Protocol

from reproq import run_settings

BACKENDS = ("local", "dask")


class Executor(Protocol):
    name: str

    def map(self, fn: Callable, items: Sequence[tuple], *,
            done: Callable[[int, object], None] | None = None) -> list:
        """``[fn(*item) for item in items]``, in the items' order; ``done(i, result)`` as each one finishes."""


class Sequential:
    """Every run in this process, one after another."""

    name = "local"

    def map(self, fn, items, *, done=None):
        results = []
        for i, item in enumerate(items):
            results.append(fn(*item))
            if done is not None:
                done(i, results[-1])
        return results


def _identity(value):
    """``value`` itself: a task whose result is the data it was given."""
    return value


GPU = "GPU"  # the Dask worker resource a worker with a GPU declares (`dask worker --resources GPU=1`)


def _with_threads(threads: int, fn: Callable, *item):
    """``fn(*item)`` on a worker, with torch's intra-op thread count of the run this stands for; a training run's
    result says which device its worker gave it (its settings' ``device``: the GPU the worker sees, or ``cpu``)."""
    import torch

    torch.set_num_threads(threads)
    result = fn(*item)
    if dataclasses.is_dataclass(result) and isinstance(getattr(result, "settings", None), dict):
        result = dataclasses.replace(result, settings={**result.settings, "device": _worker_device()})
    return result


def _worker_device() -> str:
    """The device a run on this worker uses: its GPU (name, and ``CUDA_VISIBLE_DEVICES`` where set), else ``cpu``."""
    import torch

    if not torch.cuda.is_available():
        return "cpu"
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    return f"cuda:0 ({torch.cuda.get_device_name(0)}" + (f", CUDA_VISIBLE_DEVICES={visible})" if visible else ")")


def gpu_resources(client) -> dict[str, int] | None:
    """``{"GPU": 1}`` where the cluster's workers declare GPUs (:data:`GPU`): each run then asks for one, so that a
    worker runs one run on its GPU at a time, whatever its thread count; None on a cluster without."""
    workers = client.scheduler_info().get("workers", {}).values()
    return {GPU: 1} if any(w.get("resources", {}).get(GPU) for w in workers) else None


class DaskExecutor:
    """Runs on a Dask cluster: the one at ``address``, or a local one of ``workers`` processes (default: as many
    as the cores allow at ``threads`` torch threads each) started on first use and kept for the process."""

    name = "dask"

    def __init__(self, address: str | None = None, *, workers: int | None = None, threads: int | None = None,
                 retries: int = 2):
        import torch

        self.address, self.retries = address, retries
        self.threads = threads or torch.get_num_threads()
        self.workers = workers or max(1, (os.cpu_count() or 1) // self.threads)

    @property
    def client(self):
        return _client(self.address, self.workers, self.threads)

    def close(self) -> None:
        """Stop the local cluster (or leave the remote one) this executor started; the next use starts afresh."""
        client = self.client
        cluster = client.cluster if self.address is None else None
        client.close()
        if cluster is not None:
            cluster.close()
        _client.cache_clear()

    def map(self, fn, items, *, done=None):
        from distributed import as_completed
        from tqdm.auto import tqdm

        client = self.client
        # the run function and its data, held by one worker as a task's result and fetched from it by the others: a
        # worker lost while receiving it costs that task again (a broadcast scatter to a dead worker waits for ever)
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Large object", category=UserWarning)  # that is its point
            shared = client.submit(_identity, fn, pure=False)
        resources = gpu_resources(client)
        futures = [client.submit(_with_threads, self.threads, shared, *item, pure=False, retries=self.retries,
                                 resources=resources) for item in items]
        index = {future.key: i for i, future in enumerate(futures)}
        results = [None] * len(futures)
        # the workers' own progress bars go to their logs; this one says how the grid advances
        with tqdm(total=len(futures), desc=f"runs on Dask ({self.address or f'{self.workers} local workers'})",
                  unit="run") as bar:
            for future in as_completed(futures):
                i = index[future.key]
                results[i] = future.result()  # raises the run's own error once its retries are spent
                if done is not None:
                    done(i, results[i])
                bar.update()
        return results


@functools.lru_cache(maxsize=None)
def _client(address: str | None, workers: int, threads: int):
    """One client per cluster for the life of this process (a local cluster starts in a second or two)."""
    from distributed import Client, LocalCluster

    if address is not None:
        return Client(address)
    # one run at a time per worker process, each with the run's torch threads (workers start with these set)
    env = {"OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads)}
    for attempt in (1, 2):  # a worker lost while it starts (killed, out of memory) costs one more start
        try:
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                                   env=env)
            break
        except (RuntimeError, OSError) as exc:  # "Nanny failed to start", a start-up timeout
            if attempt == 2:
                raise RuntimeError(f"a local Dask cluster of {workers} workers failed to start twice ({exc}); "
                                   "--executor local runs the grid without one") from None
            warnings.warn(f"a worker of the local Dask cluster failed to start ({exc}); starting the cluster once "
                          "more", RuntimeWarning, stacklevel=2)
    return Client(cluster)


def check(name: str = "local", *, address: str | None = None, workers: int | None = None) -> None:
    """Raise ValueError unless ``name`` (:data:`BACKENDS`) with ``address`` and ``workers`` is a valid executor (the
    runner checks before any notebook starts)."""
    if name not in BACKENDS:
        raise ValueError(f"unknown executor {name!r}; choose one of {', '.join(BACKENDS)}")
    if name == "local" and (address is not None or workers is not None):
        raise ValueError("address and workers (--address, --workers) are for the dask executor; the local one runs "
                         "in the notebook's own process")
    if workers is not None and workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    if address is not None:
        _answers(address)


def _answers(address: str, timeout: float = 5.0) -> None:
    """ValueError unless something listens at the scheduler ``address`` (``tcp://host:port``): found before any
    notebook starts, not half a minute into the first grid."""
    import socket
    from urllib.parse import urlsplit

    parts = urlsplit(address if "://" in address else f"tcp://{address}")
    try:
        host, port = parts.hostname, parts.port
    except ValueError:
        host = port = None
    if parts.scheme not in ("tcp", "tls") or not host or not port:
        raise ValueError(f"--address must look like tcp://HOST:PORT (a Dask scheduler's), got {address!r}")
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as exc:
        raise ValueError(f"no Dask scheduler answers at {address} ({exc.strerror or exc}): start one there "
                         "(`dask scheduler`), or leave --address out for a local cluster") from None
    _handshake(address, 2 * timeout)


def _handshake(address: str, timeout: float) -> None:
    """ValueError unless a Dask scheduler answers at ``address`` within ``timeout`` seconds: something else listening
    there (another server) would leave the first grid waiting for ever."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from distributed.comm import connect

    async def identity():
        comm = await connect(address, timeout=timeout)
        try:
            await comm.write({"op": "identity"})
            return await comm.read()
        finally:
            await comm.close()

    try:  # in a thread of its own: a notebook's kernel already runs an event loop
        with ThreadPoolExecutor(1) as thread:
            answer = thread.submit(asyncio.run, asyncio.wait_for(identity(), timeout)).result()
        if not (isinstance(answer, dict) and answer.get("type") == "Scheduler"):
            raise OSError(f"it answered {type(answer).__name__}, not a scheduler's identity")
    except Exception as exc:  # noqa: BLE001 - whatever a listener that is no scheduler makes of it (a frame
        # announced as 2^62 bytes was a 4 EiB allocation's MemoryError): not a Dask scheduler
        raise ValueError(f"something listens at {address}, but no Dask scheduler answered within {timeout:.0f} s "
                         f"({str(exc).splitlines()[0] if str(exc) else type(exc).__name__}): give the address of a "
                         "`dask scheduler`, or leave --address out for a local cluster") from None


def executor(name: str = "local", *, address: str | None = None, workers: int | None = None) -> Executor:
    """The executor called ``name`` (:data:`BACKENDS`), its settings checked (:func:`check`)."""
    check(name, address=address, workers=workers)
    return Sequential() if name == "local" else DaskExecutor(address, workers=workers)


def from_environment() -> Executor:
    """The executor ``reproq run --executor ...`` chose for this notebook (its run settings), local without
    one."""
    workers = run_settings.read("workers")
    return executor(run_settings.read("executor") or "local", address=run_settings.read("address") or None,
                    workers=int(workers) if workers else None)
