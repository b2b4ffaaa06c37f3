"""What machine a number was computed on: the CPU's name and the vector instructions torch's CPU kernels use.

Trained numbers of the same seed and thread count can move from one CPU to another (the kernels' order of float sums
follows the instructions they use), so every record names its machine (:attr:`reproq.results.Record.machine`) and
every benchmark its CPU. Torch is imported only where a capability is asked for: the notebook batch names the CPU
without it.
"""

from __future__ import annotations

import platform
from pathlib import Path


def cpu_name() -> str:
    """The CPU's model name (Linux ``/proc/cpuinfo``), else what :mod:`platform` knows."""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def cpu_capability() -> str:
    """The vector instructions torch's CPU kernels use here (``"AVX2"``, ``"AVX512"``, …)."""
    import torch

    return torch.backends.cpu.get_cpu_capability()


def describe(device: str) -> str:
    """One line for a record: the CPU, its kernels' instructions and torch's version for ``device`` "cpu"; a GPU is
    named by its device already (``"cuda:0 (<name>)"``), so only torch's version and CUDA's.

    >>> describe("cpu").count(", ") == 2
    True
    """
    import torch

    if device.startswith("cuda"):
        return f"torch {torch.__version__}, CUDA {torch.version.cuda}"
    return f"{cpu_name()}, {cpu_capability()}, torch {torch.__version__}"
