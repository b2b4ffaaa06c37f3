"""reproq: a reproduction study of neural question retrieval and answer ranking."""

import os

__version__ = "0.1.0"

# torch's CPU allocator backs buffers of 2 MB and more with transparent huge pages when this is set. torch reads it
# once, at its first allocation: hence here, before any reproq module imports torch (notebook kernels, Dask workers
# and benchmarks started from reproq inherit it). Without it, first-touch page faults of the RCNN's fresh
# [B, T, n+1, d] tensors were a fifth of its training step; the numbers do not change (tests/test_allocator.py).
# THP_MEM_ALLOC_ENABLE=0 turns it off. Measured: results/bench/README.md.
os.environ.setdefault("THP_MEM_ALLOC_ENABLE", "1")
