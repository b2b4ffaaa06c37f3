"""Lei et al. (2016) §4.2: pre-training a question encoder as the encoder of an encoder–decoder.

The pair is a conditional language model P(title | context): the encoder reads a context (the question's
title, its body, or the title or body of a question marked similar to it), the decoder — "a network of the
same type" — starts from the encoder's final state (every state vector of the recurrence: c and h for the
LSTM, c^{(1)} .. c^{(n)} and h for the RCNN) and generates the title word by word with teacher forcing:

.. math::
    s_0 = \\mathrm{enc}(x_{1..m})_{\\text{final}}, \\quad
    h^{dec}_t = \\mathrm{dec}(y_{t-1}, s_{t-1}), \\quad
    P(y_t \\mid y_{<t}, x) = \\mathrm{softmax}(W^o\\, \\mathrm{dropout}(h^{dec}_t) + b^o)

with a full softmax over the vocabulary. As taolei87/rcnn ``pt/main.py``: the two networks share the fixed,
IDF-weighted word vectors and their dropout, dropout is applied to the decoder's states before the output
layer, and the loss of a question is its title's negative log-likelihood summed over the real words (padding
excluded), averaged over the batch. y_0 is a begin-of-title input: a zero vector here (the original gives
``<s>`` a vector of its own, which the fixed vector table makes a constant too).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn
from torch.nn import functional as F

from reproq.models.embedding import WordEmbedding


@dataclass
class TitleBatch:
    """Contexts and the titles to generate from them, right-padded token ids."""

    context: torch.Tensor  # (B, T_context)
    context_mask: torch.Tensor  # (B, T_context)
    title: torch.Tensor  # (B, T_title): the targets
    title_mask: torch.Tensor  # (B, T_title)

    def to(self, device) -> TitleBatch:
        return TitleBatch(*(t.to(device, non_blocking=True) for t in
                            (self.context, self.context_mask, self.title, self.title_mask)))


class EncoderDecoder(nn.Module):
    """``forward(batch) -> (nll [B, T_title], title_mask)``: the negative log-likelihood of every title word
    (zeros at padding). ``encoder`` and ``decoder`` are sequence encoders of one kind with a ``run(x, mask,
    state) -> (h, final_state)`` method (RCNN, LSTM, GRU)."""

    def __init__(self, embedding: WordEmbedding, encoder: nn.Module, decoder: nn.Module, *, dropout: float):
        super().__init__()
        if type(encoder) is not type(decoder):
            raise ValueError(f"the decoder is a network of the encoder's type: got {type(encoder).__name__} "
                             f"and {type(decoder).__name__}")
        self.embedding, self.encoder, self.decoder = embedding, encoder, decoder
        self.dropout = nn.Dropout(dropout)
        self.output = nn.Linear(decoder.output_dim, embedding.vectors.shape[0])  # W^o, b^o: a word per vocabulary id

    def forward(self, batch: TitleBatch) -> tuple[torch.Tensor, torch.Tensor]:
        _, state = self.encoder.run(self.embedding(batch.context), batch.context_mask)
        y = self.embedding(batch.title)  # (B, T, E)
        inputs = torch.cat([y.new_zeros(y.shape[0], 1, y.shape[2]), y[:, :-1]], dim=1)  # y_0, y_1 .. y_{T-1}
        h, _ = self.decoder.run(inputs, batch.title_mask, state)
        real = batch.title_mask
        logits = self.output(self.dropout(h[real]))  # (N, V): the real title words only, padding costs nothing
        nll = h.new_zeros(real.shape).masked_scatter(real, F.cross_entropy(logits, batch.title[real], reduction="none"))
        return nll, real
