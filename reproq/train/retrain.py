"""What ``reproq run --retrain`` changes: checkpoints and run records cached before the batch started are not reused.

The runner sets :data:`RETRAIN_BEFORE` for the notebooks' kernels (and the Dask workers they start); a cached file
written earlier is then treated as absent, and the run trains again and overwrites it. What the same batch writes is
reused as always (a notebook that reads another's finished run, a run resumed after a kill).
"""

from __future__ import annotations

import os
from pathlib import Path

RETRAIN_BEFORE = "REPROQ_RETRAIN_BEFORE"  # seconds since the epoch, set by the runner


def reusable(path: Path) -> bool:
    """Whether the cached file ``path`` may be reused: yes, unless the batch asked to retrain what was cached
    before it started."""
    before = os.environ.get(RETRAIN_BEFORE)
    return not before or path.stat().st_mtime >= float(before)
