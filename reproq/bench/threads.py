"""How many torch threads a notebook should get, and what a notebook beside it costs: one training step timed at
each thread count on an idle machine, beside a competitor that keeps one core busy (another job, as on a shared
machine), and beside a twin, the same step at one thread in another process (another notebook, as ``reproq run``
puts them side by side).

The step is what the question-retrieval notebooks repeat most: an LSTM of the `cpu` profile's size (a quarter of
Lei et al.'s d = 240) encoding a batch of padded questions, forward and backward, with an Adam update. Each
setting runs in a fresh process (torch reads ``OMP_NUM_THREADS`` once, at import); the busy competitor is a Python
loop, the twin loops over the step until it is stopped. ``reproq run`` gives notebooks one thread by default
(:data:`reproq.run_settings.STUDY_THREADS`) and runs cores ÷ threads of them at once; the rows of this file are the
measurements behind both: a step beside its twin against the same step alone says how much slower a notebook runs
beside another than alone, what the sum of side-by-side notebooks' own times overstates a serial run by.
"""

from __future__ import annotations

import json
import os
import select
import statistics
import subprocess
import sys
from pathlib import Path

from reproq.atomic import write_json
from reproq.bench import write_rows_csv
from reproq.machine import cpu_name
from reproq.profiles import get as get_profile
from reproq.results import code_version

_STEP = """
import json, sys, time, torch
from reproq.models import build_encoder
batch, length, hidden, steps = (int(x) for x in sys.argv[1:5])
torch.manual_seed(0)
lstm = build_encoder("lstm", input_dim=200, hidden_dim=hidden)
optimizer = torch.optim.Adam(lstm.parameters(), lr=1e-3)
x, mask = torch.randn(batch, length, 200), torch.ones(batch, length, dtype=torch.bool)
times = []
for _ in range(steps + 1):  # the first step warms up
    start = time.perf_counter()
    optimizer.zero_grad()
    lstm(x, mask).pow(2).mean().backward()
    optimizer.step()
    times.append(time.perf_counter() - start)
    if len(times) == 1:
        print("warm", flush=True)  # a twin is running its steps from here on
print(json.dumps({"threads": torch.get_num_threads(), "times": times[1:]}))
"""


_TWIN_STEPS = 10**9  # the twin runs until it is stopped
TWIN_START_S = 300  # how long the twin may take to start and finish its first step
COMPETITORS = ("none", "a busy core", "a twin")  # what runs beside the timed step (module docstring)
# a competitor ends when its standard input closes: when it is stopped, and when this process dies without stopping it
_WATCH_PARENT = ("import os, sys, threading\n"
                 "threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()\n")


def _step_command(threads: int, sizes: dict, steps: int, *, prelude: str = "") -> tuple[list[str], dict]:
    env = {**os.environ, "OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads)}
    args = [str(sizes[k]) for k in ("batch", "length", "hidden")] + [str(steps)]
    return [sys.executable, "-c", prelude + _STEP, *args], env


def _measure(threads: int, sizes: dict) -> dict:
    command, env = _step_command(threads, sizes, sizes["steps"])
    out = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.splitlines()[-1])


def _start(competitor: str, sizes: dict) -> subprocess.Popen | None:
    """The process that runs beside the timed step: none, a busy loop, or the step itself at one thread."""
    if competitor == "none":
        return None
    if competitor == "a busy core":
        return subprocess.Popen([sys.executable, "-c", _WATCH_PARENT + "while True: pass"], stdin=subprocess.PIPE)
    command, env = _step_command(1, sizes, _TWIN_STEPS, prelude=_WATCH_PARENT)
    twin = subprocess.Popen(command, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:  # timing starts once the twin is past its start-up and first step
        ready, _, _ = select.select([twin.stdout], [], [], TWIN_START_S)
        if not ready or twin.stdout.readline().strip() != "warm":
            raise RuntimeError(f"the twin step did not start within {TWIN_START_S} s (exit code {_ended(twin)}); "
                               "its error, if any, is above")
    except BaseException:
        _stop(twin)
        raise
    return twin


def _ended(process: subprocess.Popen) -> int | None:
    """The exit code of a process that has closed its output (None if it is still running a few seconds on)."""
    try:
        return process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        return None


def _stop(process: subprocess.Popen) -> None:
    process.kill()
    process.wait()
    for pipe in (process.stdin, process.stdout):
        if pipe is not None:
            pipe.close()


def main(out_path: Path, *, profile: str = "cpu") -> dict:
    """Time the step at 1 … ``os.cpu_count()`` threads with each of :data:`COMPETITORS` beside it; write the numbers
    to ``out_path`` (JSON, and CSV beside it), return them."""
    sizes = get_profile(profile).bench.threads
    counts = sorted({1, os.cpu_count() or 1})
    rows = []
    for competitor in COMPETITORS:
        beside = None
        try:
            beside = _start(competitor, sizes)
            for n in counts:
                measured = _measure(n, sizes)
                rows.append({"threads": n, "competitor": competitor,
                             "seconds_per_step": statistics.median(measured["times"]),
                             "fastest_seconds_per_step": min(measured["times"]), "repeats": measured["times"],
                             "load_average": list(os.getloadavg())})
        finally:
            if beside is not None:
                _stop(beside)
    reference = rows[0]["seconds_per_step"]  # one thread, idle
    for row in rows:
        row["relative_to_1_thread_idle"] = row["seconds_per_step"] / reference
    result = {"what": "LSTM training step (forward, backward, Adam), seconds, by thread count, idle, beside a "
                      "process that keeps one core busy and beside the same step at one thread in another process",
              "sizes": sizes, "profile": profile, "cpu": cpu_name(), "cores": os.cpu_count(),
              "code_version": code_version(), "rows": rows}
    write_json(out_path, result)
    write_rows_csv(Path(out_path).with_suffix(".csv"), rows, {
        "threads": "d", "competitor": "", "seconds_per_step": ".4f", "fastest_seconds_per_step": ".4f",
        "relative_to_1_thread_idle": ".2f"})
    return result
