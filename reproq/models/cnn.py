"""The CNN encoder of Lei et al. (2016) §5: a causal temporal convolution of width n.

.. math:: c_t = W_1 x_{t-n+1} + W_2 x_{t-n+2} + \\dots + W_n x_t, \\qquad h_t = \\tanh(c_t + b)

Positions before the start read zero vectors (taolei87/rcnn's ``CNN`` layer is this recurrence with zero
initial states), so state t sees only tokens up to t and right padding never reaches a real position.
With several widths (Smolyakov & Srikant Table 4: widths 2–6, 250 filters each) one such convolution per width
runs side by side and their states are concatenated, ``hidden_dim`` split evenly between them.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from reproq.models.registry import register
from reproq.models.pooling import zero_padding


@dataclass(frozen=True)
class CNNConfig:
    input_dim: int = 200  # AskUbuntu's word vectors are 200-d (Lei et al. §6 "Word Vectors")
    hidden_dim: int = 667  # Lei et al. Table 3: d = 667 (401K parameters)
    width: int | tuple[int, ...] = 3  # Lei et al. Table 3: n = 3 (searched over {2, 3, 4}, §6); a tuple: several
    init_scale: float = 0.05  # taolei87/rcnn nn/initialization.py random_init: U(-0.05, 0.05)


class CNN(nn.Module):
    """``forward(x [B, T, E], mask [B, T]) -> h [B, T, d]`` with zeros at padding positions."""

    def __init__(self, config: CNNConfig = CNNConfig()):
        super().__init__()
        self.config, self.input_dim, self.output_dim = config, config.input_dim, config.hidden_dim
        self.widths = (config.width,) if isinstance(config.width, int) else tuple(config.width)
        if not self.widths or config.hidden_dim % len(self.widths):
            raise ValueError(f"hidden_dim {config.hidden_dim} does not split evenly over the widths {self.widths}")
        # one Conv1d per width holds its W_1..W_n: weight[:, :, i] is W_{i+1}
        self.convs = nn.ModuleList(nn.Conv1d(config.input_dim, config.hidden_dim // len(self.widths), kernel_size=n)
                                   for n in self.widths)
        for p in self.parameters():
            nn.init.uniform_(p, -config.init_scale, config.init_scale)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        x = x.transpose(1, 2)
        # (B, E, n-1+T): zeros before t=0, one convolution per width, states side by side
        h = torch.cat([conv(nn.functional.pad(x, (n - 1, 0))) for n, conv in zip(self.widths, self.convs)], dim=1)
        return zero_padding(torch.tanh(h).transpose(1, 2), mask)  # (B, T, d)


def cnn_reference(model: CNN, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """The slow twin: the sum of the equation above, term by term, position by position, width by width."""
    B, T, _ = x.shape
    out = []
    for n, conv in zip(model.widths, model.convs):
        W, b = conv.weight, conv.bias
        states = x.new_zeros(B, T, W.shape[0])
        for t in range(T):
            c = b.expand(B, -1)
            for i in range(n):  # W_{i+1} reads x_{t-n+1+i}
                s = t - n + 1 + i
                if s >= 0:
                    c = c + x[:, s] @ W[:, :, i].T
            states[:, t] = torch.tanh(c) * mask[:, t, None].to(x.dtype)
        out.append(states)
    return torch.cat(out, dim=2)


register("cnn", CNNConfig)(CNN)
