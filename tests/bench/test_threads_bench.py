"""The thread-count benchmark runs and writes its numbers, idle, beside a busy core and beside a twin (a smoke run: no
timing is asserted)."""

from __future__ import annotations

import json
import os
import sys

import pytest

from reproq.bench import threads


def test_smoke_benchmark_writes_json_and_csv(tmp_path):
    out = tmp_path / "bench" / "threads.json"
    result = threads.main(out, profile="smoke")
    saved = json.loads(out.read_text())
    counts = sorted({1, os.cpu_count() or 1})
    assert [(r["threads"], r["competitor"]) for r in saved["rows"]] == [
        (n, c) for c in ("none", "a busy core", "a twin") for n in counts]
    assert all(r["seconds_per_step"] > 0 and len(r["repeats"]) == 2 for r in saved["rows"])
    assert saved["rows"][0]["relative_to_1_thread_idle"] == 1
    assert out.with_suffix(".csv").read_text().count("\n") == len(saved["rows"]) + 1
    assert result["rows"] == saved["rows"]


def test_a_twin_that_cannot_start_is_an_error_not_a_quiet_idle_row(monkeypatch):
    failing = [sys.executable, "-c", "raise SystemExit(3)"]
    monkeypatch.setattr(threads, "_step_command", lambda *args, **kwargs: (failing, None))
    with pytest.raises(RuntimeError, match="did not start within .* s .exit code 3"):
        threads._start("a twin", {})
