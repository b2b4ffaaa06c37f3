"""LSTM and GRU encoders (Lei et al. 2016 §5; Smolyakov & Srikant's bidirectional LSTM), on torch's kernels.

The fast path is ``torch.nn.LSTM`` / ``torch.nn.GRU``; :func:`rnn_reference` is the slow twin, the gate
equations step by step with the same weights. Two differences from the paper's equations, both measured
by the tests and the parameter counts:

- torch gives every gate two biases (``b_ih + b_hh``). The paper and taolei87/rcnn have one; with
  ``one_bias=True`` the second is frozen at zero, so |θ| is Table 3's (LSTM d=240: 423,360 = "423K";
  GRU d=280: 404,040 = "404K"). Smolyakov & Srikant used torch's LSTM as is (``one_bias=False``:
  their 337,920 is a bidirectional LSTM with 128 units and both biases).
- torch's GRU applies the reset gate after the recurrent product, ``n = tanh(W x + b + r ⊙ (U h + b_hn))``
  (the cuDNN form); the paper writes ``tanh(W x + U (r ⊙ h) + b)``. Same parameters, slightly different
  function; we keep torch's kernel for speed and say so wherever GRU numbers appear.

Right-padded batches are read as they are (causal: padding never reaches a real position). Bidirectional is
two causal RNNs, the backward one reading each row's real tokens reversed (:func:`reversal_index`): the function
and the parameters of ``torch.nn.LSTM(bidirectional=True)`` on packed sequences, without the packed path,
which was slower (``results/bench/README.md``).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from reproq.models.registry import register
from reproq.models.pooling import zero_padding


@dataclass(frozen=True)
class LSTMConfig:
    input_dim: int = 200  # AskUbuntu's 200-d word vectors (Lei et al. §6)
    hidden_dim: int = 240  # Lei et al. Table 3: d = 240 (423K parameters); per direction when bidirectional
    bidirectional: bool = False  # Lei et al.: one direction; Smolyakov & Srikant Table 3: True
    one_bias: bool = True  # the paper's equations (one b per gate); False: torch's b_ih + b_hh
    init_scale: float = 0.05  # taolei87/rcnn nn/initialization.py random_init: U(-0.05, 0.05)


@dataclass(frozen=True)
class GRUConfig:
    input_dim: int = 200  # AskUbuntu's 200-d word vectors (Lei et al. §6)
    hidden_dim: int = 280  # Lei et al. Table 3: d = 280 (404K parameters)
    bidirectional: bool = False
    one_bias: bool = True
    init_scale: float = 0.05  # taolei87/rcnn random_init: U(-0.05, 0.05)


def reversal_index(mask: torch.Tensor) -> torch.Tensor:
    """(B, T) index that reverses each row's real tokens and leaves padding in place (an involution).

    >>> reversal_index(torch.tensor([[True, True, True, False]])).tolist()
    [[2, 1, 0, 3]]
    """
    t = torch.arange(mask.shape[1], device=mask.device)[None, :]
    n = mask.sum(dim=1, keepdim=True)
    return torch.where(t < n, n - 1 - t, t)


class _TorchRNN(nn.Module):
    kind: type[nn.RNNBase]
    state_size: int  # vectors in a state: (c_t, h_t) or h_t

    def __init__(self, config):
        super().__init__()
        self.config, self.input_dim = config, config.input_dim
        self.output_dim = config.hidden_dim * (2 if config.bidirectional else 1)
        self.rnn = self._direction()
        self.rnn_reverse = self._direction() if config.bidirectional else None

    def _direction(self) -> nn.RNNBase:
        rnn = self.kind(self.config.input_dim, self.config.hidden_dim, batch_first=True)
        for name, p in rnn.named_parameters():
            if self.config.one_bias and name.startswith("bias_hh"):
                nn.init.zeros_(p)
                p.requires_grad_(False)
            else:
                nn.init.uniform_(p, -self.config.init_scale, self.config.init_scale)
        return rnn

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        h, _ = self.rnn(x)
        if self.rnn_reverse is not None:
            index = reversal_index(mask).unsqueeze(-1)
            reverse = lambda states: states.gather(1, index.expand(-1, -1, states.shape[-1]))  # noqa: E731
            h = torch.cat([h, reverse(self.rnn_reverse(reverse(x))[0])], dim=-1)
        return zero_padding(h, mask)


    def run(self, x: torch.Tensor, mask: torch.Tensor,
            state: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """``(h [B, T, d], final state [B, k, d])`` from ``state`` (zeros when None); a state is (c_t, h_t) for
        the LSTM (k = 2) and h_t for the GRU (k = 1), the final one each row's after its last real token (the
        given one for an empty row). One direction only: Lei et al. §4.2's encoder hands its final state to a
        decoder. Runs on packed sequences, so that padding never moves a state."""
        if self.rnn_reverse is not None:
            raise ValueError("a bidirectional encoder has no single final state to hand on")
        B, k, d = x.shape[0], self.state_size, self.config.hidden_dim
        if state is None:
            state = x.new_zeros(B, k, d)
        elif state.shape != (B, k, d):
            raise ValueError(f"state must be [B, {k}, d] = {(B, k, d)}, got {tuple(state.shape)}")
        n = mask.sum(dim=1)
        packed = pack_padded_sequence(x, n.clamp(min=1).cpu(), batch_first=True, enforce_sorted=False)
        out, final = self.rnn(packed, self._to_torch(state))
        h, _ = pad_packed_sequence(out, batch_first=True, total_length=x.shape[1])
        final = torch.where((n > 0).view(B, 1, 1), self._from_torch(final), state)
        return zero_padding(h, mask), final


class LSTM(_TorchRNN):
    """``forward(x [B, T, E], mask [B, T]) -> h [B, T, d or 2d]`` with zeros at padding positions."""

    kind = nn.LSTM
    state_size = 2  # (c_t, h_t)

    @staticmethod
    def _to_torch(state):
        return state[:, 1].unsqueeze(0).contiguous(), state[:, 0].unsqueeze(0).contiguous()

    @staticmethod
    def _from_torch(final):
        h, c = final
        return torch.stack([c[0], h[0]], dim=1)


class GRU(_TorchRNN):
    """``forward(x [B, T, E], mask [B, T]) -> h [B, T, d or 2d]`` with zeros at padding positions."""

    kind = nn.GRU
    state_size = 1  # h_t

    @staticmethod
    def _to_torch(state):
        return state[:, 0].unsqueeze(0).contiguous()

    @staticmethod
    def _from_torch(final):
        return final[0].unsqueeze(1)


def _lstm_step(x, h, c, w_ih, w_hh, b):
    i, f, g, o = (x @ w_ih.T + h @ w_hh.T + b).chunk(4, dim=-1)  # torch's gate order
    c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
    return torch.sigmoid(o) * torch.tanh(c), c


def _gru_step(x, h, c, w_ih, w_hh, b_ih, b_hh):
    r_x, z_x, n_x = (x @ w_ih.T + b_ih).chunk(3, dim=-1)
    r_h, z_h, n_h = (h @ w_hh.T + b_hh).chunk(3, dim=-1)
    r, z = torch.sigmoid(r_x + r_h), torch.sigmoid(z_x + z_h)
    n = torch.tanh(n_x + r * n_h)
    return (1 - z) * n + z * h, c


def rnn_reference(model: _TorchRNN, x: torch.Tensor, mask: torch.Tensor, *, state: torch.Tensor | None = None,
                  final_state: bool = False):
    """The slow twin: each row's real tokens through the gate equations one step at a time, forward (and,
    when bidirectional, backward from the row's last real token), with ``model``'s weights, from ``state``
    (one direction: (c, h) for the LSTM, (h,) for the GRU; zeros when None). With ``final_state=True`` also
    each row's state after its last real token, ``[B, k, d]``."""
    d = model.config.hidden_dim
    out = x.new_zeros(x.shape[0], x.shape[1], model.output_dim)
    finals = []
    directions = [model.rnn] + ([model.rnn_reverse] if model.rnn_reverse is not None else [])
    for row in range(x.shape[0]):
        n = int(mask[row].sum())
        for k, rnn in enumerate(directions):
            w = {name: getattr(rnn, f"{name}_l0") for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")}
            h = c = x.new_zeros(d)
            if state is not None:
                c, h = (state[row, 0], state[row, 1]) if isinstance(rnn, nn.LSTM) else (c, state[row, 0])
            for t in (range(n) if k == 0 else range(n - 1, -1, -1)):
                if isinstance(rnn, nn.LSTM):
                    h, c = _lstm_step(x[row, t], h, c, w["weight_ih"], w["weight_hh"], w["bias_ih"] + w["bias_hh"])
                else:
                    h, c = _gru_step(x[row, t], h, c, w["weight_ih"], w["weight_hh"], w["bias_ih"], w["bias_hh"])
                out[row, t, k * d:(k + 1) * d] = h
        finals.append(torch.stack([c, h]) if isinstance(model.rnn, nn.LSTM) else h.unsqueeze(0))
    return (out, torch.stack(finals)) if final_state else out


register("lstm", LSTMConfig)(LSTM)
register("gru", GRUConfig)(GRU)
