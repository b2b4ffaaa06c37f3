"""Training time per epoch on TrecQA TRAIN-ALL, Tay et al. 2018 Figure 3: LSTM, QRNN, CTRN, AP-BiLSTM at d = 800.

The paper's claims: CTRN costs QRNN about 10 s more per epoch, runs about 4× faster than LSTM and 8× faster
than AP-BiLSTM (on their GPU). Here every model trains on the same machine in one process, in turns, on the
real TRAIN-ALL pairs (word vectors are random: time does not depend on their values):

- ``paper``: whole epochs;
- ``cpu`` and ``smoke``: a fixed number of batches after warm-up batches, taken in rounds (one batch of every
  method a round, so that a change in the machine's load falls on all alike); the mean seconds per batch times
  the number of batches in an epoch (an extrapolation, marked ``"extrapolated": true`` in the output).

A pointwise epoch is every pair once; an AP-BiLSTM epoch is every negative once, beside a positive of its
question (:mod:`reproq.answer_selection.batches`), so the two differ in batch count, as in the paper's setups.
The numbers go to a JSON file with the machine, threads, load and settings; nothing here asserts a speed. Beside
the measured LSTM / QRNN and LSTM / CTRN ratios, the FLOP bound: the ratio of matrix-product FLOPs per token
(:func:`matmul_flops_per_token`), the speed-up the models would show if products were all their cost, and the
measured ratio as a fraction of it.
"""

from __future__ import annotations

import os
import time
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np
import torch

from reproq.answer_selection.batches import pair_set, training_batches
from reproq.answer_selection.inputs import TrainConfig
from reproq.atomic import write_json
from reproq.machine import cpu_capability, cpu_name
from reproq.data import trecqa
from reproq.data.vocab import Vocabulary, lowercase
from reproq.models import count_parameters
from reproq.models.answer_ranker import PAIRWISE, RankerConfig, build_ranker
from reproq.profiles import get as get_profile
from reproq.results import Provenance, Record, code_version
from reproq.train import objectives, runtime

METHODS = ("LSTM", "QRNN", "CTRN", "AP-BiLSTM")  # Figure 3
PAPER_CLAIMS = {"CTRN - QRNN (s/epoch)": 10.0, "LSTM / CTRN": 4.0, "AP-BiLSTM / CTRN": 8.0}


class _Trainer:
    """One method's model, optimizer and TRAIN-ALL batches, ready to take timed training steps."""

    def __init__(self, method: str, pairs, vectors: torch.Tensor, ranker: RankerConfig, batch_size: int,
                 device: torch.device):
        runtime.seed_everything(0)
        self.method, self.device = method, device
        self.model = build_ranker(vectors, replace(ranker, method=method, n_features=4)).to(device)
        pairwise = method in PAIRWISE
        self.objective = (objectives.MaxMarginObjective(margin=TrainConfig.margin, l2=0.0) if pairwise
                          else objectives.SoftmaxCrossEntropyObjective())
        self.optimizer = torch.optim.Adam([p for p in self.model.parameters() if p.requires_grad], lr=1e-3)
        self.batches = training_batches(pairs, 1, seed=0, batch_size=batch_size, pairwise=pairwise)

    def step(self, i: int) -> float:
        """Train on batch ``i``; its wall time in seconds."""
        if self.device.type == "cuda":
            torch.cuda.synchronize()
        started = time.perf_counter()
        self.optimizer.zero_grad(set_to_none=True)
        self.objective(self.model, self.batches[i].to(self.device)).backward()
        self.optimizer.step()
        if self.device.type == "cuda":
            torch.cuda.synchronize()
        return time.perf_counter() - started


def _time_methods(trainers: list[_Trainer], warmup: int, timed: int | None) -> list[dict]:
    """Warm-up steps, then timed steps taken in rounds, one batch of every method a round, so that a change in
    the machine's load falls on all methods alike; seconds per batch is the mean over a method's steps (batches
    differ in length, so the mean, not the median, estimates an epoch).
    ``timed=None``: whole epochs, one method after the other."""
    for trainer in trainers:
        for i in range(warmup):
            trainer.step(i)
    if timed is None:
        times = {t.method: [t.step(i) for i in range(len(t.batches))] for t in trainers}
    else:
        times = {t.method: [] for t in trainers}
        for i in range(warmup, warmup + timed):
            for trainer in trainers:
                times[trainer.method].append(trainer.step(i % len(trainer.batches)))
    rows = []
    for t in trainers:
        steps = np.array(times[t.method])
        per_batch = float(steps.mean())
        rows.append({"method": t.method, "batches_per_epoch": len(t.batches), "batches_timed": len(steps),
                     "s_per_batch": per_batch, "s_per_batch_min": float(steps.min()),
                     "s_per_batch_max": float(steps.max()), "s_per_epoch": per_batch * len(t.batches),
                     "trainable_parameters": count_parameters(t.model)})
    return rows


def main(out_path: Path, *, profile: str, device: str = "auto") -> dict:
    """Time the Figure 3 models on TRAIN-ALL and write the numbers (JSON) to ``out_path``; return them."""
    sizes = dict(get_profile(profile).bench.answer_ranking)
    batch_size, warmup, timed = sizes.pop("batch_size"), sizes.pop("warmup"), sizes.pop("timed")
    ranker = RankerConfig(**sizes)
    questions = trecqa.load_trecqa("train-all")
    vocab = Vocabulary.build(lowercase(t) for q in questions for t in (q.tokens, *(c.tokens for c in q.candidates)))
    pairs = pair_set(questions, vocab, max_answer_len=60)
    pairs = replace(pairs, features=np.zeros((len(pairs.labels), 4), dtype=np.float32))  # shape only
    vectors = torch.from_numpy(np.random.default_rng(0).normal(size=(len(vocab), 50)).astype(np.float32))
    target = runtime.resolve_device(device)
    load_before = os.getloadavg()
    trainers = [_Trainer(m, pairs, vectors, ranker, batch_size, target) for m in METHODS]
    rows = _time_methods(trainers, warmup, timed)
    by = {r["method"]: r["s_per_epoch"] for r in rows}
    flops = {t.method: matmul_flops_per_token(t.model) for t in trainers}
    bound = {f"LSTM / {m}": flops["LSTM"] / flops[m] for m in ("QRNN", "CTRN")}
    result = {
        "what": "seconds per training epoch on TrecQA TRAIN-ALL (Tay et al. 2018 Figure 3)",
        "profile": profile, "extrapolated": timed is not None,
        "how": ("whole epochs" if timed is None else
                f"{timed} batches a method timed in interleaved rounds after {warmup} warm-up batches, "
                f"mean s/batch x batches per epoch"),
        "settings": {"batch_size": batch_size, "word_vectors": "random 50-d (time does not depend on values)",
                     **{k: v for k, v in asdict(ranker).items() if k in ("projection_dim", "hidden_dim", "mlp_dim",
                                                                          "width", "mlp_layers")}},
        "rows": rows,
        "ratios": {"CTRN - QRNN (s/epoch)": by["CTRN"] - by["QRNN"], "LSTM / CTRN": by["LSTM"] / by["CTRN"],
                   "AP-BiLSTM / CTRN": by["AP-BiLSTM"] / by["CTRN"], "LSTM / QRNN": by["LSTM"] / by["QRNN"]},
        "paper_claims": PAPER_CLAIMS,
        "flop_bound": {"matmul_flops_per_token": flops, "speedup_bound": bound,
                       "measured_fraction_of_bound": {k: (by["LSTM"] / by[k.split(" / ")[1]]) / v
                                                      for k, v in bound.items()}},
        "machine": {"device": runtime.device_name(target), "cpu": cpu_name(), "cpu_capability": cpu_capability(),
                    "cores": os.cpu_count(), "torch_threads": torch.get_num_threads(), "torch": torch.__version__,
                    # at the precision the load is read with (its file and the notebook that prints it)
                    "load_average_before": [round(x, 2) for x in load_before],
                    "load_average_after": [round(x, 2) for x in os.getloadavg()]},
        "code_version": code_version(), "written_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    write_json(out_path, result)
    return result


def matmul_flops_per_token(model: torch.nn.Module) -> int:
    """Multiply-adds ×2 of the matrix products a token goes through in one forward pass of the word projection and
    the encoder: every weight matrix of those is used once per token (LSTM: W and U at every step, each direction;
    QRNN and CTRN: the width-k convolution's 3kdm weights; the CTRN's second recurrences are element-wise). The
    composition layers run once per pair, not per token, and are left out; biases are not products."""
    weights = [model.projection.weight] + [p for name, p in model.encoder.named_parameters() if "bias" not in name]
    return 2 * sum(w.numel() for w in weights)


def figure3_records(bench: dict) -> list[Record]:
    """The benchmark's ratios as records keyed like the paper's Figure 3 claims."""
    ratios = bench["ratios"]
    claims = [("CTRN vs QRNN", "extra_seconds_per_epoch", ratios["CTRN - QRNN (s/epoch)"]),
              ("CTRN vs LSTM", "speedup", ratios["LSTM / CTRN"]),
              ("CTRN vs AP-BiLSTM", "speedup", ratios["AP-BiLSTM / CTRN"])]
    variant = ("extrapolated from timed batches" if bench["extrapolated"] else "whole epochs") + \
        f", {bench['machine']['device']}, {bench['machine']['torch_threads']} threads"
    provenance = Provenance(device=bench["machine"]["device"], code_version=bench["code_version"])
    return [record for method, metric, value in claims
            for record in provenance.records({metric: value}, paper="tay2018", table="Figure 3", dataset="trecqa",
                                             split="train-all", method=method, setting="d=800", variant=variant,
                                             config=bench["settings"])]
