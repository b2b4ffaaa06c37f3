"""PeakMemory counts a peak that falls between two of its looks (Linux keeps each process's peak)."""

import subprocess
import sys
import time

import pytest

from reproq.peak_memory import KEPT_PEAK, PeakMemory, high_water_mark

pytestmark = pytest.mark.skipif(high_water_mark() is None, reason="the system keeps no peak resident memory")


def test_a_childs_short_peak_between_two_looks_counts():
    # the child holds 300 MB for 0.2 s, well inside the first of two looks 10 s apart, then idles until it is read
    script = "import time; time.sleep(0.3); b = b'x' * (300 << 20); time.sleep(0.2); del b; time.sleep(30)"
    child = subprocess.Popen([sys.executable, "-c", script])
    try:
        with PeakMemory(every=10.0) as memory:
            time.sleep(1.5)
    finally:
        child.kill()
        child.wait()
    assert memory.peak_mb > 300 and memory.how == KEPT_PEAK


def test_own_peak_is_reset_on_entry_and_counts_a_short_peak():
    with PeakMemory(every=10.0, children=False) as first:
        block = b"x" * (300 << 20)
        del block
    with PeakMemory(every=10.0, children=False) as second:
        pass
    assert first.peak_mb - second.peak_mb > 250 and not first.sampled


def test_a_child_that_has_ended_but_is_not_yet_reaped_leaves_the_reading_a_kept_peak():
    zombie = subprocess.Popen([sys.executable, "-c", "pass"])
    time.sleep(1.0)  # it has exited; without a wait() it stays a zombie, whose status has no VmHWM
    try:
        with PeakMemory(every=10.0) as memory:
            pass
    finally:
        zombie.wait()
    assert memory.how == KEPT_PEAK
