"""Domain-adversarial pieces (Smolyakov & Srikant §4): the gradient reversal layer, the domain classifier, the
adversarial ranker and its objective."""

from __future__ import annotations

import pytest
import torch

from reproq.data.batching import pad_batch
from reproq.models import build_encoder, count_parameters
from reproq.models.adversarial import (AdversarialBatch, AdversarialRanker, DomainClassifier, DomainClassifierConfig,
                                       reverse_gradient)
from reproq.models.embedding import TokenEncoder, WordEmbedding
from reproq.models.question import QuestionEncoder, QuestionEncoderConfig, QuestionRanker, RankingBatch
from reproq.train.objectives import DomainAdversarialObjective


@pytest.mark.parametrize("lam", [1.0, 0.3, 1e-6])
def test_gradient_reversal_is_the_identity_forward_and_flips_and_scales_the_gradient(lam):
    x = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
    weights = torch.randn(4, 3, dtype=torch.float64)
    y = reverse_gradient(x, lam)
    assert torch.equal(y, x)
    (grad,) = torch.autograd.grad((y * weights).sum(), x)
    torch.testing.assert_close(grad, -lam * weights)


def test_the_domain_classifier_is_a_four_layer_mlp_behind_the_reversal():
    classifier = DomainClassifier(6, DomainClassifierConfig(layers=4, lam=0.5))
    assert sum(isinstance(m, torch.nn.Linear) for m in classifier.modules()) == 4
    assert count_parameters(classifier) == 3 * (6 * 6 + 6) + 6 + 1
    v = torch.randn(5, 6, requires_grad=True)
    logits = classifier(v)
    assert logits.shape == (5,)
    (through,) = torch.autograd.grad(logits.sum(), v)
    plain = torch.func.jacrev(lambda u: classifier.mlp(u).squeeze(-1).sum())(v.detach())
    torch.testing.assert_close(through, -0.5 * plain)  # the encoder below it ascends the classifier's loss


def _batch():
    title, title_mask = pad_batch([[2, 3], [4], [5, 6, 7], [3, 3]])
    body, body_mask = pad_batch([[2, 4, 6], [5], [7, 2], [6]])
    ranking = RankingBatch(title, title_mask, body, body_mask, torch.tensor([[0, 1, 2, 3]]), torch.ones(1, 2, dtype=torch.bool))
    target = pad_batch([[8, 9], [9]]) + pad_batch([[8], [9, 8, 8]])
    return AdversarialBatch(ranking, *target)


def test_the_adversarial_ranker_scores_source_pairs_as_the_plain_ranker_and_labels_domains_itself():
    torch.manual_seed(0)
    encoder = QuestionEncoder(TokenEncoder(WordEmbedding(torch.randn(10, 4)), build_encoder("cnn", input_dim=4,
                                                                                              hidden_dim=5)),
                              QuestionEncoderConfig(pooling="mean", dropout=0.0))
    model = AdversarialRanker(encoder, DomainClassifier(5)).eval()
    batch = _batch()
    positive, negatives, mask, logits, domain = model(batch)
    for ours, plain in zip((positive, negatives, mask), QuestionRanker(encoder)(batch.ranking)):
        torch.testing.assert_close(ours, plain)
    assert domain.tolist() == [0, 0, 0, 0, 1, 1] and logits.shape == (6,)
    loss = DomainAdversarialObjective(margin=0.4)(model, batch)
    torch.testing.assert_close(loss["loss"], loss["ranking"] + loss["domain"])
    loss["loss"].backward()
    assert all(p.grad is not None for p in model.classifier.parameters())
