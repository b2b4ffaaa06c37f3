"""Rankine's (2016) continuous bag of words, §3.2 and §5.1: a question as an average of its words.

.. math::

    f_{enc}(q) = \\frac{1}{|q|} \\sum_{w_i \\in q} \\tanh(W_1 x_{w_i} + b)
    \\qquad\\text{(fixed vectors, a trained projection: "cbow")}

    f_{enc}(q) = \\frac{\\sum_{w_i} \\lambda_{w_i} x_{w_i}}{\\sum_{w_i} \\lambda_{w_i}},\\quad
    \\lambda_w = \\sigma(W_2 \\tanh(W_1 x_w + b_1) + b_2)
    \\qquad\\text{(weighted CBOW, weights from an MLP: ``weighting="mlp"``)}

As a sequence encoder it gives the per-word states (``tanh(W_1 x_t + b)``, or ``x_t`` without the projection,
times λ_t with the MLP weighting); mean pooling then averages them. The weighted average's normaliser
``Σ λ`` only scales the vector, and a cosine does not see scale, so mean pooling (which divides by |q|) ranks
exactly as Rankine's equation. His other weighted CBOW, a free weight λ_w ≥ 0 per word, belongs to the word
vectors (:class:`~reproq.models.embedding.WordEmbedding` with ``learn_weights``) in front of this encoder
without projection.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from reproq.models.registry import register
from reproq.models.pooling import zero_padding


@dataclass(frozen=True)
class CBOWConfig:
    input_dim: int = 200  # AskUbuntu's word vectors are 200-d
    projection: bool = True  # Rankine §3.2's bilinear form: tanh(W_1 x + b), W_1 square (d_hid = input_dim)
    weighting: str = "none"  # "mlp": Rankine §5.1's λ_w = σ(W_2 tanh(W_1 x_w + b_1) + b_2)
    weight_hidden: int = 50  # the weighting MLP's hidden layer: not reported

    def __post_init__(self):
        if self.weighting not in ("none", "mlp"):
            raise ValueError(f"weighting must be 'none' or 'mlp', got {self.weighting!r}")


class CBOW(nn.Module):
    """``forward(x [B, T, E], mask [B, T]) -> h [B, T, E]`` with zeros at padding positions."""

    def __init__(self, config: CBOWConfig = CBOWConfig()):
        super().__init__()
        self.config, self.input_dim, self.output_dim = config, config.input_dim, config.input_dim
        self.projection = nn.Linear(config.input_dim, config.input_dim) if config.projection else None
        if config.weighting == "mlp":
            self.weight = nn.Sequential(nn.Linear(config.input_dim, config.weight_hidden), nn.Tanh(),
                                        nn.Linear(config.weight_hidden, 1), nn.Sigmoid())

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        h = torch.tanh(self.projection(x)) if self.projection is not None else x
        if self.config.weighting == "mlp":
            h = h * self.weight(x)  # λ_t [B, T, 1]
        return zero_padding(h, mask)


def cbow_reference(model: CBOW, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """The slow twin: Rankine's equations word by word, for each question the *weighted average* itself (not the
    states), ``[B, E]``: compare it with mean pooling of :class:`CBOW`'s states after scaling away ``Σ λ / |q|``."""
    out = []
    for row, m in zip(x, mask):
        words = [row[t] for t in range(len(row)) if m[t]]
        states, weights = [], []
        for v in words:
            states.append(torch.tanh(model.projection.weight @ v + model.projection.bias)
                          if model.projection is not None else v)
            if model.config.weighting == "mlp":
                first, _, second, _ = model.weight
                weights.append(torch.sigmoid(second.weight @ torch.tanh(first.weight @ v + first.bias)
                                             + second.bias)[0])
            else:
                weights.append(torch.ones((), dtype=x.dtype))
        total = sum(weights) if words else torch.ones((), dtype=x.dtype)
        out.append(sum((w * s for w, s in zip(weights, states)), torch.zeros(x.shape[-1], dtype=x.dtype)) / total)
    return torch.stack(out)


register("cbow", CBOWConfig)(CBOW)
