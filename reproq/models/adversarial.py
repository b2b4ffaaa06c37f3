"""Domain-adversarial training (Ganin & Lempitsky 2015), as Smolyakov & Srikant (2017) §4 adapt AskUbuntu to Android.

A question encoder G_f is trained on the labelled source domain with the max-margin loss L_y, and a domain
classifier on its encodings of questions of both domains with the binary cross-entropy L_d; the encoder is pushed
to make the two domains indistinguishable:

.. math:: \\min_{\\theta_f, \\theta_d} E = \\sum_i L_y^i(\\theta_f) - \\lambda \\sum_i L_d^i(\\theta_f, \\theta_d)

in one backward pass through a *gradient reversal layer* between encoder and classifier: the identity forward,
``-λ ×`` the gradient backward (:class:`GradientReversal`), so the classifier descends L_d while the encoder
ascends λ L_d. The domain classifier sees only which domain a question comes from — never a similarity label of
the target domain, which is unlabelled here by construction.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from reproq.models.question import QuestionEncoder, RankingBatch, pair_scores


class GradientReversal(torch.autograd.Function):
    """``forward(x, λ) = x``; ``backward: dL/dx -> -λ · dL/dx`` (no gradient for λ)."""

    @staticmethod
    def forward(ctx, x, lam: float):
        ctx.lam = lam
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad):
        return -ctx.lam * grad, None


def reverse_gradient(x: torch.Tensor, lam: float) -> torch.Tensor:
    """The gradient reversal layer: ``x`` unchanged, its gradient times ``-lam`` on the way back."""
    return GradientReversal.apply(x, lam)


@dataclass(frozen=True)
class DomainClassifierConfig:
    layers: int = 4  # Smolyakov & Srikant Table 4: "4-layer MLP"
    hidden_dim: int | None = None  # not reported; None: the encoding's size
    lam: float = 1e-6  # λ, Table 4: 1e-6 for the CNN, 1e-7 for the LSTM (swept 1e-3 .. 1e-7)


class DomainClassifier(nn.Module):
    """``forward(v [N, D]) -> logits [N]`` that a question comes from the target domain: ``layers`` linear layers
    with ReLU between them, behind the gradient reversal layer (``lam`` = λ)."""

    def __init__(self, input_dim: int, config: DomainClassifierConfig = DomainClassifierConfig()):
        super().__init__()
        if config.layers < 1:
            raise ValueError(f"the domain classifier needs at least one layer, got {config.layers}")
        self.config = config
        hidden = config.hidden_dim or input_dim
        sizes = [input_dim] + [hidden] * (config.layers - 1) + [1]
        blocks: list[nn.Module] = []
        for i, (a, b) in enumerate(zip(sizes, sizes[1:])):
            blocks += [nn.Linear(a, b)] + ([nn.ReLU()] if i < config.layers - 1 else [])
        self.mlp = nn.Sequential(*blocks)

    def forward(self, v: torch.Tensor) -> torch.Tensor:
        return self.mlp(reverse_gradient(v, self.config.lam)).squeeze(-1)


@dataclass
class AdversarialBatch:
    """A source-domain ranking batch and unlabelled target-domain questions (texts only: no similarity label of
    the target domain exists here to leak)."""

    ranking: RankingBatch
    target_title: torch.Tensor  # (M, T_title) token ids of M target-domain questions
    target_title_mask: torch.Tensor
    target_body: torch.Tensor  # (M, T_body)
    target_body_mask: torch.Tensor

    def to(self, device) -> AdversarialBatch:
        return AdversarialBatch(self.ranking.to(device), *(t.to(device, non_blocking=True) for t in (
            self.target_title, self.target_title_mask, self.target_body, self.target_body_mask)))


class AdversarialRanker(nn.Module):
    """``forward(batch) -> (positive [N], negatives [N, K], mask [N, K], domain logits [Q + M], domain [Q + M])``:
    the source pairs' cosine scores (as :class:`~reproq.models.question.QuestionRanker`) and the domain classifier's
    logits on the encodings of the batch's Q source questions (domain 0) and its M target questions (domain 1)."""

    def __init__(self, question_encoder: QuestionEncoder, classifier: DomainClassifier):
        super().__init__()
        self.question_encoder, self.classifier = question_encoder, classifier

    def forward(self, batch: AdversarialBatch):
        b = batch.ranking
        source = self.question_encoder(b.title, b.title_mask, b.body, b.body_mask)  # (Q, D)
        target = self.question_encoder(batch.target_title, batch.target_title_mask, batch.target_body,
                                       batch.target_body_mask)  # (M, D)
        domain = torch.cat([source.new_zeros(len(source)), target.new_ones(len(target))])
        return (*pair_scores(source, b), self.classifier(torch.cat([source, target])), domain)
