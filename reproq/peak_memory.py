"""The peak resident memory of a piece of work, sampled while it runs (torch-free: the notebook runner uses it).

``with PeakMemory() as memory: ...`` then ``memory.peak_mb``. ``children=True`` measures this process's children
together (the notebook runner: a notebook's kernel), ``children=False`` this process itself (a training run in a
sweep, :func:`reproq.train.grid.run_grid`).

Where the system keeps a process's peak (Linux: ``VmHWM`` in ``/proc/<pid>/status``), that is what is read every
``every`` seconds, so a peak between two looks still counts; the peak of this process is reset on entry
(``/proc/self/clear_refs``). Elsewhere the current resident memory is sampled, which can miss a peak shorter than
``every``; so was every peak recorded before this module read Linux's (the README's cost table marks them). Kept
peaks move between runs too: notebook 07's kernel peaked at 1,329 MB run after notebook 02 and at 2,274 MB run
alone (`reproq run --only`, 2026-11-24; cause not found). Children's peaks are summed, each its own: an upper
bound when several peak at different times (a notebook's kernel is one child). Measurements of this process that
overlap in time (runs on threads of one process) share its peak.
"""

from __future__ import annotations

import threading

KEPT_PEAK = "peak kept by the system"  # PeakMemory.how when every reading was a kept peak


def high_water_mark(pid: int | str = "self") -> int | None:
    """The peak resident bytes of process ``pid`` so far, as Linux keeps it (``VmHWM``); 0 for a process without
    memory of its own (a zombie: Linux writes no ``VmHWM`` then); None where it cannot be read."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024  # kB
        return 0
    except (OSError, ValueError, IndexError):
        return None


def _reset_own_high_water_mark() -> bool:
    """Linux's peak of this process set back to its current resident memory; False where that cannot be done."""
    try:
        with open("/proc/self/clear_refs", "w") as clear_refs:
            clear_refs.write("5")
    except OSError:
        return False
    return bool(high_water_mark())


class PeakMemory:
    def __init__(self, every: float = 0.5, *, children: bool = True):
        self.every, self.children, self.peak_mb = every, children, 0.0
        self._done = threading.Event()
        self._own_peak = False  # whether this process's peak was reset on entry and can be read
        self.sampled = False  # whether any reading was a sample of the current memory rather than a kept peak

    @property
    def how(self) -> str:
        """How :attr:`peak_mb` was read, for the records that keep it."""
        return f"sampled every {self.every:g} s" if self.sampled else KEPT_PEAK

    def _resident_bytes(self, me) -> int:
        import psutil

        def peak_or_current(process, peak: int | None) -> int:
            if peak is None:
                current = process.memory_info().rss  # raises for a process that has gone: it is then not counted
                self.sampled = True
                return current
            return peak

        if not self.children:
            return peak_or_current(me, high_water_mark() if self._own_peak else None)
        total = 0
        for child in me.children(recursive=True):
            try:
                total += peak_or_current(child, high_water_mark(child.pid))
            except psutil.Error:  # a child that ended between the listing and the reading
                pass
        return total

    def _sample(self) -> None:
        import psutil

        me = psutil.Process()
        while True:
            self.peak_mb = max(self.peak_mb, self._resident_bytes(me) / 2**20)
            if self._done.wait(self.every):
                break

    def __enter__(self) -> PeakMemory:
        self._own_peak = not self.children and _reset_own_high_water_mark()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._done.set()
        self._thread.join()
        import psutil

        self.peak_mb = max(self.peak_mb, self._resident_bytes(psutil.Process()) / 2**20)  # one last look
