"""The GPU check (``reproq gpu-check``), on a machine without a GPU: one line and exit 0; its comparison run end to end
with the CPU in the GPU's place; and a model whose numbers moved is said to differ."""

from __future__ import annotations

import json

import torch

from reproq import cli
from reproq.bench import gpu_check


def test_without_a_gpu_it_says_so_in_one_line_and_writes_nothing(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert cli.main(["gpu-check", "--out", str(tmp_path / "gpu.json")]) == 0
    assert capsys.readouterr().out.strip().splitlines() == [
        "no GPU here (torch.cuda.is_available() is False): nothing checked, nothing written"]
    assert not (tmp_path / "gpu.json").exists()


def test_the_check_runs_end_to_end_with_the_cpu_in_the_gpus_place(monkeypatch, tmp_path):
    monkeypatch.setattr(gpu_check, "BATCH", dict(batch=8, length=6, input_dim=10, hidden_dim=8))
    monkeypatch.setattr(gpu_check, "REPEATS", 1)
    result = gpu_check.check("cpu", tmp_path / "gpu.json")
    written = json.loads((tmp_path / "gpu.json").read_text())
    assert written["all_within_tolerance"] is True and result["device"] == "cpu"
    assert [r["model"] for r in written["agreement"]] == ["cbow", "cnn", "gru", "lstm", "qrnn", "rcnn", "ctrn"]
    assert all(r["max_loss_rel_diff"] == 0.0 and len(r["losses_cpu"]) == gpu_check.STEPS for r in written["agreement"])
    assert set(written["step_seconds"]) == set(gpu_check.models())


def test_a_model_whose_numbers_moved_differs(monkeypatch):
    honest = gpu_check.trained
    calls = []

    def drifting(name, device, *args, **kwargs):  # every second run (the "GPU" one) a little off
        losses, weights = honest(name, device, *args, **kwargs)
        calls.append(device)
        return ([loss * (1 + 1e-3) for loss in losses], weights) if len(calls) % 3 == 2 else (losses, weights)

    monkeypatch.setattr(gpu_check, "trained", drifting)
    row = gpu_check.agreement("qrnn", "cpu")
    assert row["within_tolerance"] is False and row["max_loss_rel_diff"] > 5e-4
