"""The encoder benchmark runs and writes its numbers (a smoke run: no timing is asserted)."""

from __future__ import annotations

import json
import os

from reproq.bench import encoders


def test_smoke_benchmark_writes_json_and_csv(tmp_path):
    out = tmp_path / "bench" / "encoders.json"
    result = encoders.main(out, profile="smoke")
    saved = json.loads(out.read_text())
    assert saved["batch"] == {"questions": 8, "title_tokens": 5, "body_tokens": 12}
    names = [row["model"] for row in saved["rows"]]
    assert names[0] == "torch.nn.LSTM d=240" and "rcnn d=400 (ours)" in names
    assert all(row["questions_per_s"] > 0 for row in saved["rows"])
    assert saved["rows"][0]["relative_to_torch_lstm"] == 1.0
    rcnn = next(r for r in saved["rows"] if r["model"] == "rcnn d=400 (ours)")
    assert rcnn["parameters"] == 400_800 and saved["rcnn_over_torch_lstm"] == rcnn["relative_to_torch_lstm"]
    assert out.with_suffix(".csv").read_text().count("\n") == len(names) + 1
    assert result["rows"] == saved["rows"]
    from reproq.bench import WARM_ALLOCATOR

    assert saved["allocator"] == WARM_ALLOCATOR  # measured in a child whose malloc keeps every buffer warm
    assert saved["cpu_capability"] and "cpu_flags" in saved
    assert all(r["ratio_lowest"] <= r["relative_to_torch_lstm"] <= r["ratio_highest"] for r in saved["rows"])


def test_paired_ratios_survive_a_round_the_machine_slowed():
    from reproq.bench import load_warning, paired_ratios

    times = {"yardstick": [1.0, 4.0, 1.0], "ours": [0.5, 2.0, 0.5]}  # round 2: everything 4x slower
    assert paired_ratios(times, "yardstick") == {"yardstick": 1.0, "ours": 2.0}
    cores = os.cpu_count() or 1
    assert load_warning((0.2, 0.1, 0.1), (cores - 0.5, 0.1, 0.1)) is None
    assert "load average reached" in load_warning((cores + 1.0, 0.0, 0.0), (0.5, 0.0, 0.0))
