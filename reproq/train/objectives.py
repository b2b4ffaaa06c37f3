"""Training objectives: ``objective(model, batch) -> scalar loss``, the only thing the fit loop calls.

An objective knows the shape of what a model returns for a batch, never the model itself.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch


def max_margin_loss(positive: torch.Tensor, negatives: torch.Tensor, negatives_mask: torch.Tensor | None = None,
                    *, margin: float) -> torch.Tensor:
    r"""Lei et al. (2016) §3, the max-margin loss on the hardest negative, averaged over the N pairs:

    .. math:: L = \max_{p \in Q(q)} \{ s(q, p) - s(q, p^+) + \delta(p, p^+) \},\quad
              \delta = \text{margin for } p \ne p^+,\ 0 \text{ for } p = p^+

    ``Q(q)`` is ``{p⁺}`` and the negatives; the ``p = p⁺`` term is 0, so
    ``L = max(0, max_k s(q, p_k) - s(q, p⁺) + margin)``. ``positive``: ``[N]``, ``negatives``: ``[N, K]``;
    ``negatives_mask`` (``[N, K]``, True = a real negative) leaves padding negatives out of the max.

    >>> max_margin_loss(torch.tensor([0.9, 0.2]), torch.tensor([[0.5, 0.1], [0.6, 0.3]]), margin=0.5)
    tensor(0.5000)
    """
    if positive.dim() != 1 or negatives.dim() != 2 or negatives.shape[0] != positive.shape[0]:
        raise ValueError(f"need positive [N] and negatives [N, K], got {tuple(positive.shape)} and "
                         f"{tuple(negatives.shape)}")
    if negatives_mask is not None:
        negatives = negatives.masked_fill(~negatives_mask, float("-inf"))
    hardest = negatives.max(dim=1).values
    return torch.clamp(hardest - positive + margin, min=0.0).mean()


def norm_penalty(model: torch.nn.Module) -> torch.Tensor:
    """taolei87/rcnn's regulariser without its factor: Σ_θ ‖θ‖₂ (norms, not squared) over trainable parameters."""
    return sum(p.norm(2) for p in model.parameters() if p.requires_grad)


@dataclass(frozen=True)
class MaxMarginObjective:
    """:func:`max_margin_loss` of the scores ``model(batch)`` returns, ``(positive [N], negatives [N, K],
    negatives_mask [N, K] or None)``, plus taolei87/rcnn's L2 term ``l2 · Σ_θ ‖θ‖₂`` (norms, not squared)
    over the trainable parameters."""

    margin: float = 1.0  # Lei et al.: "a small constant"; taolei87/rcnn qa/main.py: diff = neg - pos + 1.0
    l2: float = 1e-5  # taolei87/rcnn qa/main.py --l2_reg 0.00001 (the paper does not mention it)

    def __call__(self, model: torch.nn.Module, batch) -> torch.Tensor:
        positive, negatives, mask = model(batch)
        loss = max_margin_loss(positive, negatives, mask, margin=self.margin)
        return loss + self.l2 * norm_penalty(model) if self.l2 else loss


def contrastive_loss(positive: torch.Tensor, negatives: torch.Tensor, mask: torch.Tensor, *,
                     margin: float) -> torch.Tensor:
    """Smolyakov & Srikant's Eq. 4 (the contrastive loss of a Siamese network, y = 0 similar, 1 dissimilar),
    averaged over every similar pair (``positive`` distances [N]) and every real dissimilar one (``negatives``
    [N, K] where ``mask``): ½ D² for the first, ½ max(0, Δ − D)² for the second.

    >>> round(contrastive_loss(torch.tensor([0.2]), torch.tensor([[0.1, 0.9]]), torch.tensor([[True, True]]),
    ...                        margin=0.5).item(), 4)  # (0.5·0.04 + 0.5·0.16 + 0) / 3
    0.0333
    """
    similar = 0.5 * positive.square()
    dissimilar = 0.5 * torch.clamp(margin - negatives, min=0.0).square()[mask]
    return torch.cat([similar, dissimilar]).mean()


@dataclass(frozen=True)
class ContrastiveObjective:
    """:func:`contrastive_loss` of the distances ``model(batch)`` returns, ``(positive [N], negatives [N, K], mask)``."""

    margin: float = 0.5  # Smolyakov & Srikant Table 5: loss margin 0.5

    def __call__(self, model: torch.nn.Module, batch) -> torch.Tensor:
        positive, negatives, mask = model(batch)
        return contrastive_loss(positive, negatives, mask, margin=self.margin)


def logistic_ranking_loss(positive: torch.Tensor, negatives: torch.Tensor, *, gamma: float) -> torch.Tensor:
    r"""dos Santos et al. (2015) §2.5, after Yih et al. (2011): the logistic loss of the score difference to the
    negative that scores highest (the smallest Δ), summed over the N pairs:

    .. math:: L = \sum_{i=1}^{N} \log(1 + \exp(-\gamma \Delta_i)),\qquad \Delta = s(q, q^+) - \max_k s(q, q^-_k)

    Summed, not averaged: their SGD takes one pair a round (§2.5) at Table 2's rate, so each pair of a step moves the
    weights as far as in their round (the N pairs' gradients taken at the same weights); a mean would move each
    N times less and make N times fewer updates an epoch.

    >>> round(logistic_ranking_loss(torch.tensor([0.5]), torch.tensor([[0.2, 0.4]]), gamma=10.0).item(), 4)
    0.3133
    """
    return torch.nn.functional.softplus(-gamma * (positive - negatives.max(dim=1).values)).sum()


@dataclass(frozen=True)
class LogisticRankingObjective:
    """:func:`logistic_ranking_loss` of the scores ``model(batch)`` returns, ``(positive [N], negatives [N, K],
    mask)`` (every negative real)."""

    gamma: float = 10.0  # dos Santos et al. §2.5: "we set γ to 10"
    find_hardest_first: bool = True  # score every negative without gradients, then only the hardest with them

    def __call__(self, model: torch.nn.Module, batch) -> torch.Tensor:
        if self.find_hardest_first:  # the same loss and gradient (the max passes it to one negative), less work
            with torch.no_grad():
                _, negatives, mask = model(batch)
            hardest = negatives.masked_fill(~mask, float("-inf")).argmax(dim=1, keepdim=True)
            batch = batch.narrowed(torch.cat([batch.pairs[:, :2], batch.pairs[:, 2:].gather(1, hardest)], dim=1))
        positive, negatives, _ = model(batch)
        return logistic_ranking_loss(positive, negatives, gamma=self.gamma)


@dataclass(frozen=True)
class DomainAdversarialObjective:
    """Smolyakov & Srikant Eq. 2 in one backward pass: the max-margin loss of the source pairs plus the domain
    classifier's binary cross entropy; ``model(batch)`` gives ``(positive, negatives, mask, domain logits, domain)``
    and reverses the gradient between its encoder and its classifier, so that minimising this sum trains the
    classifier to tell the domains apart and the encoder (scaled by λ) to blur them."""

    margin: float = 0.4  # Smolyakov & Srikant Tables 3 and 4: loss margin 0.4
    l2: float = 0.0  # taolei87/rcnn's term (Lei et al.'s configs); Smolyakov & Srikant use weight decay instead

    def __call__(self, model: torch.nn.Module, batch) -> dict[str, torch.Tensor]:
        """The sum to minimise (``"loss"``) and its two parts, which the fit loop averages into the history."""
        positive, negatives, mask, logits, domain = model(batch)
        parts = {"ranking": max_margin_loss(positive, negatives, mask, margin=self.margin),
                 "domain": torch.nn.functional.binary_cross_entropy_with_logits(logits, domain)}
        loss = parts["ranking"] + parts["domain"]
        return {"loss": loss + self.l2 * norm_penalty(model) if self.l2 else loss, **parts}


@dataclass(frozen=True)
class SequenceLikelihoodObjective:
    """A conditional language model's loss: ``model(batch)`` gives the negative log-likelihood of every target
    word ``[B, T]`` (zeros at padding) and the mask; the loss sums it over the words of each sequence, averages
    over the batch, and adds ``l2 · Σ_θ ‖θ‖₂`` (taolei87/rcnn ``pt/main.py``: ``T.mean(nll)`` of per-question
    sums, plus ``--l2_reg`` times the sum of the parameters' norms).

    >>> class Uniform(torch.nn.Module):  # every word has probability 1/4; the second sequence has one word
    ...     def forward(self, batch): return torch.log(torch.tensor(4.0)) * batch.float(), batch
    >>> round(SequenceLikelihoodObjective(l2=0.0)(Uniform(), torch.tensor([[1, 1], [1, 0]])).item(), 4)
    2.0794
    """

    l2: float = 1e-5  # taolei87/rcnn pt/main.py --l2_reg 0.00001

    def __call__(self, model: torch.nn.Module, batch) -> torch.Tensor:
        nll, _ = model(batch)
        loss = nll.sum(dim=1).mean()
        return loss + self.l2 * norm_penalty(model) if self.l2 else loss


@dataclass(frozen=True)
class SoftmaxCrossEntropyObjective:
    """Tay et al. 2018 Eq. 3, a pointwise 2-class cross entropy plus ``l2 · Σ_θ ‖θ‖₂²`` (squared norms) over
    the trainable parameters: ``model(batch)`` gives logits ``[N, 2]``, ``batch.labels`` the 0/1 labels ``[N]``.

    The cross entropy is averaged over the batch (Eq. 3 sums over the N pairs; averaging keeps the step
    size independent of the batch size, which the paper tunes).

    >>> class Constant(torch.nn.Module):
    ...     def forward(self, batch): return torch.zeros(len(batch.labels), 2)
    >>> from types import SimpleNamespace
    >>> round(SoftmaxCrossEntropyObjective(l2=0.0)(Constant(), SimpleNamespace(labels=torch.tensor([0, 1]))).item(), 4)
    0.6931
    """

    l2: float = 4e-6  # Tay et al. §Implementation Details: "L2 regularization is set to 4 × 10^-6"

    def __call__(self, model: torch.nn.Module, batch) -> torch.Tensor:
        logits = model(batch)
        loss = torch.nn.functional.cross_entropy(logits, batch.labels)
        if self.l2:
            loss = loss + self.l2 * sum(p.square().sum() for p in model.parameters() if p.requires_grad)
        return loss
