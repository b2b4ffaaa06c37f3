"""Speed benchmarks (``reproq bench``): each module's ``main(out, profile=)`` writes its numbers to a file,
as ratios against a reference measured in the same run — never a timed test."""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from reproq import run_settings
from reproq.atomic import write_text

if TYPE_CHECKING:  # torch is imported where it is used
    import torch


def huge_pages() -> dict[str, str | None]:
    """Whether torch's allocator asks for transparent huge pages (``THP_MEM_ALLOC_ENABLE``, which ``reproq bench``
    and ``reproq run`` set) and what the kernel grants (``[madvise]``: on request): page faults move every ratio that allocates."""
    system = Path("/sys/kernel/mm/transparent_hugepage/enabled")
    return {"THP_MEM_ALLOC_ENABLE": run_settings.read("allocator") or None,
            "transparent_hugepage": system.read_text().strip() if system.exists() else None}


# glibc's malloc told to serve every allocation from its heap (never a fresh mmap) and to keep what is freed: then a
# tensor freed in one step is handed out again, warm, in the next, for every model alike — what the RCNN's own pool of
# buffers does for it alone (rcnn_kernel.cpp), which made torch.nn.LSTM pay page faults the RCNN did not
WARM_ALLOCATOR = {"MALLOC_MMAP_MAX_": "0", "MALLOC_TRIM_THRESHOLD_": str(2**40), "MALLOC_TOP_PAD_": str(2**26)}


def allocator() -> dict[str, str | None]:
    """The allocator conditions of this process: glibc's malloc settings of :data:`WARM_ALLOCATOR` as set here."""
    return {k: os.environ.get(k) for k in WARM_ALLOCATOR}


def in_warm_allocator(module: str, out_path: Path, profile: str) -> dict | None:
    """Run ``module``'s ``main(out_path, profile=)`` again in a child process under :data:`WARM_ALLOCATOR` (malloc reads
    its settings at start) and return what it wrote; None where this process already runs so (then measure here)."""
    import json
    import subprocess
    import sys

    if allocator() == WARM_ALLOCATOR:
        return None
    code = f"import sys; from pathlib import Path; from {module} import main; main(Path(sys.argv[1]), profile=sys.argv[2])"
    subprocess.run([sys.executable, "-c", code, str(out_path), profile], env={**os.environ, **WARM_ALLOCATOR},
                   check=True)
    return json.loads(Path(out_path).read_text())


def cpu_flags() -> list[str]:
    """The CPU's vector-instruction flags that torch's kernels may use (Linux ``/proc/cpuinfo``), sorted."""
    cpuinfo = Path("/proc/cpuinfo")
    if not cpuinfo.exists():
        return []
    flags = next((line.split(":", 1)[1].split() for line in cpuinfo.read_text().splitlines()
                  if line.startswith("flags")), [])
    return sorted(f for f in flags if f.startswith(("avx", "fma", "sse4", "amx", "f16c", "bmi")))


def seconds(step: Callable[[], object], device: torch.device) -> float:
    """Wall seconds of one ``step()``, waiting for a GPU to finish its queued work before and after."""
    import torch

    if device.type == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    step()
    if device.type == "cuda":
        torch.cuda.synchronize()
    return time.perf_counter() - start


def interleaved(steps: Mapping[str, Callable[[], object]], repeats: int, device: torch.device) -> dict[str, list[float]]:
    """Every step once to warm up, then ``repeats`` rounds of one timed call of each step in turn: a change in the
    machine's load falls on all alike, and ratios taken within the run survive it better than absolute times."""
    for step in steps.values():
        step()
    times: dict[str, list[float]] = {name: [] for name in steps}
    for _ in range(repeats):
        for name, step in steps.items():
            times[name].append(seconds(step, device))
    return times


def write_rows_csv(path: Path, rows: list[dict], formats: Mapping[str, str]) -> None:
    """The benchmark's rows as CSV (atomically): one column per key of ``formats``, formatted with its spec."""
    lines = [",".join(formats)] + [",".join(format(row[k], spec) for k, spec in formats.items()) for row in rows]
    write_text(Path(path), "\n".join(lines) + "\n")


def round_ratios(times: Mapping[str, list[float]], reference: str) -> dict[str, list[float]]:
    """Each step's speed relative to ``reference`` (its time over the step's) in each round of :func:`interleaved`."""
    return {name: [r / t for r, t in zip(times[reference], ts)] for name, ts in times.items()}


def paired_ratios(times: Mapping[str, list[float]], reference: str) -> dict[str, float]:
    """The median of :func:`round_ratios`: a round slowed by the machine slows both sides of its ratio."""
    return {name: statistics.median(ratios) for name, ratios in round_ratios(times, reference).items()}


def load_warning(before: tuple[float, ...], after: tuple[float, ...]) -> str | None:
    """A warning when the 1-minute load average before or after the run exceeded the core count (then another job
    was competing for the cores, and absolute times say little), else None."""
    cores = os.cpu_count() or 1
    worst = max(before[0], after[0])
    if worst <= cores:
        return None
    return (f"the load average reached {worst:.1f} on {cores} cores during this benchmark: other work competed for "
            f"the CPU, so its times are inflated; trust the paired ratios more, and rerun on a quiet machine")
