"""The GPU check: every encoder trained a few steps on the GPU, its numbers beside the CPU's, and a step of each timed.

``reproq gpu-check`` (or ``python -m reproq.bench.gpu_check``: torch alone, so a GPU machine without papermill runs
it) builds each registered encoder (CBOW, CNN, GRU, LSTM, QRNN, RCNN) and the CTRN at small sizes from one seed, and
trains each for :data:`STEPS` SGD steps on one fixed random batch, once on the CPU and once on the GPU from the same
weights (SGD: an update proportional to its gradient, so rounding stays rounding; Adam's would turn a sign of a
near-zero gradient into a step of the learning rate). The loss of every step and the final weights must agree within
:data:`TOLERANCE`, with TF32 off (float32 sums are ordered differently on the two devices: equal up to rounding,
never bitwise); the largest loss difference with TF32 allowed is recorded beside it. Then a training
step of each at one cpu-profile batch (:data:`BATCH`) is timed on both devices, medians of :data:`REPEATS`
interleaved rounds (:func:`reproq.bench.interleaved`). Everything goes to ``results/machines/gpu_check.json`` with
the GPU's name and torch's and CUDA's versions. Without a GPU it says so in one line and writes nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import statistics
import sys
from dataclasses import fields
from pathlib import Path

import torch
from torch import nn

from reproq import paths
from reproq.atomic import write_json
from reproq.bench import interleaved
from reproq.models import ENCODERS, build_encoder, encoder_config
from reproq.models.ctrn import CTRN
from reproq.models.qrnn import QRNNConfig

STEPS = 5
TOLERANCE = dict(rtol=1e-4, atol=1e-5)  # float32, TF32 off: rounding only
SMALL = dict(batch=16, length=12, input_dim=20, hidden_dim=24)  # the agreement check's sizes
BATCH = dict(batch=880, length=100, input_dim=200, hidden_dim=100)  # a cpu-profile batch: 40 groups x 22 bodies
REPEATS = 3
OUT = Path("results") / "machines" / "gpu_check.json"


class _Pooled(nn.Module):
    """An encoder's states, mean over the valid positions: one vector a question (the CTRN: q's and a's)."""

    def __init__(self, name: str, input_dim: int, hidden_dim: int):
        super().__init__()
        if name == "ctrn":
            self.encoder = CTRN(QRNNConfig(input_dim=input_dim, hidden_dim=hidden_dim, width=2))
        else:  # the sizes its config has (the CBOW's states are input-sized)
            wanted = {"input_dim": input_dim, "hidden_dim": hidden_dim}
            self.encoder = build_encoder(name, **{f.name: wanted[f.name] for f in fields(encoder_config(name))
                                                  if f.name in wanted})
        self.name = name

    def forward(self, x, mask):
        states = self.encoder(x, mask, x, mask) if self.name == "ctrn" else (self.encoder(x, mask),)
        return torch.cat([(s * mask.unsqueeze(-1)).sum(1) / mask.sum(1, keepdim=True) for s in states], dim=1)


def models() -> list[str]:
    """What the check trains: every registered encoder, and the CTRN."""
    return [*sorted(ENCODERS), "ctrn"]


def _batch(sizes: dict, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(sizes["batch"], sizes["length"], sizes["input_dim"], generator=generator)
    lengths = torch.randint(1, sizes["length"] + 1, (sizes["batch"],), generator=generator)
    return x, torch.arange(sizes["length"]) < lengths.unsqueeze(1)  # right-padded


def trained(name: str, device: str, sizes: dict = SMALL, steps: int = STEPS, seed: int = 0):
    """``(losses, weights)`` of ``name`` trained ``steps`` SGD steps on ``device`` from the weights of ``seed``
    (built on the CPU, then moved), towards a fixed random target."""
    torch.manual_seed(seed)
    model = _Pooled(name, sizes["input_dim"], sizes["hidden_dim"])
    x, mask = _batch(sizes, seed)
    target = torch.randn(model(x, mask).shape, generator=torch.Generator().manual_seed(seed + 1))
    model, x, mask, target = model.to(device), x.to(device), mask.to(device), target.to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    losses = [_step(model, x, mask, target, optimizer).item() for _ in range(steps)]
    return losses, [p.detach().cpu() for p in model.parameters()]


def _step(model: nn.Module, x: torch.Tensor, mask: torch.Tensor, target, optimizer) -> torch.Tensor:
    """One SGD step of ``model`` towards ``target`` (a tensor, or 0); its loss."""
    optimizer.zero_grad()
    loss = (model(x, mask) - target).square().mean()
    loss.backward()
    optimizer.step()
    return loss


@contextlib.contextmanager
def _tf32(allowed: bool):
    saved = torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = allowed
    try:
        yield
    finally:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = saved


def agreement(name: str, device: str, reference: str = "cpu") -> dict:
    """``name`` trained on ``reference`` and on ``device``: the largest differences of a step's loss (relative) and
    of a final weight, and whether both are within :data:`TOLERANCE`."""
    with _tf32(False):
        ref_losses, ref_weights = trained(name, reference)
        losses, weights = trained(name, device)
    with _tf32(True):  # TF32 allowed (cuDNN's convolutions use it by default on a GPU that has it)
        tf32_losses, _ = trained(name, device)
    within = (torch.allclose(torch.tensor(losses), torch.tensor(ref_losses), **TOLERANCE)
              and all(torch.allclose(w, r, **TOLERANCE) for w, r in zip(weights, ref_weights)))
    return {"model": name, "losses_" + reference: ref_losses, "losses_" + device: losses,
            "max_loss_rel_diff": _largest_relative(losses, ref_losses),
            "max_weight_abs_diff": max((w - r).abs().max().item() for w, r in zip(weights, ref_weights)),
            "max_loss_rel_diff_tf32_default": _largest_relative(tf32_losses, ref_losses),
            "within_tolerance": within}


def _largest_relative(values: list[float], reference: list[float]) -> float:
    return max(abs(a - b) / abs(b) for a, b in zip(values, reference))


def step_seconds(device: str, sizes: dict, repeats: int) -> dict[str, float]:
    """Median seconds of one training step (forward, backward, SGD) of each model on ``device`` at ``sizes``."""
    steps = {}
    for name in models():
        torch.manual_seed(0)
        model = _Pooled(name, sizes["input_dim"], sizes["hidden_dim"]).to(device)
        x, mask = (t.to(device) for t in _batch(sizes))
        steps[name] = functools.partial(_step, model, x, mask, 0, torch.optim.SGD(model.parameters(), lr=0.1))
    times = interleaved(steps, repeats, torch.device(device))
    return {name: statistics.median(t) for name, t in times.items()}


def check(device: str = "cuda", out: Path | None = None) -> dict:
    """The whole check on ``device`` against the CPU, written to ``out`` (default :data:`OUT` under the project)."""
    rows = [agreement(name, device) for name in models()]
    cpu, gpu = step_seconds("cpu", BATCH, REPEATS), step_seconds(device, BATCH, REPEATS)
    result = {"device": torch.cuda.get_device_name() if device.startswith("cuda") else device,
              "torch": torch.__version__, "cuda": torch.version.cuda, "steps": STEPS, "tolerance": TOLERANCE,
              "sizes": SMALL, "timed_batch": BATCH, "repeats": REPEATS, "agreement": rows,
              "all_within_tolerance": all(r["within_tolerance"] for r in rows),
              "step_seconds": {name: {"cpu": cpu[name], device: gpu[name], "speedup": cpu[name] / gpu[name]}
                               for name in models()},
              "cpu_threads": torch.get_num_threads()}
    write_json(out or paths.ROOT / OUT, result)
    return result


def main(argv: list[str] | None = None) -> int:
    """``reproq gpu-check``: exit 0 when there is no GPU (one line) or every model agrees, 1 when one does not."""
    parser = argparse.ArgumentParser(prog="reproq gpu-check", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=None, help=f"where the numbers go (default {OUT})")
    args = parser.parse_args(argv)
    if not torch.cuda.is_available():
        print("no GPU here (torch.cuda.is_available() is False): nothing checked, nothing written")
        return 0
    result = check("cuda", args.out)
    for row in result["agreement"]:
        print(f"{row['model']:>6}: loss {row['max_loss_rel_diff']:.1e} (TF32: {row['max_loss_rel_diff_tf32_default']:.1e}), "
              f"weights {row['max_weight_abs_diff']:.1e}  {'ok' if row['within_tolerance'] else 'DIFFERS'}; "
              f"step {result['step_seconds'][row['model']]['speedup']:.1f}x the CPU's")
    return 0 if result["all_within_tolerance"] else 1


if __name__ == "__main__":
    sys.exit(main())
