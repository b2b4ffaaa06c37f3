"""The answer rankers of Tay et al. 2018 and their baselines, on one shared front end.

Front end (§Embedding + Projection): fixed pre-trained word vectors (n-d, a buffer, no gradient) and one
trainable n × m projection shared by question and answer ("we initialize and fix this layer with pretrained
embeddings while connecting to a n × m projection layer").

- **Pointwise** (QRNN, CTRN, LSTM, BiLSTM; and, beyond the paper, the other papers' encoders CNN, GRU, RCNN and
  CBOW, for notebook 12's side-by-side table): a pair encoder gives per-step states of q and a; temporal mean
  pooling over the real tokens; the two vectors concatenated (with the four word-overlap features of
  Severyn & Moschitti on TrecQA, "concatenated before the dense layers"); 1–3 dense layers; a 2-class
  softmax (Eq. 2). ``forward(batch)`` gives the two logits; ``score(batch)`` ranks by logit₁ − logit₀, the
  log-odds of the positive class, which orders candidates as softmax probability does.
- **Pairwise** (AP-CNN, AP-BiLSTM, dos Santos et al. 2016): a shared CNN or BiLSTM, attentive pooling,
  cosine (:mod:`reproq.models.attentive_pooling`). ``forward(batch)`` gives what
  :class:`~reproq.train.objectives.MaxMarginObjective` takes: s(q, a⁺) and s(q, a⁻).

A batch is any object with ``q_tokens, q_mask, a_tokens, a_mask`` (LongTensor / BoolTensor [B, T]),
``features`` ([B, 4] or None) and, for pairwise training, ``neg_tokens, neg_mask``.
Not given by the paper, chosen here: ReLU after each dense layer, dropout (0.5) on the dense layers'
inputs (by default the overlap features too; ``feature_dropout=False`` joins them after the first dropout),
no activation after the projection.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from reproq.models import build_encoder, encoder_module
from reproq.models.attentive_pooling import AttentivePooling, cosine_score
from reproq.models.ctrn import CTRN
from reproq.models.embedding import WordEmbedding
from reproq.models.pooling import mean_state
from reproq.models.qrnn import QRNNConfig

# beyond Tay et al., the sequence encoders of the other papers (build_pair_encoder): Lei et al.'s CNN, GRU and RCNN,
# Rankine's CBOW (states tanh(W x + b), m-d)
POINTWISE = ("QRNN", "CTRN", "LSTM", "BiLSTM", "CNN", "GRU", "RCNN", "CBOW")
PAIRWISE = ("AP-CNN", "AP-BiLSTM")
METHODS = POINTWISE + PAIRWISE


@dataclass(frozen=True)
class RankerConfig:
    method: str = "CTRN"  # one of METHODS
    projection_dim: int = 300  # m: Tay et al. Table 2 (the paper does not give m for TrecQA)
    hidden_dim: int = 512  # d: Table 2; tuned in [128, 1024] by 128 (§Implementation Details); per direction for Bi*
    width: int = 2  # k of QRNN/CTRN: Table 2
    ap_width: int = 3  # AP-CNN filter width: dos Santos et al. 2016 convolve word trigrams
    mlp_layers: int = 1  # dense layers: tuned in [1, 3] (§Implementation Details)
    mlp_dim: int = 128  # h: Table 2
    n_features: int = 0  # 4 on TrecQA: the word-overlap features (§Experimental Setup, TrecQA)
    dropout: float = 0.5  # §Implementation Details: "Dropout is set to 0.5"
    feature_dropout: bool = True  # ours (the paper does not say): the first dropout also hits the overlap features
    alignment: str = "literal"  # CTRN's t*: as printed, or one of the other readings of reproq.models.ctrn.ALIGNMENTS

    def __post_init__(self):
        if self.method not in METHODS:
            raise ValueError(f"unknown method {self.method!r}; known: {', '.join(METHODS)}")
        if not 1 <= self.mlp_layers <= 3:
            raise ValueError(f"mlp_layers must be 1, 2 or 3 (the paper's range), got {self.mlp_layers}")


class Siamese(nn.Module):
    """One sequence encoder applied to q and to a: ``forward(x_q, mask_q, x_a, mask_a) -> (h_q, h_a)``."""

    def __init__(self, encoder: nn.Module):
        super().__init__()
        self.encoder, self.output_dim = encoder, encoder.output_dim

    def forward(self, x_q, mask_q, x_a, mask_a):
        return self.encoder(x_q, mask_q), self.encoder(x_a, mask_a)


def build_pair_encoder(config: RankerConfig) -> nn.Module:
    m, d = config.projection_dim, config.hidden_dim
    if config.method == "CTRN":
        return CTRN(QRNNConfig(input_dim=m, hidden_dim=d, width=config.width), alignment=config.alignment)
    name, sizes = _registered(config)
    return Siamese(build_encoder(name, input_dim=m, **sizes))


def family_module(config: RankerConfig) -> str:
    """The module of the encoder family ``config``'s pair encoder is built from
    (:data:`reproq.models.FAMILY_MODULES`)."""
    return CTRN.__module__ if config.method == "CTRN" else encoder_module(_registered(config)[0])


def _registered(config: RankerConfig) -> tuple[str, dict]:
    """The registry's encoder of a method other than CTRN, and its sizes (the CNNs convolve ap_width words, QRNN and
    RCNN look k back)."""
    d = config.hidden_dim
    encoders = {"QRNN": ("qrnn", dict(hidden_dim=d, width=config.width)),
                "AP-CNN": ("cnn", dict(hidden_dim=d, width=config.ap_width)),
                "CNN": ("cnn", dict(hidden_dim=d, width=config.ap_width)),
                "LSTM": ("lstm", dict(hidden_dim=d)),
                "BiLSTM": ("lstm", dict(hidden_dim=d, bidirectional=True)),
                "AP-BiLSTM": ("lstm", dict(hidden_dim=d, bidirectional=True)),
                "GRU": ("gru", dict(hidden_dim=d)),
                "RCNN": ("rcnn", dict(hidden_dim=d, order=config.width)),
                "CBOW": ("cbow", {})}
    return encoders[config.method]


class _Ranker(nn.Module):
    def __init__(self, vectors: torch.Tensor, config: RankerConfig):
        super().__init__()
        self.config = config
        self.embedding = WordEmbedding(vectors)  # fixed: a buffer, no gradient
        self.projection = nn.Linear(self.embedding.dim, config.projection_dim, bias=False)  # n × m
        self.encoder = build_pair_encoder(config)

    def encode(self, q_tokens, q_mask, a_tokens, a_mask) -> tuple[torch.Tensor, torch.Tensor]:
        """Per-step states (B, T_q, D), (B, T_a, D) of questions and answers."""
        x_q, x_a = self.projection(self.embedding(q_tokens)), self.projection(self.embedding(a_tokens))
        return self.encoder(x_q, q_mask, x_a, a_mask)


class PointwiseRanker(_Ranker):
    """Encoder, mean pooling, [q; a; features], dense layers, 2-class softmax (Tay et al. Eq. 2, 3)."""

    def __init__(self, vectors: torch.Tensor, config: RankerConfig):
        if config.method not in POINTWISE:
            raise ValueError(f"{config.method} is pairwise; build it with PairwiseRanker")
        super().__init__(vectors, config)
        layers, width = [], 2 * self.encoder.output_dim + config.n_features
        for _ in range(config.mlp_layers):
            layers += [nn.Dropout(config.dropout), nn.Linear(width, config.mlp_dim), nn.ReLU()]
            width = config.mlp_dim
        self.mlp = nn.Sequential(*layers)
        self.output = nn.Linear(width, 2)  # W_f ∈ R^{h×2}, b_f ∈ R^2 (Eq. 2)

    def forward(self, batch) -> torch.Tensor:
        """Logits (B, 2) of the classes "not an answer", "an answer"."""
        h_q, h_a = self.encode(batch.q_tokens, batch.q_mask, batch.a_tokens, batch.a_mask)
        x = torch.cat([mean_state(h_q, batch.q_mask), mean_state(h_a, batch.a_mask)], dim=-1)  # temporal mean pooling
        if not self.config.n_features:
            return self.output(self.mlp(x))
        features = batch.features.to(h_q.dtype)
        if self.config.feature_dropout:
            return self.output(self.mlp(torch.cat([x, features], dim=-1)))
        # the features join after the first dropout: the encodings are dropped out, the features never
        return self.output(self.mlp[1:](torch.cat([self.mlp[0](x), features], dim=-1)))

    def score(self, batch) -> torch.Tensor:
        logits = self.forward(batch)
        return logits[:, 1] - logits[:, 0]


class PairwiseRanker(_Ranker):
    """Encoder, attentive pooling, cosine: ``score(batch)`` is s(q, a); ``forward(batch)`` adds s(q, a⁻)."""

    def __init__(self, vectors: torch.Tensor, config: RankerConfig):
        if config.method not in PAIRWISE:
            raise ValueError(f"{config.method} is pointwise; build it with PointwiseRanker")
        super().__init__(vectors, config)
        self.pooling = AttentivePooling(self.encoder.output_dim)

    def _states(self, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.encoder.encoder(self.projection(self.embedding(tokens)), mask)  # one side of the Siamese pair

    def score(self, batch) -> torch.Tensor:
        h_q, h_a = self._states(batch.q_tokens, batch.q_mask), self._states(batch.a_tokens, batch.a_mask)
        return cosine_score(*self.pooling(h_q, batch.q_mask, h_a, batch.a_mask))

    def forward(self, batch):
        """``(s(q, a⁺) [B], s(q, a⁻) [B, 1], None)``, the arguments of the max-margin loss."""
        h_q = self._states(batch.q_tokens, batch.q_mask)  # encoded once for both answers
        scores = [cosine_score(*self.pooling(h_q, batch.q_mask, self._states(tokens, mask), mask))
                  for tokens, mask in ((batch.a_tokens, batch.a_mask), (batch.neg_tokens, batch.neg_mask))]
        return scores[0], scores[1].unsqueeze(1), None


def build_ranker(vectors: torch.Tensor, config: RankerConfig) -> _Ranker:
    return (PointwiseRanker if config.method in POINTWISE else PairwiseRanker)(vectors, config)


def paper_parameter_count(model: _Ranker) -> int:
    """Parameters as Tay et al. Table 2's formulas count them: the encoder's weight matrices (3kdm for
    QRNN/CTRN, 4(md + d²) per LSTM direction; no biases) plus the composition (the first dense layer,
    2dh + h, or attentive pooling's U); no word vectors, projection, further dense layers or output layer."""
    encoder = sum(p.numel() for name, p in model.encoder.named_parameters() if "bias" not in name)
    if isinstance(model, PairwiseRanker):
        return encoder + model.pooling.U.numel()
    first = model.mlp[1]
    return encoder + first.weight.numel() + first.bias.numel()
