"""The RCNN of Lei et al. (2016) §4.1: non-consecutive convolution with adaptive gated decay.

With the linear filter of taolei87/rcnn (``RCNN(mode=1)``, the default there and here), filter width n:

.. math::
    \\lambda_t = \\sigma(W^\\lambda x_t + U^\\lambda h_{t-1} + b^\\lambda) \\\\
    c^{(1)}_t = \\lambda_t \\odot c^{(1)}_{t-1} + (1 - \\lambda_t) \\odot W_1 x_t \\\\
    c^{(i)}_t = \\lambda_t \\odot c^{(i)}_{t-1} + (1 - \\lambda_t) \\odot (c^{(i-1)}_{t-1} + W_i x_t),
        \\quad i = 2..n \\\\
    h_t = \\tanh(c^{(n)}_t + b)

with zero initial states. |θ| = (n+1)·E·d + d² + 2d: 400,800 for E=200, d=400, n=2 (Table 3's "401K").

1 − λ_t is how much of x_t enters the states (the adaptive decay of §7, Figures 4 and 5): :meth:`RCNN.decay`
returns it. ``scalar_gate=True`` is Figure 4's variant, one λ_t for all d dimensions (W^λ ∈ R^{1×E},
U^λ ∈ R^{d×1}, b^λ ∈ R: (E + d) + 1 gate parameters), computed by the same code with the gate broadcast.

Two implementations: :func:`rcnn_reference`, the equations step by step with autograd (the slow twin, any
mask), and :class:`RCNN`'s fast path, :class:`RCNNFunction`: the input projections of all t in one matmul,
then the recurrence with a hand-written backward (one matrix product and a few element-wise ops per step, no
autograd graph per step, the batch walked in blocks of rows that stay in cache). Five choices keep it lean:

- the output bias is folded into the last state: s_t = c^{(n)}_t + b follows the same recurrence with
  W_n x_t + b in place of W_n x_t and s_0 = b, so h_t = tanh(s_t) needs no addition per step;
- the projections are written over, step by step, with what the backward needs (λ_t and c_{t-1} - u_t):
  the forward allocates two large tensors (projections and states) where it would allocate five, and fresh
  large buffers cost first-touch page faults;
- the products with a weight matrix (the projections, h_{t-1} U^λ forward and back, and dx = dP W) go to oneDNN
  on a CPU (:func:`_linear`), as ``nn.LSTM``'s do;
- the C++ steps keep the large buffers they make (h and the projections' gradient) in a pool from call to call,
  so that a training step reuses the last step's pages rather than having the operating system zero fresh ones;
- on a CPU the steps run in C++ (``rcnn_kernel.cpp``, built at first use by :mod:`reproq.models.rcnn_kernel`,
  some 25 s once per machine): per step the product through ATen and one fused element-wise pass per row where
  the Python loops (:func:`_steps`, :func:`_steps_backward`: the fallback where no compiler is at hand, and
  ``REPROQ_RCNN_KERNEL=python``) make about eight torch ops, each a pass over [rows, n, d]; on several threads
  each step's product and the rows of its element-wise pass are shared among them.

Tests check that the fast path agrees with the slow twin in values and gradients, and the C++ steps with the
Python ones (float64 to rtol 1e-10; float32 to rtol 1e-4, atol 1e-5, as the kernel's σ and tanh are its own
polynomials and its fused passes round differently; for a given thread count its numbers are the same from run
to run). ``reproq.bench.encoders`` measures the speed against ``torch.nn.LSTM``, and ``results/bench/README.md``
says what each of these choices measured. This file is longer than ~200 lines because it keeps the Python steps
beside the kernel they are the twin of.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn
from torch.autograd.function import once_differentiable
from torch.nn import functional as F

from reproq.data.batching import check_right_padded
from reproq.models import rcnn_kernel
from reproq.models.registry import register
from reproq.models.pooling import last_state, zero_padding


# The recurrence walks the batch in blocks of this many rows (questions), so that a block's state and
# temporaries stay in the CPU's cache through the steps (block sizes measured: results/bench/README.md).
ROWS_PER_BLOCK = 128

try:  # the op torch's own compiler (inductor) uses for a linear layer on a CPU; absent from builds without oneDNN
    _ONEDNN_LINEAR = torch.ops.mkldnn._linear_pointwise if torch.backends.mkldnn.is_available() else None
except (AttributeError, RuntimeError):
    _ONEDNN_LINEAR = None


def _linear(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None) -> torch.Tensor:
    """``x @ weight.T (+ bias)``, for float32 on a CPU through oneDNN where torch has it, else ``F.linear``.

    ``F.linear`` on a CPU goes to MKL, which was measured at half oneDNN's speed on the CPU of these sessions
    (``results/bench/README.md``); ``nn.LSTM``'s CPU kernels are oneDNN's.
    """
    if _ONEDNN_LINEAR is not None and x.dtype == torch.float32 and x.device.type == "cpu":
        return _ONEDNN_LINEAR(x, weight, bias, "none", [], "")
    return F.linear(x, weight, bias)


@dataclass(frozen=True)
class RCNNConfig:
    input_dim: int = 200  # AskUbuntu's 200-d word vectors (Lei et al. §6)
    hidden_dim: int = 400  # Lei et al. Table 3: d = 400; taolei87/rcnn qa/README: -d 400
    order: int = 2  # Lei et al. Table 3: n = 2 (filter width; taolei87/rcnn --order 2)
    init_scale: float = 0.05  # taolei87/rcnn nn/initialization.py random_init: U(-0.05, 0.05)
    scalar_gate: bool = False  # Lei et al. Figure 4: a scalar λ_t "to make the visualization simple"


def _recurrence(x, W, b, U, S0, h0=None, pad=None) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The forward recurrence of :class:`RCNNFunction`: h [B, T, d], P [B, T, n+1, d] whose [:, :, 0] is
    λ_t and [:, :, 1:] the D_t = c_{t-1} - u_t the backward needs, and the final states [B, n, d]."""
    B, T, E = x.shape
    d = U.shape[0]
    n = W.shape[0] // d - 1
    # P[:, t, 0] = W^λ x_t + b^λ, P[:, t, i] = W_i x_t (+ b for i = n); the steps replace them
    # with λ_t and D_t = c_{t-1} - u_t, all the backward needs besides h
    P = _linear(x.reshape(-1, E), W, b).view(B, T, n + 1, d)
    U_T = U.T.contiguous()
    kernel = _kernel(x)
    if kernel is None:
        H, S = _steps(P, U_T, S0, h0, pad)
    else:
        H, S = kernel.forward(P, U_T, S0, h0, pad, ROWS_PER_BLOCK, _ONEDNN_LINEAR is not None)
    return H, P, S


def _kernel(x: torch.Tensor):
    """The C++ step loops (:mod:`reproq.models.rcnn_kernel`) for float32 and float64 on a CPU, else None."""
    if x.device.type != "cpu" or x.dtype not in (torch.float32, torch.float64):
        return None
    return rcnn_kernel.kernel()


def _steps(P, U_T, S0, h0, pad) -> tuple[torch.Tensor, torch.Tensor]:
    """The steps of :func:`_recurrence` in Python, one torch op at a time: the fallback and the twin of
    ``rcnn_kernel.cpp``'s ``forward``. Writes λ_t and D_t over P; returns h [B, T, d] and the final states."""
    B, T, n1, d = P.shape
    H = P.new_empty(B, T, d)
    S = P.new_empty(B, n1 - 1, d)
    for rows in _blocks(B, P.device):  # rows are independent (see ROWS_PER_BLOCK)
        c = S0[rows].clone()  # c[:, i] = c^{(i+1)}_t, the last one shifted by b
        # h stays contiguous for the product; a copy of h0, which must stay intact for the backward
        h = P.new_empty(rows.stop - rows.start, d) if h0 is None else h0[rows].clone()
        one_minus_g = P.new_empty(rows.stop - rows.start, d)
        for t in range(T):
            g, d_t = P[rows, t, 0], P[rows, t, 1:]
            if t or h0 is not None:  # h_0 = 0 unless a state is given
                g += _linear(h, U_T)
            g.sigmoid_()
            if pad is not None:  # λ = 1 at padding: the step leaves every state as it was
                g.masked_fill_(pad[rows, t, None], 1.0)
            # u_t = W_i x_t + c^{(i-1)}_{t-1} is what c_t moves towards; D_t = c_{t-1} - u_t
            torch.sub(c, d_t, out=d_t)
            d_t[:, 1:] -= c[:, :-1]
            torch.mul(g, -1, out=one_minus_g).add_(1)
            c.addcmul_(d_t, one_minus_g.unsqueeze(1), value=-1)  # c_{t-1} - (1 - λ) D = λ c_{t-1} + (1 - λ) u
            H[rows, t] = torch.tanh(c[:, -1], out=h)
        S[rows] = c
    return H, S


def _steps_backward(dH, dS, U, H, P, h0) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
    """Back-propagation through the steps in Python: the fallback and the twin of ``rcnn_kernel.cpp``'s
    ``backward``. Returns the gradients of the projections [B, T, n+1, d], of S0 and of h0 (None without h0)."""
    B, T, n1, d = P.shape
    dP = torch.empty_like(P)
    dS0 = torch.empty_like(dS)
    dh0 = None if h0 is None else torch.empty_like(h0)
    for rows in _blocks(B, H.device):
        r = rows.stop - rows.start
        dC = dS[rows].clone()  # dL/dc_t, carried from step t+1 (at t = T: what the final states get)
        dh = H.new_zeros(r, d)  # dL/dh_t through λ_{t+1}
        h_squared, dg, one_minus_g, da = (H.new_empty(r, d) for _ in range(4))
        for t in reversed(range(T)):
            g, d_t = P[rows, t, 0], P[rows, t, 1:]
            dp = dP[rows, t]
            dh += dH[rows, t]
            dC[:, -1].addcmul_(dh, torch.mul(H[rows, t], H[rows, t], out=h_squared).sub_(1), value=-1)  # tanh'
            torch.mul(d_t[:, 0], dC[:, 0], out=dg)  # ∂c_t/∂λ = c_{t-1} - u = D_t
            for i in range(1, n1 - 1):
                dg.addcmul_(d_t[:, i], dC[:, i])
            torch.mul(g, -1, out=one_minus_g).add_(1)  # 0 at padding: nothing flows into its inputs
            du = torch.mul(dC, one_minus_g.unsqueeze(1), out=dp[:, 1:])  # dL/d(W_i x_t)
            dC.sub_(du)  # λ dC: what reaches c_{t-1} directly
            dC[:, :-1] += du[:, 1:]  # u^{(i)} reads c^{(i-1)}_{t-1}
            dp[:, 0] = torch.mul(g, one_minus_g, out=da).mul_(dg)  # through σ
            dh = _linear(da, U)  # da U^λᵀ
        dS0[rows] = dC
        if dh0 is not None:
            dh0[rows] = dh
    return dP, dS0, dh0


class RCNNFunction(torch.autograd.Function):
    """The whole fast path: ``forward(x [B, T, E], W [(n+1)·d, E], b [(n+1)·d], U [d, d], S0 [B, n, d],
    h0 [B, d] or None, pad [B, T] or None) -> (h [B, T, d], S_T [B, n, d])``.

    W stacks W^λ, W_1 .. W_n; b stacks b^λ, zeros, and the output bias (see the module docstring); S0 holds
    the initial states c^{(1)} .. c^{(n)}, the last one shifted by the output bias, and S_T the states after
    the last step in the same form; h0 is the initial h (zero when None). U acts on row vectors
    (``h_{t-1} @ U``). ``pad`` marks padding steps, where λ is held at 1 so that no state moves: S_T is then each
    row's state after its last real token. The backward is back-propagation through time by hand into a fresh
    (or pooled, unused) gradient tensor, so the saved tensors stay intact (``retain_graph`` and ``gradcheck``
    work).
    """

    @staticmethod
    def forward(ctx, x, W, b, U, S0, h0=None, pad=None):
        H, P, S = _recurrence(x, W, b, U, S0, h0, pad)
        ctx.save_for_backward(x, W, U, H, P, h0)
        return H, S

    @staticmethod
    @once_differentiable
    def backward(ctx, dH, dS):
        x, W, U, H, P, h0 = ctx.saved_tensors
        B, T, n1, d = P.shape
        kernel = _kernel(x)
        if kernel is None:
            dP, dS0, dh0 = _steps_backward(dH, dS, U, H, P, h0)
        else:
            dP, dS0, dh0 = kernel.backward(dH, dS, U, H, P, h0 is not None, ROWS_PER_BLOCK,
                                           _ONEDNN_LINEAR is not None)
        dP2 = dP.view(B * T, n1 * d)
        dA = dP2[:, :d]
        # dU = Σ_{b, t ≥ 1} h_{b,t-1}ᵀ da_{b,t}: the rows (b, t) shifted by one, less the pairs across questions
        dU = H.view(B * T, d)[:-1].T @ dA[1:] - H[:-1, -1].T @ dP[1:, 0, 0]
        if h0 is not None:  # and t = 0 from the given h_0
            dU += h0.T @ dP[:, 0, 0]
        # dx = dP W: a plain product, so oneDNN's (W^T is [E, (n+1)·d], a small copy); the weight gradients'
        # transposed operands stay with torch's own product (results/bench/README.md)
        dx = _linear(dP2, W.T.contiguous()).view(B, T, -1) if ctx.needs_input_grad[0] else None
        return dx, dP2.T @ x.reshape(B * T, -1), dP2.sum(dim=0), dU, dS0, dh0, None


def _blocks(n_rows: int, device: torch.device) -> list[slice]:
    """The rows in blocks of ROWS_PER_BLOCK on a CPU; elsewhere (a GPU wants large matmuls) in one block."""
    if device.type != "cpu":
        return [slice(0, n_rows)]
    return [slice(start, min(start + ROWS_PER_BLOCK, n_rows)) for start in range(0, n_rows, ROWS_PER_BLOCK)]


class RCNN(nn.Module):
    """``forward(x [B, T, E], mask [B, T]) -> h [B, T, d]``, zeros at padding; ``mask`` must be right-padded."""

    def __init__(self, config: RCNNConfig = RCNNConfig()):
        super().__init__()
        E, d, n = config.input_dim, config.hidden_dim, config.order
        if n < 1:
            raise ValueError(f"order (filter width) must be >= 1, got {n}")
        self.config, self.input_dim, self.output_dim = config, E, d
        gates = 1 if config.scalar_gate else d
        self.W_gate = nn.Parameter(torch.empty(gates, E))  # W^λ
        self.b_gate = nn.Parameter(torch.empty(gates))  # b^λ
        self.U_gate = nn.Parameter(torch.empty(d, gates))  # U^λ, applied as h_{t-1} @ U_gate
        self.W_filter = nn.Parameter(torch.empty(n * d, E))  # W_1 .. W_n stacked
        self.bias = nn.Parameter(torch.empty(d))  # b
        for p in self.parameters():
            nn.init.uniform_(p, -config.init_scale, config.init_scale)

    def _weights(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """W, b and U as :class:`RCNNFunction` takes them (a scalar gate broadcast over the d dimensions)."""
        d, E = self.output_dim, self.input_dim
        zeros = self.b_gate.new_zeros((self.config.order - 1) * d)
        W = torch.cat([self.W_gate.expand(d, E), self.W_filter])
        b = torch.cat([self.b_gate.expand(d), zeros, self.bias])  # the output bias rides on W_n x_t (docstring)
        return W, b, self.U_gate.expand(d, d).contiguous()

    def _shifted(self, c: torch.Tensor) -> torch.Tensor:
        """States c [B, n, d] as the fast path holds them: the last one plus the output bias."""
        return torch.cat([c[:, :-1], c[:, -1:] + self.bias], dim=1)

    def _recur(self, x: torch.Tensor, mask: torch.Tensor, state: torch.Tensor | None):
        check_right_padded(mask)
        B, n, d = x.shape[0], self.config.order, self.output_dim
        if state is None:
            S0, h0 = self._shifted(x.new_zeros(B, n, d)), None
        else:
            if state.shape != (B, n + 1, d):
                raise ValueError(f"state must be [B, n + 1, d] = {(B, n + 1, d)}, got {tuple(state.shape)}")
            S0, h0 = self._shifted(state[:, :n]), state[:, n]
        pad = None if bool(mask.all()) else ~mask
        return RCNNFunction.apply(x.contiguous(), *self._weights(), S0.contiguous(), h0, pad)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        h, _ = self._recur(x, mask, None)
        return zero_padding(h, mask)

    def run(self, x: torch.Tensor, mask: torch.Tensor,
            state: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """``(h [B, T, d], final state [B, n + 1, d])`` from ``state`` (zeros when None). A state is
        c^{(1)}_t .. c^{(n)}_t and h_t; the final one is each row's after its last real token (the given one for
        an empty row). Lei et al. §4.2's decoder starts from its encoder's final state."""
        S, S_T = self._recur(x, mask, state)
        n = mask.sum(dim=1)
        h0 = x.new_zeros(x.shape[0], self.output_dim) if state is None else state[:, -1]
        h_T = torch.where((n > 0).unsqueeze(1), last_state(S, mask), h0)
        c_T = torch.cat([S_T[:, :-1], S_T[:, -1:] - self.bias], dim=1)
        return zero_padding(S, mask), torch.cat([c_T, h_T.unsqueeze(1)], dim=1)

    @torch.no_grad()
    def decay(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """1 − λ_t [B, T, d], zeros at padding: the weight of x_t in the states (Lei et al. Figures 4, 5)."""
        check_right_padded(mask)
        S0 = self._shifted(x.new_zeros(x.shape[0], self.config.order, self.output_dim))
        _, P, _ = _recurrence(x.contiguous(), *self._weights(), S0)
        return (1 - P[:, :, 0]) * mask.unsqueeze(-1).to(x.dtype)


def rcnn_reference(model: RCNN, x: torch.Tensor, mask: torch.Tensor, *, decay: bool = False,
                   state: torch.Tensor | None = None, final_state: bool = False):
    """The slow twin: the equations above one step at a time with autograd, for any mask (a padding step
    leaves every state unchanged), from ``state`` (c^{(1)} .. c^{(n)}, h; zeros when None). Returns h [B, T, d],
    then 1 − λ_t [B, T, d] (zeros at padding) with ``decay=True``, then the final state [B, n + 1, d] with
    ``final_state=True``."""
    B, T, _ = x.shape
    n, d = model.config.order, model.output_dim
    W = model.W_filter.view(n, d, -1)
    if state is None:
        state = x.new_zeros(B, n + 1, d)
    c, h = list(state[:, :n].unbind(1)), state[:, n]
    out, decays = [], []
    for t in range(T):
        # a scalar gate ([B, 1]) broadcasts over the d dimensions
        lam = torch.sigmoid(x[:, t] @ model.W_gate.T + h @ model.U_gate + model.b_gate).expand(B, d)
        new_c = [lam * c[i] + (1 - lam) * ((c[i - 1] if i > 0 else 0) + x[:, t] @ W[i].T) for i in range(n)]
        new_h = torch.tanh(new_c[-1] + model.bias)
        real = mask[:, t].unsqueeze(1)
        c = [torch.where(real, new, old) for new, old in zip(new_c, c)]
        h = torch.where(real, new_h, h)
        out.append(new_h * real.to(x.dtype))
        decays.append((1 - lam) * real.to(x.dtype))
    returned = [torch.stack(out, dim=1)]
    if decay:
        returned.append(torch.stack(decays, dim=1))
    if final_state:
        returned.append(torch.stack([*c, h], dim=1))
    return returned[0] if len(returned) == 1 else tuple(returned)


register("rcnn", RCNNConfig)(RCNN)
