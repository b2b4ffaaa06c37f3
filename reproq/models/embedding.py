"""Word vectors in front of a sequence encoder: the project's encoder interface on token ids.

Lei et al. §6: "The word vectors are fixed to avoid over-fitting across all experiments." taolei87/rcnn
also scales each word's vector by its IDF (``--reweight 1``) and applies dropout to the word vectors.
"""

from __future__ import annotations

import math

import torch
from torch import nn


class WordEmbedding(nn.Module):
    """``tokens [B, T] -> vectors [B, T, E]``: fixed vectors, optional per-word weights (fixed, e.g. IDF, or learned),
    dropout.

    Fixed vectors (weights folded in) are a non-persistent buffer: they move with the model to a device
    but are no parameter (no gradient, not counted in |θ|) and stay out of state dicts and checkpoints.
    """

    def __init__(self, vectors: torch.Tensor, *, weights: torch.Tensor | None = None, dropout: float = 0.0,
                 learn_weights: bool = False):
        super().__init__()
        vectors = torch.as_tensor(vectors, dtype=torch.float32)
        if weights is not None:  # folding the weights into the table is the same as scaling each looked-up vector
            vectors = vectors * torch.as_tensor(weights, dtype=torch.float32).unsqueeze(1)
        self.register_buffer("vectors", vectors, persistent=False)  # data, not state: kept out of checkpoints
        self.dropout = nn.Dropout(dropout)
        self.dim = vectors.shape[1]
        # Rankine §5.1: a learned weight λ_w >= 0 per word, λ_w = softplus(θ_w), starting at λ_w = 1
        self.learned = nn.Parameter(torch.full((len(vectors),), math.log(math.e - 1))) if learn_weights else None

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = nn.functional.embedding(tokens, self.vectors)
        if self.learned is not None:
            x = x * nn.functional.softplus(self.learned)[tokens].unsqueeze(-1)
        return self.dropout(x)


class TokenEncoder(nn.Module):
    """``forward(tokens: LongTensor[B, T], mask: BoolTensor[B, T]) -> FloatTensor[B, T, D]``: word vectors,
    then a sequence encoder (see :mod:`reproq.models`)."""

    def __init__(self, embedding: WordEmbedding, encoder: nn.Module):
        super().__init__()
        if getattr(encoder, "input_dim", embedding.dim) != embedding.dim:
            raise ValueError(f"the encoder reads {encoder.input_dim}-d vectors, the embedding gives {embedding.dim}-d")
        self.embedding, self.encoder = embedding, encoder
        self.output_dim = encoder.output_dim

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.encoder(self.embedding(tokens), mask)
