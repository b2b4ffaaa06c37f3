"""The settings a run goes by that are not a notebook's parameters, named in one place: torch's and MKL's threads,
torch's allocator (huge pages), where the grids' runs execute (executor, Dask address, workers), the retraining batch,
the RCNN kernel, and whether the run writes the committed study (``reproq run --commit``) or its own run folder
(:func:`reproq.paths.output_dirs`).

``reproq run`` passes them to every process it starts (the notebook kernels, and from these their Dask workers) as the
environment variables :data:`VARIABLES` names, set here (:func:`environment`) and read here (:func:`read`): no other
module names them. :func:`current` is what this process goes by; a trained run keeps the settings it was trained under
(:class:`reproq.train.loop.FitState`) and its records carry them (``Record.run``), so that a number says how it was
run. Importing reproq sets none of them.
"""

from __future__ import annotations

import contextlib
import os

VARIABLES = {"threads": "OMP_NUM_THREADS", "mkl_threads": "MKL_NUM_THREADS", "allocator": "THP_MEM_ALLOC_ENABLE",
             "executor": "REPROQ_EXECUTOR", "address": "REPROQ_DASK_ADDRESS", "workers": "REPROQ_WORKERS",
             "retrain_batch": "REPROQ_RETRAIN_BATCH", "rcnn_kernel": "REPROQ_RCNN_KERNEL",
             "committed": "REPROQ_WRITE_COMMITTED"}

# One thread unless asked for more (--threads, or OMP_NUM_THREADS): the committed results were made with one, a run
# repeats them only at the same count, and on a 2-core machine that is busy elsewhere two threads fight for one free
# core (measured: docs/guide/running.md, "Threads").
STUDY_THREADS = 1


def read(name: str, default: str = "") -> str:
    """The setting ``name`` (a key of :data:`VARIABLES`) as this process's environment gives it."""
    return os.environ.get(VARIABLES[name], default)


def current() -> dict[str, str]:
    """Every setting this process goes by (``""`` where unset), torch's threads as torch counts them.

    >>> sorted(current()) == sorted(VARIABLES)
    True
    """
    import torch

    return {**{name: read(name) for name in VARIABLES}, "threads": str(torch.get_num_threads())}


@contextlib.contextmanager
def environment(**settings: str | None):
    """The settings ``settings`` (keys of :data:`VARIABLES`; None: unset) while the block runs, restored after: what
    the processes started inside it (notebook kernels, Dask workers, benchmarks) inherit."""
    unknown = sorted(set(settings) - set(VARIABLES))
    if unknown:
        raise ValueError(f"no run setting {', '.join(unknown)}; there are: {', '.join(VARIABLES)}")
    values = {VARIABLES[name]: value for name, value in settings.items()}
    saved = {k: os.environ.get(k) for k in values}

    def put(variables):
        for key, value in variables.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value

    put(values)
    try:
        yield
    finally:
        put(saved)


def the_studys() -> str:
    """Give this process the study's settings where nothing set them — a notebook opened in JupyterLab rather than
    started by ``reproq run``, which always sets them: torch at :data:`STUDY_THREADS` thread(s), so that its numbers
    are the committed ones. What was set, in one line; empty where the settings were given."""
    import torch

    if read("threads"):
        return ""
    torch.set_num_threads(STUDY_THREADS)
    return (f"run settings: torch at {STUDY_THREADS} thread(s), the study's (OMP_NUM_THREADS is not set, so this was "
            "not started by `reproq run`), so that its numbers are the committed ones")
