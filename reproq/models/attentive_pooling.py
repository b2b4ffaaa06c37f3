"""Attentive pooling (dos Santos, Tan, Xiang & Zhou 2016, "Attentive Pooling Networks"): AP-CNN and AP-BiLSTM.

A shared encoder (a CNN of width k, or a BiLSTM) gives the question Q ∈ R^{c×M} and the answer A ∈ R^{c×L}
(one column per token). Attentive pooling then computes, with one learned U ∈ R^{c×c}::

    G   = tanh(Qᵀ U A)                       (M × L soft alignment of question and answer positions)
    g^q = max over columns of G  (M),        g^a = max over rows of G  (L)
    σ^q = softmax(g^q),  σ^a = softmax(g^a)
    r^q = Q σ^q,         r^a = A σ^a         (attention-weighted pooling)
    s(q, a) = cos(r^q, r^a)

trained pairwise with a margin loss max(0, m − s(q, a⁺) + s(q, a⁻)) ("Cosine similarity with pairwise
ranking is used ... for AP-BiLSTM and AP-CNN following the original implementation", Tay et al. 2018).
Padding positions are left out of both maxima and both softmaxes (their logits are −∞); a row of G
that is all padding never becomes an attention weight.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


class AttentivePooling(nn.Module):
    """``forward(Q, mask_q, A, mask_a) -> (r_q, r_a)``: Q (B, M, c), A (B, L, c), r (B, c)."""

    def __init__(self, dim: int):
        super().__init__()
        self.U = nn.Parameter(torch.empty(dim, dim))
        nn.init.xavier_uniform_(self.U)

    def attention(self, Q, mask_q, A, mask_a) -> tuple[torch.Tensor, torch.Tensor]:
        """σ^q (B, M) and σ^a (B, L), zero at padding."""
        G = torch.tanh(Q @ self.U @ A.transpose(1, 2))  # (B, M, L); tokens are rows here, so Qᵀ U A is Q U Aᵀ
        both = mask_q.unsqueeze(2) & mask_a.unsqueeze(1)
        G = G.masked_fill(~both, float("-inf"))
        g_q = G.max(dim=2).values  # (B, M): each question position's best answer match
        g_a = G.max(dim=1).values  # (B, L)
        return _masked_softmax(g_q, mask_q), _masked_softmax(g_a, mask_a)

    def forward(self, Q, mask_q, A, mask_a) -> tuple[torch.Tensor, torch.Tensor]:
        sigma_q, sigma_a = self.attention(Q, mask_q, A, mask_a)
        return (sigma_q.unsqueeze(1) @ Q).squeeze(1), (sigma_a.unsqueeze(1) @ A).squeeze(1)


def _masked_softmax(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    logits = logits.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(logits.masked_fill(~mask.any(1, keepdim=True), 0.0), dim=1)  # an empty row: no NaN
    return weights * mask.to(weights.dtype)


def attentive_pooling_reference(pool: AttentivePooling, Q, mask_q, A, mask_a):
    """Slow twin of ``pool(Q, mask_q, A, mask_a)``: each pair alone on its real tokens, the equations as printed
    (columns are tokens)."""
    r_q, r_a = [], []
    for i in range(Q.shape[0]):
        q, a = Q[i, mask_q[i]].T, A[i, mask_a[i]].T  # (c, M), (c, L)
        G = torch.tanh(q.T @ pool.U @ a)
        r_q.append(q @ torch.softmax(G.max(dim=1).values, 0))
        r_a.append(a @ torch.softmax(G.max(dim=0).values, 0))
    return torch.stack(r_q), torch.stack(r_a)


def cosine_score(r_q: torch.Tensor, r_a: torch.Tensor) -> torch.Tensor:
    return F.cosine_similarity(r_q, r_a, dim=-1, eps=1e-8)
