"""The RCNN of Lei et al. (2016) §4.1: non-consecutive convolution with adaptive gated decay.

With the linear filter of taolei87/rcnn (``RCNN(mode=1)``, the default there and here), filter width n:

.. math::
    \\lambda_t = \\sigma(W^\\lambda x_t + U^\\lambda h_{t-1} + b^\\lambda) \\\\
    c^{(1)}_t = \\lambda_t \\odot c^{(1)}_{t-1} + (1 - \\lambda_t) \\odot W_1 x_t \\\\
    c^{(i)}_t = \\lambda_t \\odot c^{(i)}_{t-1} + (1 - \\lambda_t) \\odot (c^{(i-1)}_{t-1} + W_i x_t),
        \\quad i = 2..n \\\\
    h_t = \\tanh(c^{(n)}_t + b)

with zero initial states. |θ| = (n+1)·E·d + d² + 2d: 400,800 for E=200, d=400, n=2 (Table 3's "401K").

Two implementations: :func:`rcnn_reference`, the equations step by step with autograd (the slow twin, any
mask), and :class:`RCNN`'s fast path: every input projection for all t in one matmul, then
:class:`RCNNRecurrence`, a recurrence with a hand-written backward (one ``addmm`` and a few fused
element-wise ops per step, no autograd graph per step, the batch walked in blocks of rows that stay in cache).
Tests check that they agree in values and gradients; ``reproq.bench.encoders`` measures the speed against
``torch.nn.LSTM``.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn
from torch.autograd.function import once_differentiable

from reproq.data.batching import check_right_padded
from reproq.models import register


# The recurrence walks the batch in blocks of this many rows (questions), so that a block's state and
# temporaries stay in the CPU's cache through the steps. Measured at d = 400, T = 100, 880 rows, 2 threads,
# forward + backward of the recurrence: 1.88 s in one block, 1.41 s in blocks of 440, 1.30 s of 220, 1.23 s of 110.
ROWS_PER_BLOCK = 128


@dataclass(frozen=True)
class RCNNConfig:
    input_dim: int = 200  # AskUbuntu's 200-d word vectors (Lei et al. §6)
    hidden_dim: int = 400  # Lei et al. Table 3: d = 400; taolei87/rcnn qa/README: -d 400
    order: int = 2  # Lei et al. Table 3: n = 2 (filter width; taolei87/rcnn --order 2)
    init_scale: float = 0.05  # taolei87/rcnn nn/initialization.py random_init: U(-0.05, 0.05)


class RCNNRecurrence(torch.autograd.Function):
    """The recurrence on precomputed projections, time-major.

    forward(gate_x [T, B, d] = W^λ x_t + b^λ, filter_x [T, B, n, d] = W_i x_t, U [d, d], b [d]) -> h [T, B, d],
    with U acting on row vectors (``h_{t-1} @ U``). The backward is back-propagation through time by hand.
    """

    @staticmethod
    def forward(ctx, gate_x, filter_x, U, bias):
        T, B, n, d = filter_x.shape
        H = gate_x.new_empty(T + 1, B, d)  # H[t] = h_t, H[0] = h_0 = 0
        H[0] = 0
        G = torch.empty_like(gate_x)  # λ_t
        D = torch.empty_like(filter_x)  # c_{t-1} - u_t: all the backward needs of the c's
        for rows in _blocks(B):  # rows are independent (see ROWS_PER_BLOCK)
            c = filter_x.new_zeros(rows.stop - rows.start, n, d)  # c[:, i] = c^{(i+1)}_t
            for t in range(T):
                g = torch.sigmoid(torch.addmm(gate_x[t, rows], H[t, rows], U), out=G[t, rows])
                # u_t = W_i x_t + c^{(i-1)}_{t-1} is what c_t moves towards; D_t = c_{t-1} - u_t
                d_t = torch.sub(c, filter_x[t, rows], out=D[t, rows])
                d_t[:, 1:] -= c[:, :-1]
                c.sub_(d_t).addcmul_(g.unsqueeze(1), d_t)  # u + λ (c_{t-1} - u) = λ c_{t-1} + (1 - λ) u, in place
                torch.tanh(c[:, -1] + bias, out=H[t + 1, rows])
        ctx.save_for_backward(U, H, D, G)
        return H[1:]  # a view: no copy of a [T, B, d] tensor

    @staticmethod
    @once_differentiable
    def backward(ctx, dH):
        U, H, D, G = ctx.saved_tensors
        T, B, n, d = D.shape
        d_gate, d_filter, d_bias = torch.empty_like(G), torch.empty_like(D), G.new_zeros(d)
        U_T = U.T.contiguous()
        for rows in _blocks(B):
            dC = D.new_zeros(rows.stop - rows.start, n, d)  # dL/dc_t, carried from step t+1
            dh = H.new_zeros(rows.stop - rows.start, d)  # dL/dh_t through λ_{t+1}
            for t in reversed(range(T)):
                h, g = H[t + 1, rows], G[t, rows]
                dh += dH[t, rows]
                dz = torch.addcmul(dh, dh, h * h, value=-1)  # through tanh: dh (1 - h²)
                d_bias += dz.sum(dim=0)
                dC[:, -1] += dz
                dg = (D[t, rows] * dC).sum(dim=1)  # ∂c_t/∂λ = c_{t-1} - u
                one_minus_g = 1 - g
                du = torch.mul(dC, one_minus_g.unsqueeze(1), out=d_filter[t, rows])  # = dL/d(W_i x_t)
                dC.mul_(g.unsqueeze(1))
                dC[:, :-1] += du[:, 1:]  # u^{(i)} reads c^{(i-1)}_{t-1}
                da = torch.mul(dg, g * one_minus_g, out=d_gate[t, rows])  # through σ
                dh = da @ U_T
        dU = H[:-1].reshape(-1, d).T @ d_gate.reshape(-1, d)
        return d_gate, d_filter, dU, d_bias


def _blocks(n_rows: int) -> list[slice]:
    return [slice(start, min(start + ROWS_PER_BLOCK, n_rows)) for start in range(0, n_rows, ROWS_PER_BLOCK)]


class RCNN(nn.Module):
    """``forward(x [B, T, E], mask [B, T]) -> h [B, T, d]``, zeros at padding; ``mask`` must be right-padded."""

    def __init__(self, config: RCNNConfig = RCNNConfig()):
        super().__init__()
        E, d, n = config.input_dim, config.hidden_dim, config.order
        if n < 1:
            raise ValueError(f"order (filter width) must be >= 1, got {n}")
        self.config, self.input_dim, self.output_dim = config, E, d
        self.W_gate = nn.Parameter(torch.empty(d, E))  # W^λ
        self.b_gate = nn.Parameter(torch.empty(d))  # b^λ
        self.U_gate = nn.Parameter(torch.empty(d, d))  # U^λ, applied as h_{t-1} @ U_gate
        self.W_filter = nn.Parameter(torch.empty(n * d, E))  # W_1 .. W_n stacked
        self.bias = nn.Parameter(torch.empty(d))  # b
        for p in self.parameters():
            nn.init.uniform_(p, -config.init_scale, config.init_scale)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        check_right_padded(mask)
        B, T, _ = x.shape
        x_t = x.transpose(0, 1)  # (T, B, E): the recurrence walks the leading axis
        gate_x = nn.functional.linear(x_t, self.W_gate, self.b_gate)  # (T, B, d), all t in one matmul
        filter_x = nn.functional.linear(x_t, self.W_filter).view(T, B, self.config.order, self.output_dim)
        h = RCNNRecurrence.apply(gate_x, filter_x, self.U_gate, self.bias).transpose(0, 1)  # (B, T, d)
        return h * mask.unsqueeze(-1).to(h.dtype)


def rcnn_reference(model: RCNN, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """The slow twin: the equations above one step at a time with autograd, for any mask (a padding step
    leaves every state unchanged)."""
    B, T, _ = x.shape
    n, d = model.config.order, model.output_dim
    W = model.W_filter.view(n, d, -1)
    h = x.new_zeros(B, d)
    c = [x.new_zeros(B, d) for _ in range(n)]
    out = []
    for t in range(T):
        lam = torch.sigmoid(x[:, t] @ model.W_gate.T + h @ model.U_gate + model.b_gate)
        new_c = [lam * c[i] + (1 - lam) * ((c[i - 1] if i > 0 else 0) + x[:, t] @ W[i].T) for i in range(n)]
        new_h = torch.tanh(new_c[-1] + model.bias)
        real = mask[:, t].unsqueeze(1)
        c = [torch.where(real, new, old) for new, old in zip(new_c, c)]
        h = torch.where(real, new_h, h)
        out.append(new_h * real.to(x.dtype))
    return torch.stack(out, dim=1)


register("rcnn", RCNNConfig)(RCNN)
