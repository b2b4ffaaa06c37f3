"""Forward+backward throughput of the question encoders at Lei et al.'s Table 3 sizes, beside ``torch.nn.LSTM``.

The batch is a realistic training batch: 40 query groups × 22 questions (query, positive, 20 negatives)
= 880 questions, each a title of 10 tokens and a body of 100, 200-d inputs; one step encodes the titles
and the bodies and back-propagates a scalar through both. Throughput is questions per second. Every
model is timed in the same process, repeats interleaved model by model so that a busy machine slows all
alike; the median and the fastest repeat are recorded, and the ratio to ``torch.nn.LSTM`` is the median of the
round-by-round ratios (:func:`reproq.bench.paired_ratios`). The load average before and after is recorded, with a
warning in the file and on the console when it exceeded the core count: on a shared machine the times move, the
paired ratios much less.

Every model is measured under the same allocator conditions: the benchmark runs in a child process whose malloc keeps
freed memory and serves every tensor from its heap (:data:`reproq.bench.WARM_ALLOCATOR`), so ``torch.nn.LSTM``'s
buffers come back warm from step to step as the RCNN's pooled ones do (otherwise its large tensors, each a fresh
mapping, pay the operating system's zeroing of pages every step, which the RCNN's pool spares it); torch's huge-page
setting is the same for all. The file records the
conditions (allocator, huge pages, CPU model, its vector flags, torch's CPU capability, threads) and, per model,
every round's ratio with their range, the spread a ratio is quoted with.

What was tried on the way to the RCNN's fast path, and what each step measured, is in
``results/bench/README.md``; the numbers of each run are in the files this module writes.
"""

from __future__ import annotations

import os
import statistics
from functools import partial
from pathlib import Path

import torch
from torch import nn

from reproq.atomic import write_json
from reproq.bench import (allocator, cpu_flags, huge_pages, in_warm_allocator, interleaved, load_warning,
                          paired_ratios, round_ratios, write_rows_csv)
from reproq.machine import cpu_capability, cpu_name
from reproq.models import build_encoder, count_parameters, rcnn_kernel
from reproq.models.rcnn import rcnn_reference
from reproq.results import code_version
from reproq.profiles import get as get_profile
from reproq.papers.lei2016 import TABLE3_HIDDEN

class _TorchLSTM(nn.Module):
    """The yardstick: ``torch.nn.LSTM`` as it comes (two biases), d = 240, no masking or packing."""

    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(200, 240, batch_first=True)

    def forward(self, x, mask):
        return self.rnn(x)[0]


class _Reference(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x, mask):
        return rcnn_reference(self.model, x, mask)


def _models(device) -> dict[str, nn.Module]:
    models = {"torch.nn.LSTM d=240": _TorchLSTM()}
    for name, d in TABLE3_HIDDEN.items():  # the encoders' defaults are Table 3's sizes
        models[f"{name} d={d} (ours)"] = build_encoder(name)
    models["rcnn d=400 slow twin (autograd loop)"] = _Reference(models["rcnn d=400 (ours)"])
    return {k: m.to(device) for k, m in models.items()}


def _step(model, batches) -> None:
    model.zero_grad(set_to_none=True)
    sum(model(x, mask).sum() for x, mask in batches).backward()


def main(out_path: Path, *, profile: str = "cpu", device: str = "cpu") -> dict:
    """Time every encoder, write the numbers to ``out_path`` (JSON, and CSV beside it), return them.

    ``profile``: ``smoke`` (a tiny batch, checks that it runs), ``cpu`` (the realistic batch, 5 repeats),
    ``paper`` (5 repeats). ``device``: ``cpu`` or ``cuda``.
    """
    done = in_warm_allocator(__name__, out_path, profile)
    if done is not None:
        return done
    sizes = get_profile(profile).bench.encoders
    n_questions, title_len, body_len, repeats = (sizes[k] for k in ("questions", "title_len", "body_len", "repeats"))
    device = torch.device(device)
    torch.manual_seed(0)
    models = _models(device)
    batches = [(torch.randn(n_questions, t, 200, device=device), torch.ones(n_questions, t, dtype=torch.bool,
                device=device)) for t in (title_len, body_len)]
    load_before = os.getloadavg()
    times = interleaved({name: partial(_step, model, batches) for name, model in models.items()}, repeats, device)
    load_after = os.getloadavg()
    ratios, rounds = paired_ratios(times, "torch.nn.LSTM d=240"), round_ratios(times, "torch.nn.LSTM d=240")
    kernel = rcnn_kernel.kernel() if device.type == "cpu" else None
    rows = [{"model": name, "parameters": count_parameters(models[name]),
             "seconds_per_batch": statistics.median(t), "questions_per_s": n_questions / statistics.median(t),
             "fastest_questions_per_s": n_questions / min(t), "relative_to_torch_lstm": ratios[name],
             "ratio_lowest": min(rounds[name]), "ratio_highest": max(rounds[name]), "round_ratios": rounds[name],
             "repeats": t}
            for name, t in times.items()]
    result = {
        "what": "forward+backward questions/s: titles and bodies of one batch, 200-d inputs",
        "batch": {"questions": n_questions, "title_tokens": title_len, "body_tokens": body_len},
        "profile": profile, "device": str(device), "torch": torch.__version__, "threads": torch.get_num_threads(),
        "rcnn_kernel_threads": None if kernel is None else kernel.threads(),  # those its element-wise passes use
        "huge_pages": huge_pages(), "allocator": allocator(), "cpu": cpu_name(), "cpu_flags": cpu_flags(),
        "cpu_capability": cpu_capability(),
        "load_average_before": load_before, "load_average_after": load_after,
        "load_warning": load_warning(load_before, load_after), "code_version": code_version(),
        "rcnn_over_torch_lstm": next(r for r in rows if r["model"] == "rcnn d=400 (ours)")["relative_to_torch_lstm"],
        "rows": rows,
    }
    write_json(out_path, result)
    write_rows_csv(Path(out_path).with_suffix(".csv"), rows, {
        "model": "", "parameters": "d", "seconds_per_batch": ".4f", "questions_per_s": ".1f",
        "fastest_questions_per_s": ".1f", "relative_to_torch_lstm": ".3f", "ratio_lowest": ".3f",
        "ratio_highest": ".3f"})
    return result
