"""BOW-CNN (dos Santos et al. 2015): the batched model equals its equations, and t and β learn as Table 5 says."""

from __future__ import annotations

import pytest
import torch

from reproq.data.batching import pad_batch
from reproq.models.bow_cnn import BOWCNN, BOWCNNConfig, bow_cnn_reference
from reproq.models.question import RankingBatch
from reproq.train.objectives import LogisticRankingObjective

QUESTIONS = [[2, 3, 4, 3], [3, 5], [6, 2, 2, 7, 8], [9], [4, 4, 5, 6, 7, 8, 9]]


def model(**settings) -> BOWCNN:
    torch.manual_seed(0)
    m = BOWCNN(torch.randn(10, 4, dtype=torch.float64), torch.rand(10, dtype=torch.float64) + 0.5,
               BOWCNNConfig(conv_units=6, **settings)).double()
    torch.nn.init.uniform_(m.conv.weight, -0.6, 0.6)  # larger than the init, so that every window matters
    if m.config.bow:
        with torch.no_grad():
            m.beta.copy_(torch.tensor([0.7, 1.3]))
    return m


def batch(pairs) -> RankingBatch:
    tokens, mask = pad_batch(QUESTIONS)
    empty = torch.zeros((len(QUESTIONS), 0), dtype=torch.long)
    pairs = torch.tensor(pairs)
    return RankingBatch(tokens, mask, empty, empty.bool(), pairs, torch.ones_like(pairs[:, 2:], dtype=torch.bool))


@pytest.mark.parametrize("settings", [{}, dict(bow=False), dict(t_init="ones"), dict(width=5)])
def test_batched_scores_and_gradients_equal_the_equations(settings):
    m = model(**settings)
    pairs = [[0, 1, 2, 3], [2, 4, 0, 1], [3, 3, 4, 0]]
    positive, negatives, _ = m(batch(pairs))
    fast = torch.cat([positive.unsqueeze(1), negatives], dim=1)
    slow = torch.stack([torch.stack([bow_cnn_reference(m, QUESTIONS[p[0]], QUESTIONS[c]) for c in p[1:]])
                        for p in pairs])
    torch.testing.assert_close(fast, slow, rtol=1e-10, atol=1e-12)
    weights = torch.randn_like(fast)
    params = [p for p in m.parameters() if p.requires_grad]
    for a, b in zip(torch.autograd.grad((fast * weights).sum(), params),
                    torch.autograd.grad((slow * weights).sum(), params)):
        torch.testing.assert_close(a, b, rtol=1e-9, atol=1e-11)


def test_t_and_beta_learn_and_a_frozen_t_stays():
    for train_t in (True, False):
        m = model(train_t=train_t)
        t, beta = m.t.detach().clone(), m.beta.detach().clone()
        optimizer = torch.optim.SGD([p for p in m.parameters() if p.requires_grad], lr=0.1)
        loss = LogisticRankingObjective()(m, batch([[0, 1, 2, 3], [2, 4, 0, 1]]))
        loss.backward()
        assert m.beta.grad.abs().sum() > 0
        assert (m.t.grad is not None and m.t.grad.abs().sum() > 0) == train_t
        optimizer.step()
        assert not torch.equal(m.beta, beta)
        assert torch.equal(m.t, t) != train_t


def test_cnn_alone_has_no_bow_path():
    m = model(bow=False)
    assert not hasattr(m, "t") and not hasattr(m, "beta")
    with pytest.raises(ValueError, match="odd width"):
        BOWCNNConfig(width=2)


def test_finding_the_hardest_negative_first_changes_neither_loss_nor_gradient():
    m = model()
    b = batch([[0, 1, 2, 3, 4], [2, 4, 0, 1, 3], [3, 0, 4, 1, 2]])
    params = [p for p in m.parameters() if p.requires_grad]
    losses, grads = [], []
    for first in (False, True):
        loss = LogisticRankingObjective(find_hardest_first=first)(m, b)
        losses.append(loss)
        grads.append(torch.autograd.grad(loss, params))
    torch.testing.assert_close(losses[0], losses[1], rtol=1e-12, atol=1e-12)
    for a, c in zip(*grads):
        torch.testing.assert_close(a, c, rtol=1e-10, atol=1e-12)
    assert len(b.narrowed(torch.tensor([[3, 0, 4]])).title) == 3  # only the named questions


def test_the_loss_of_a_step_is_the_sum_of_its_pairs_losses():
    # dos Santos et al. train one pair a round at Table 2's rate: a step of several pairs must move each as far
    from reproq.train.objectives import logistic_ranking_loss

    positive, negatives = torch.tensor([0.5, 0.1]), torch.tensor([[0.2, 0.4], [0.3, 0.0]])
    each = [logistic_ranking_loss(positive[i:i + 1], negatives[i:i + 1], gamma=10.0) for i in range(2)]
    torch.testing.assert_close(logistic_ranking_loss(positive, negatives, gamma=10.0), each[0] + each[1])
