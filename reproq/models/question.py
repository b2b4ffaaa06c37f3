"""A question as one unit vector, and the cosine scores the ranking loss needs (Lei et al. 2016 §3, §4.1).

The title and the body go through the same encoder; each is pooled to a vector and the question is
their average ("the final representation is computed as the average of the two resulting vectors"),
or the title alone (Table 5). As taolei87/rcnn: states normalised before pooling (footnote 4), dropout
on the question vector, then the vector normalised, so that a dot product is the cosine similarity.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from reproq.models.embedding import TokenEncoder
from reproq.models.pooling import POOLINGS, normalize_states, pool

FIELDS = ("title", "title+body")


@dataclass(frozen=True)
class QuestionEncoderConfig:
    pooling: str = "last"  # Lei et al. Table 2: the RCNN's best is the last state (CNN, LSTM, GRU: mean)
    fields: str = "title+body"  # Lei et al. §4.1: average of title and body; Table 5 also "title"
    normalize_states: bool = True  # Lei et al. footnote 4; taolei87/rcnn --normalize 1
    dropout: float = 0.1  # taolei87/rcnn qa/README --dropout 0.1; Lei et al. §6 grid {0.1, 0.2, 0.3}
    projection: bool = False  # Rankine §5.2: h* = tanh(W_1 h + b_1) on the pooled vector, before the cosine

    def __post_init__(self):
        if self.pooling not in POOLINGS:
            raise ValueError(f"pooling must be one of {POOLINGS}, got {self.pooling!r}")
        if self.fields not in FIELDS:
            raise ValueError(f"fields must be one of {FIELDS}, got {self.fields!r}")


@dataclass
class RankingBatch:
    """Questions as padded tensors and the training pairs that index them.

    ``pairs[j] = (query row, positive row, negative rows ...)``; ``negatives_mask[j, k]`` is False where
    pair j has fewer negatives than the widest pair (those columns repeat a real negative).
    """

    title: torch.Tensor  # (Q, T_title) token ids
    title_mask: torch.Tensor  # (Q, T_title)
    body: torch.Tensor  # (Q, T_body)
    body_mask: torch.Tensor  # (Q, T_body)
    pairs: torch.Tensor  # (N, 2 + K) row indices into the Q questions
    negatives_mask: torch.Tensor  # (N, K)

    def narrowed(self, pairs: torch.Tensor) -> RankingBatch:
        """The batch of other ``pairs`` ``(N', 2 + K')`` of these rows (every negative real), holding only the
        questions they name, re-indexed."""
        rows, pairs = torch.unique(pairs, return_inverse=True)
        return RankingBatch(self.title[rows], self.title_mask[rows], self.body[rows], self.body_mask[rows], pairs,
                            torch.ones_like(pairs[:, 2:], dtype=torch.bool))

    def to(self, device) -> RankingBatch:
        return RankingBatch(*(t.to(device, non_blocking=True) for t in
                              (self.title, self.title_mask, self.body, self.body_mask, self.pairs, self.negatives_mask)))


class QuestionEncoder(nn.Module):
    """``forward(title, title_mask, body, body_mask) -> [Q, D]`` unit vectors."""

    def __init__(self, encoder: TokenEncoder, config: QuestionEncoderConfig = QuestionEncoderConfig()):
        super().__init__()
        self.encoder, self.config = encoder, config
        self.dropout = nn.Dropout(config.dropout)
        self.output_dim = encoder.output_dim
        self.projection = nn.Linear(self.output_dim, self.output_dim) if config.projection else None

    def _field(self, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        states = self.encoder(tokens, mask)
        if self.config.normalize_states:
            states = normalize_states(states)
        return pool(states, mask, self.config.pooling)

    def forward(self, title: torch.Tensor, title_mask: torch.Tensor, body: torch.Tensor | None = None,
                body_mask: torch.Tensor | None = None) -> torch.Tensor:
        v = self._field(title, title_mask)
        if self.config.fields == "title+body":
            v = 0.5 * (v + self._field(body, body_mask))
        if self.projection is not None:
            v = torch.tanh(self.projection(v))
        v = self.dropout(v)
        return v / (v.norm(dim=-1, keepdim=True) + 1e-8)


class SeparateFieldsEncoder(nn.Module):
    """Rankine §5.2: the title and the body through encoders of their own (two :class:`QuestionEncoder` of one
    field each), scored as ``s = β s_body + (1 − β) s_title``.

    ``gate="scalar"``: one learned β = σ(θ) (starting at ½). The question is the unit vector ``[√(1 − β) t, √β b]``:
    its dot product with another question's is that score, so it ranks like any question encoder.
    ``gate="mlp"``: his equation's β for each pair, ``σ(W_2 tanh(W_1 [t_q, t_p, b_q, b_p] + b_1) + b_2)``; the
    question is ``[t, b]`` and :meth:`score` scores pairs (which he proposed and did not run).
    ``forward(title, title_mask, body, body_mask) -> [Q, D_title + D_body]``."""

    def __init__(self, title: QuestionEncoder, body: QuestionEncoder, *, gate: str = "scalar", gate_hidden: int = 50):
        super().__init__()
        if title.config.fields != "title" or body.config.fields != "title":
            raise ValueError("each field's encoder reads one field: give both fields='title'")
        if gate not in ("scalar", "mlp"):
            raise ValueError(f"gate must be 'scalar' or 'mlp', got {gate!r}")
        self.title, self.body, self.gate = title, body, gate
        self.output_dim = title.output_dim + body.output_dim
        if gate == "scalar":
            self.beta_logit = nn.Parameter(torch.zeros(()))
        else:  # gate_hidden: not reported (he did not run it)
            self.beta_mlp = nn.Sequential(nn.Linear(2 * self.output_dim, gate_hidden), nn.Tanh(),
                                          nn.Linear(gate_hidden, 1), nn.Sigmoid())

    @property
    def beta(self) -> torch.Tensor:
        return torch.sigmoid(self.beta_logit)

    def forward(self, title: torch.Tensor, title_mask: torch.Tensor, body: torch.Tensor,
                body_mask: torch.Tensor) -> torch.Tensor:
        t, b = self.title(title, title_mask), self.body(body, body_mask)
        if self.gate == "mlp":
            return torch.cat([t, b], dim=-1)
        return torch.cat([torch.sqrt(1 - self.beta) * t, torch.sqrt(self.beta) * b], dim=-1)

    @property
    def score(self):
        """The pair scorer ``score(query [N, D], candidates [N, K, D]) -> [N, K]`` of the MLP gate (None with the
        scalar gate: a dot product of the vectors is the score)."""
        return self._gated_score if self.gate == "mlp" else None

    def _gated_score(self, query: torch.Tensor, candidates: torch.Tensor) -> torch.Tensor:
        d, device = self.title.output_dim, self.beta_mlp[0].weight.device
        query, candidates = query.to(device).unsqueeze(1).expand_as(candidates), candidates.to(device)
        beta = self.beta_mlp(torch.cat([query[..., :d], candidates[..., :d], query[..., d:], candidates[..., d:]],
                                       dim=-1)).squeeze(-1)
        title = (query[..., :d] * candidates[..., :d]).sum(-1)
        body = (query[..., d:] * candidates[..., d:]).sum(-1)
        return beta * body + (1 - beta) * title


def pair_scores(v: torch.Tensor, batch: RankingBatch, score=None) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(positive [N], negatives [N, K], mask [N, K])``: the cosines of the batch's training pairs, from the unit
    vectors ``v [Q, D]`` of its questions, or ``score(query [N, D], candidates [N, 1 + K, D])``'s scores."""
    if score is not None:
        s = score(v[batch.pairs[:, 0]], v[batch.pairs[:, 1:]])
        return s[:, 0], s[:, 1:], batch.negatives_mask
    query, positive, negatives = v[batch.pairs[:, 0]], v[batch.pairs[:, 1]], v[batch.pairs[:, 2:]]
    return (query * positive).sum(-1), torch.einsum("nd,nkd->nk", query, negatives), batch.negatives_mask


class QuestionRanker(nn.Module):
    """Cosine scores of training pairs: ``forward(batch) -> (positive [N], negatives [N, K], mask [N, K])``,
    the contract of :class:`reproq.train.objectives.MaxMarginObjective`."""

    def __init__(self, question_encoder: QuestionEncoder):
        super().__init__()
        self.question_encoder = question_encoder

    def forward(self, batch: RankingBatch):
        return pair_scores(self.question_encoder(batch.title, batch.title_mask, batch.body, batch.body_mask), batch,
                           getattr(self.question_encoder, "score", None))
