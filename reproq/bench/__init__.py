"""Speed benchmarks (``reproq bench``): each module's ``main(out, profile=)`` writes its numbers to a file,
as ratios against a reference measured in the same run — never a timed test."""

from __future__ import annotations

import platform
from pathlib import Path

import torch


def cpu_name() -> str:
    """The CPU's model name (Linux ``/proc/cpuinfo``), else what :mod:`platform` knows."""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def cpu_capability() -> str:
    """The vector instructions torch's CPU kernels use here (``"AVX2"``, ``"AVX512"``, …): ratios against
    ``torch.nn.LSTM`` move with it."""
    return torch.backends.cpu.get_cpu_capability()
