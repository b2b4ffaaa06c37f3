"""Pre-training throughput (Lei et al. §4.2): an encoder–decoder step, forward and backward, with a full softmax.

One step is what :func:`reproq.question_retrieval.pretrain.pretrain_one` does per update: the encoder reads a batch
of contexts (bodies of 100 words, the longest context), the decoder of the same type generates titles of 10 words
from the encoder's final state, and a softmax over the whole vocabulary scores every title word — 100,408 words by
default, the size of AskUbuntu's vocabulary (the authors' released RCNN carries one IDF weight per word of it).
Encoders at Lei et al.'s Table 3 sizes, 200-d inputs. Throughput is title words (targets) per second.

Beside them, in the same run and with repeats interleaved: the yardstick, an encoder–decoder on ``torch.nn.LSTM`` as
it comes (d = 240, no packing: padding is not skipped, which costs nothing here, every row being full), and the
output layer with its softmax alone on the same title words, which says how much of a step the full softmax is.
"""

from __future__ import annotations

import os
import statistics
from functools import partial
from pathlib import Path

import torch
from torch import nn
from torch.nn import functional as F

from reproq.atomic import write_json
from reproq.bench import huge_pages, interleaved, load_warning, paired_ratios, write_rows_csv
from reproq.machine import cpu_capability, cpu_name
from reproq.models import build_encoder, count_parameters
from reproq.models.embedding import WordEmbedding
from reproq.models.encoder_decoder import EncoderDecoder, TitleBatch
from reproq.profiles import get as get_profile
from reproq.papers.lei2016 import TABLE3_HIDDEN
from reproq.results import code_version

VOCABULARY = 100_408  # AskUbuntu's: the IDF weights of taolei87/rcnn's released model, one per word


class _TorchLSTM(nn.Module):
    """The yardstick: ``torch.nn.LSTM`` as it comes (two biases, d = 240), final state at the last position."""

    def __init__(self):
        super().__init__()
        self.rnn, self.output_dim = nn.LSTM(200, 240, batch_first=True), 240

    def run(self, x, mask, state=None):
        hx = None if state is None else (state[:, 1].unsqueeze(0).contiguous(), state[:, 0].unsqueeze(0).contiguous())
        h, (h_n, c_n) = self.rnn(x, hx)
        return h, torch.stack([c_n[0], h_n[0]], dim=1)


class _SoftmaxAlone(nn.Module):
    """The output layer and the full softmax on the title words, without encoder or decoder (d = 400)."""

    def __init__(self, vocabulary: int):
        super().__init__()
        self.output = nn.Linear(400, vocabulary)

    def forward(self, batch: TitleBatch):
        h = torch.randn(*batch.title.shape, 400, device=batch.title.device)
        real = batch.title_mask
        return F.cross_entropy(self.output(h[real]), batch.title[real], reduction="none"), real


def _models(vocabulary: int, device) -> dict[str, nn.Module]:
    embedding = WordEmbedding(torch.randn(vocabulary, 200))  # values do not change the time

    def pair(build):
        return EncoderDecoder(embedding, build(), build(), dropout=0.1)

    models = {"torch.nn.LSTM d=240 encoder-decoder": pair(_TorchLSTM)}
    for name in ("lstm", "gru", "rcnn"):  # the encoders Lei et al. pre-train, at Table 3's sizes
        models[f"{name} d={TABLE3_HIDDEN[name]} encoder-decoder (ours)"] = pair(partial(build_encoder, name))
    models["output layer + softmax alone (d=400)"] = _SoftmaxAlone(vocabulary)
    return {k: m.to(device) for k, m in models.items()}


def _step(model: nn.Module, batch: TitleBatch) -> None:
    model.zero_grad(set_to_none=True)
    nll, _ = model(batch)
    nll.sum().backward()


def main(out_path: Path, *, profile: str = "cpu", device: str = "cpu") -> dict:
    """Time every encoder–decoder, write the numbers to ``out_path`` (JSON, and CSV beside it), return them."""
    sizes = get_profile(profile).bench.pretraining
    pairs, title_len, body_len, repeats = (sizes[k] for k in ("pairs", "title_len", "body_len", "repeats"))
    vocabulary = sizes.get("vocabulary", VOCABULARY)
    device = torch.device(device)
    torch.manual_seed(0)
    models = _models(vocabulary, device)

    def ids(length):
        return torch.randint(2, vocabulary, (pairs, length), device=device), \
            torch.ones(pairs, length, dtype=torch.bool, device=device)

    batch = TitleBatch(*ids(body_len), *ids(title_len))
    load_before = os.getloadavg()
    times = interleaved({name: partial(_step, model, batch) for name, model in models.items()}, repeats, device)
    load_after = os.getloadavg()
    words = pairs * title_len
    ratios = paired_ratios(times, next(iter(times)))  # the first model is the torch.nn.LSTM yardstick
    rows = [{"model": name, "parameters": count_parameters(models[name]), "seconds_per_step": statistics.median(t),
             "title_words_per_s": words / statistics.median(t), "fastest_title_words_per_s": words / min(t),
             "relative_to_torch_lstm": ratios[name], "repeats": t} for name, t in times.items()]
    result = {
        "what": "pre-training step (encoder-decoder forward+backward, full softmax), title words/s",
        "batch": {"pairs": pairs, "title_words": title_len, "context_words": body_len, "vocabulary": vocabulary},
        "profile": profile, "device": str(device), "torch": torch.__version__, "threads": torch.get_num_threads(),
        "huge_pages": huge_pages(),
        "cpu": cpu_name(), "cpu_capability": cpu_capability(), "load_average_before": load_before,
        "load_average_after": load_after, "load_warning": load_warning(load_before, load_after),
        "code_version": code_version(), "rows": rows,
    }
    write_json(out_path, result)
    write_rows_csv(Path(out_path).with_suffix(".csv"), rows, {
        "model": "", "parameters": "d", "seconds_per_step": ".4f", "title_words_per_s": ".1f",
        "relative_to_torch_lstm": ".3f"})
    return result
