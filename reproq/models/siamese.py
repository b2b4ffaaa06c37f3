"""Smolyakov & Srikant (2017) Experiment 3: a Siamese recurrent network trained with the contrastive loss.

Both questions of a pair go through one shared encoder — a bidirectional LSTM, mean-pooled — and then "several
fully connected layers" with dropout between them ("in order for the Siamese RNN to generalize to domain
adaptation"); the distance of a pair is the Euclidean distance of the two outputs, and (their Eq. 4–5, y = 0 for a
similar pair, 1 for a dissimilar one):

.. math:: L = \\tfrac{1}{2}(1 - y)\\, D_w^2 + \\tfrac{1}{2}\\, y \\max\\{0, \\Delta - D_w\\}^2, \\quad
          D_w = \\lVert G(x_1) - G(x_2) \\rVert_2

averaged here over a batch's pairs: each (query, positive) and each (query, negative)
(:class:`reproq.train.objectives.ContrastiveObjective`). Candidates are ranked by −D_w. Table 5: 128 hidden units per direction, dropout 0.5, Δ = 0.5; the number and width of the dense layers are
not reported (two, as wide as the encoding, tanh between them).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from reproq.models.question import QuestionEncoder, RankingBatch


@dataclass(frozen=True)
class SiameseConfig:
    dense_layers: int = 2  # "several fully connected layers": not reported
    dropout: float = 0.5  # Table 5: dropout prob 0.5 ("keep probability equal to 0.5")
    margin: float = 0.5  # Table 5: loss margin Δ = 0.5


class SiameseEncoder(nn.Module):
    """``forward(title, title_mask, body, body_mask) -> [Q, D]``: the question encoder's vector (the encoder's own
    config should not normalise it), then dense layers with dropout before each."""

    def __init__(self, question_encoder: QuestionEncoder, config: SiameseConfig = SiameseConfig()):
        super().__init__()
        d = question_encoder.output_dim
        blocks: list[nn.Module] = []
        for i in range(config.dense_layers):
            blocks += [nn.Dropout(config.dropout), nn.Linear(d, d)] + ([nn.Tanh()] if i < config.dense_layers - 1 else [])
        self.question_encoder, self.dense, self.output_dim = question_encoder, nn.Sequential(*blocks), d

    def forward(self, title, title_mask, body=None, body_mask=None) -> torch.Tensor:
        return self.dense(self.question_encoder(title, title_mask, body, body_mask))


class SiameseRanker(nn.Module):
    """``forward(batch) -> (positive [N], negatives [N, K], mask [N, K])`` distances D_w of the training pairs."""

    def __init__(self, encoder: SiameseEncoder):
        super().__init__()
        self.question_encoder = encoder

    def forward(self, batch: RankingBatch):
        v = self.question_encoder(batch.title, batch.title_mask, batch.body, batch.body_mask)  # (Q, D)
        query, positive, negatives = v[batch.pairs[:, 0]], v[batch.pairs[:, 1]], v[batch.pairs[:, 2:]]
        return ((query - positive).norm(dim=-1), (query.unsqueeze(1) - negatives).norm(dim=-1), batch.negatives_mask)
