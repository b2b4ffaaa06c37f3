"""The peak resident memory of a piece of work, sampled while it runs (torch-free: the notebook runner uses it).

``with PeakMemory() as memory: ...`` then ``memory.peak_mb``. ``children=True`` measures this process's children
together (the notebook runner: a notebook's kernel), ``children=False`` this process itself (a training run in a
sweep, :func:`reproq.train.runs.run_grid`). Sampling every ``every`` seconds can miss a peak shorter than that.
"""

from __future__ import annotations

import threading


class PeakMemory:
    def __init__(self, every: float = 0.5, *, children: bool = True):
        self.every, self.children, self.peak_mb = every, children, 0.0
        self._done = threading.Event()

    def _resident_bytes(self, me) -> int:
        import psutil

        if not self.children:
            return me.memory_info().rss
        total = 0
        for child in me.children(recursive=True):
            try:
                total += child.memory_info().rss
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
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._done.set()
        self._thread.join()
        import psutil

        self.peak_mb = max(self.peak_mb, self._resident_bytes(psutil.Process()) / 2**20)  # one last look
