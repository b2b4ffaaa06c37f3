"""Cross Temporal Recurrent Network (Tay et al. 2018): QRNN with Lightweight Temporal Crossing (LTC).

Both sides share one QRNN (its convolutions give Z_s, F_s, O_s for s ∈ {q, a}); each side runs two cells
(§Lightweight Temporal Crossing, CTRN-Q; CTRN-A is symmetric)::

    c_t^(q)  = f_t^q ⊙ c_{t-1}^(q)   + (1 − f_t^q) ⊙ z_t^q          h_t^(q)  = o_t^q ⊙ c_t^(q)
    c_t^(q†) = f_{t*}^a ⊙ c_{t-1}^(q†) + (1 − f_{t*}^a) ⊙ z_t^q     h_t^(q†) = o_{t*}^a ⊙ c_t^(q†)
    output_t = h_t^(q) ⊙ h_t^(q†)                                   ("Hadamard product ... of each time step")

The dagger cell applies the *partner's* gates to the side's *own* Z, as the text says ("applying partner
gates F_a, O_a on the question representation Z_q"); the printed equations read z_t^a in CTRN-Q and
z_{t*}^q in CTRN-A, which contradicts the text and Figure 2, so we read them as typos.

Alignment (the paper: "t* = t × ⌈max(|q|, |a|) / min(|q|, |a|)⌉", "for simplicity"): with 1-based steps t,
r = ⌈max(ℓ_q, ℓ_a) / min(ℓ_q, ℓ_a)⌉ from each pair's *real* lengths ℓ (not the padded batch width), t* clipped to
the partner's last real step. The paper gives one line for it, so it is a named choice here (:data:`ALIGNMENTS`):

- ``"literal"``, as printed: t* = min(t · r, ℓ_partner) on both sides. The shorter side reads its partner's gates every
  r steps; the *longer* side reads step r, then is clipped to the partner's last step for every t ≥ ⌈ℓ_partner / r⌉,
  so most of its steps read the partner's *last* gate (on TrecQA's answers, usually the gate at "?").
- ``"ceil"``: the shorter side as printed, the longer side ⌈t / r⌉: each partner step serves r of its steps.
- ``"proportional"``: both sides spread over the partner, first step to first and last to last:
  t* − 1 = round((t − 1) · (ℓ_partner − 1) / (ℓ_own − 1)) (halves up; a one-step side reads the partner's last).

Equal lengths give t* = t in all three. Steps past a side's own length are padding and output 0.

LTC adds no parameters: a CTRN has exactly its QRNN's weights (Tay et al. §Complexity Analysis).
:meth:`CTRN.forward` gathers the aligned gates and reuses the QRNN's fast forget-mult;
:func:`ctrn_reference` is its slow twin, every step written out with t* computed as printed.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from reproq.models.qrnn import QRNN, QRNNConfig, forget_mult_reference


ALIGNMENTS = ("literal", "ceil", "proportional")


def aligned_steps(width: int, own_length: torch.Tensor, partner_length: torch.Tensor,
                  alignment: str = "literal") -> torch.Tensor:
    """0-based t* − 1 for the 0-based steps 0 … width − 1 of each row (module docstring: ``alignment``).

    >>> aligned_steps(4, torch.tensor([2, 4]), torch.tensor([5, 4])).tolist()  # literal: r = 3, then r = 1
    [[2, 4, 4, 4], [0, 1, 2, 3]]
    >>> aligned_steps(5, torch.tensor([5]), torch.tensor([2]), "ceil").tolist()  # r = 3: t* = 1, 1, 1, 2, 2
    [[0, 0, 0, 1, 1]]
    >>> aligned_steps(5, torch.tensor([5]), torch.tensor([2]), "proportional").tolist()
    [[0, 0, 1, 1, 1]]
    """
    if alignment not in ALIGNMENTS:
        raise ValueError(f"alignment must be one of {ALIGNMENTS}, got {alignment!r}")
    own, partner = own_length.clamp(min=1), partner_length.clamp(min=1)
    steps = torch.arange(1, width + 1, device=own.device)[None, :]  # 1-based t
    if alignment == "proportional":  # integer arithmetic: round((t - 1)(ℓp - 1) / (ℓo - 1)), halves up
        span, reach = (own - 1).clamp(min=1)[:, None], (partner - 1)[:, None]
        index = torch.div(2 * (steps - 1) * reach + span, 2 * span, rounding_mode="floor")
        return torch.where(own[:, None] > 1, index, reach).clamp(max=reach)
    r = torch.div(torch.maximum(own, partner) + torch.minimum(own, partner) - 1,
                  torch.minimum(own, partner), rounding_mode="floor")[:, None]  # integer ceil(max / min)
    index = torch.minimum(steps * r, partner[:, None]) - 1  # (B, width)
    if alignment == "ceil":  # the longer side: ceil(t / r)
        longer = torch.minimum(torch.div(steps + r - 1, r, rounding_mode="floor"), partner[:, None]) - 1
        index = torch.where((own > partner)[:, None], longer, index)
    return index


def _gather_steps(gate: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
    """gate (B, T_partner, d) read at index (B, T_own): (B, T_own, d)."""
    return gate.gather(1, index.unsqueeze(-1).expand(-1, -1, gate.shape[-1]))


class CTRN(nn.Module):
    """Pair encoder: ``forward(x_q, mask_q, x_a, mask_a) -> (h_q, h_a)``, each (B, T_s, d), 0 at padding;
    ``alignment`` one of :data:`ALIGNMENTS`."""

    def __init__(self, config: QRNNConfig = QRNNConfig(), alignment: str = "literal"):
        super().__init__()
        if alignment not in ALIGNMENTS:
            raise ValueError(f"alignment must be one of {ALIGNMENTS}, got {alignment!r}")
        self.config, self.input_dim, self.output_dim = config, config.input_dim, config.hidden_dim
        self.alignment = alignment
        self.qrnn = QRNN(config)  # the only parameters, shared by question and answer

    def _side(self, own, own_mask, partner, partner_mask, index):
        z, f, o = own
        _, f_partner, o_partner = partner
        h = o * self.qrnn.recurrence(f, z)  # CTRN-s cell: the QRNN
        f_dag, o_dag = _gather_steps(f_partner, index), _gather_steps(o_partner, index)
        h_dag = o_dag * self.qrnn.recurrence(f_dag, z)  # s† cell: partner gates on own Z
        return h * h_dag * own_mask.unsqueeze(-1).to(h.dtype)

    def forward(self, x_q, mask_q, x_a, mask_a):
        gates_q, gates_a = self.qrnn.gates(x_q), self.qrnn.gates(x_a)
        len_q, len_a = mask_q.sum(1), mask_a.sum(1)
        index_q = aligned_steps(x_q.shape[1], len_q, len_a, self.alignment)  # into a's steps
        index_a = aligned_steps(x_a.shape[1], len_a, len_q, self.alignment)  # into q's steps
        return (self._side(gates_q, mask_q, gates_a, mask_a, index_q),
                self._side(gates_a, mask_a, gates_q, mask_q, index_a))


def ctrn_reference(model: CTRN, x_q, mask_q, x_a, mask_a):
    """Slow twin of ``model(x_q, mask_q, x_a, mask_a)``: each pair alone, each step written out."""
    d = model.config.hidden_dim
    out_q, out_a = x_q.new_zeros(x_q.shape[:2] + (d,)), x_a.new_zeros(x_a.shape[:2] + (d,))
    for i in range(x_q.shape[0]):
        lq, la = int(mask_q[i].sum()), int(mask_a[i].sum())
        zq, fq, oq = (g[0] for g in model.qrnn.gates(x_q[i:i + 1, :lq]))  # each (ℓ_q, d)
        za, fa, oa = (g[0] for g in model.qrnn.gates(x_a[i:i + 1, :la]))
        r = math.ceil(max(lq, la) / min(lq, la))
        for z, f, o, f_p, o_p, length, partner, out in ((zq, fq, oq, fa, oa, lq, la, out_q),
                                                        (za, fa, oa, fq, oq, la, lq, out_a)):
            c = forget_mult_reference(f[None], z[None])[0]
            c_dag, h = torch.zeros_like(z[0]), []
            for t in range(1, length + 1):  # 1-based, as printed
                t_star = _aligned_step(t, length, partner, r, model.alignment)
                c_dag = f_p[t_star - 1] * c_dag + (1 - f_p[t_star - 1]) * z[t - 1]
                h.append(o[t - 1] * c[t - 1] * o_p[t_star - 1] * c_dag)
            out[i, :length] = torch.stack(h)
    return out_q, out_a


def _aligned_step(t: int, own: int, partner: int, r: int, alignment: str) -> int:
    """1-based t* of 1-based step t, in plain integers (the slow twin of :func:`aligned_steps`)."""
    if alignment == "proportional":
        if own == 1:
            return partner
        return math.floor((t - 1) * (partner - 1) / (own - 1) + 0.5) + 1
    if alignment == "ceil" and own > partner:
        return min(math.ceil(t / r), partner)
    return min(t * r, partner)
