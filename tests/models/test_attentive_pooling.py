"""Attentive pooling (dos Santos et al. 2016): batched and masked against the equations pair by pair."""

from __future__ import annotations

import torch

from reproq.models.attentive_pooling import AttentivePooling, attentive_pooling_reference, cosine_score


def batch(lengths, width, dim, seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(len(lengths), width, dim, generator=g, dtype=torch.float64)
    mask = torch.arange(width)[None, :] < torch.tensor(lengths)[:, None]
    return x.requires_grad_(), mask


def test_masked_batch_matches_the_equations_values_and_gradients():
    torch.manual_seed(0)
    pool = AttentivePooling(4).double()
    Q, mask_q = batch([3, 1, 5], 6, 4, seed=1)
    A, mask_a = batch([7, 4, 2], 9, 4, seed=2)
    fast, slow = pool(Q, mask_q, A, mask_a), attentive_pooling_reference(pool, Q, mask_q, A, mask_a)
    for a, b in zip(fast, slow):
        torch.testing.assert_close(a, b)
    grads_fast = torch.autograd.grad(cosine_score(*fast).sum(), (Q, A, pool.U))
    grads_slow = torch.autograd.grad(cosine_score(*slow).sum(), (Q, A, pool.U))
    for a, b in zip(grads_fast, grads_slow):
        torch.testing.assert_close(a, b)


def test_attention_is_a_distribution_over_real_tokens():
    torch.manual_seed(1)
    pool = AttentivePooling(3).double()
    Q, mask_q = batch([2, 4], 5, 3, seed=3)
    A, mask_a = batch([6, 1], 6, 3, seed=4)
    sigma_q, sigma_a = pool.attention(Q, mask_q, A, mask_a)
    for sigma, mask in ((sigma_q, mask_q), (sigma_a, mask_a)):
        torch.testing.assert_close(sigma.sum(1), torch.ones(2, dtype=torch.float64))
        assert sigma[~mask].abs().max() == 0


def test_padding_content_does_not_matter():
    torch.manual_seed(2)
    pool = AttentivePooling(3).double()
    Q, mask_q = batch([2, 4], 5, 3, seed=5)
    A, mask_a = batch([6, 1], 6, 3, seed=6)
    noisy_A = A.detach().clone()
    noisy_A[~mask_a] = 100.0
    for a, b in zip(pool(Q, mask_q, A, mask_a), pool(Q, mask_q, noisy_A, mask_a)):
        torch.testing.assert_close(a, b)
    score = cosine_score(*pool(Q, mask_q, A, mask_a))
    assert ((score >= -1) & (score <= 1)).all()
