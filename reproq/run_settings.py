"""The settings a run goes by that are not a notebook's parameters, named in one place: torch's threads, where the
grids' runs execute (executor, Dask address, workers), the retraining batch, the RCNN kernel, and whether the run
writes the committed study (``reproq run --commit``) or its own run folder (:func:`reproq.paths.output_dirs`).

``reproq run`` passes them to every process it starts (the notebook kernels, and from these their Dask workers) as the
environment variables :data:`VARIABLES` names, and no other module names them; :func:`current` is what this process
goes by, and every record of a run carries it (``Record.run``), so that a number says how it was run. Importing reproq
sets none of them.
"""

from __future__ import annotations

import os

VARIABLES = {"threads": "OMP_NUM_THREADS", "executor": "REPROQ_EXECUTOR", "address": "REPROQ_DASK_ADDRESS",
             "workers": "REPROQ_WORKERS", "retrain_batch": "REPROQ_RETRAIN_BATCH", "rcnn_kernel": "REPROQ_RCNN_KERNEL",
             "committed": "REPROQ_WRITE_COMMITTED"}


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
