"""Speed benchmarks (``reproq bench``): each module's ``main(out, profile=)`` writes its numbers to a file,
as ratios against a reference measured in the same run — never a timed test."""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from reproq.atomic import write_text

if TYPE_CHECKING:  # torch is imported where it is used
    import torch


def huge_pages() -> dict[str, str | None]:
    """Whether torch's allocator asks for transparent huge pages (``THP_MEM_ALLOC_ENABLE``, which importing reproq
    sets) and what the kernel grants (``[madvise]``: on request): page faults move every ratio that allocates."""
    system = Path("/sys/kernel/mm/transparent_hugepage/enabled")
    return {"THP_MEM_ALLOC_ENABLE": os.environ.get("THP_MEM_ALLOC_ENABLE"),
            "transparent_hugepage": system.read_text().strip() if system.exists() else None}


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


def paired_ratios(times: Mapping[str, list[float]], reference: str) -> dict[str, float]:
    """Each step's speed relative to ``reference`` (its time over the step's), taken round by round of
    :func:`interleaved` and the median kept: a round slowed by the machine slows both sides of its ratio."""
    return {name: statistics.median(r / t for r, t in zip(times[reference], ts)) for name, ts in times.items()}


def load_warning(before: tuple[float, ...], after: tuple[float, ...]) -> str | None:
    """A warning when the 1-minute load average before or after the run exceeded the core count (then another job
    was competing for the cores, and absolute times say little), else None."""
    cores = os.cpu_count() or 1
    worst = max(before[0], after[0])
    if worst <= cores:
        return None
    return (f"the load average reached {worst:.1f} on {cores} cores during this benchmark: other work competed for "
            f"the CPU, so its times are inflated; trust the paired ratios more, and rerun on a quiet machine")
