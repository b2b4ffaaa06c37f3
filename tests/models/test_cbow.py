"""Rankine's CBOW and weighted CBOW: mean pooling of the encoder's states points where his equations point."""

from __future__ import annotations

import pytest
import torch
from torch.nn import functional as F

from reproq.data.batching import pad_batch
from reproq.models import build_encoder
from reproq.models.cbow import CBOWConfig, cbow_reference
from reproq.models.embedding import WordEmbedding
from reproq.models.pooling import mean_state

SETTINGS = [{}, dict(weighting="mlp"), dict(projection=False, weighting="mlp")]


@pytest.mark.parametrize("settings", SETTINGS)
def test_mean_pooled_states_have_the_direction_of_rankines_average(settings):
    torch.manual_seed(0)
    model = build_encoder("cbow", input_dim=5, weight_hidden=3, **settings).double()
    for p in model.parameters():
        torch.nn.init.uniform_(p, -0.8, 0.8)
    _, mask = pad_batch([[1] * 4, [1] * 1, [1] * 6])
    x = torch.randn(3, 6, 5, dtype=torch.float64)
    x.requires_grad_(True)
    fast, slow = F.normalize(mean_state(model(x, mask), mask), dim=-1), F.normalize(cbow_reference(model, x, mask), dim=-1)
    torch.testing.assert_close(fast, slow, rtol=1e-10, atol=1e-12)
    weights = torch.randn_like(fast)
    inputs = [x, *model.parameters()]
    for a, b in zip(torch.autograd.grad((fast * weights).sum(), inputs), torch.autograd.grad((slow * weights).sum(), inputs)):
        torch.testing.assert_close(a, b, rtol=1e-9, atol=1e-11)
    alone = model(x[1:2, :1], mask[1:2, :1])  # padding changes no state
    torch.testing.assert_close(model(x, mask)[1:2, :1], alone)


def test_learned_word_weights_start_at_one_stay_positive_and_learn():
    vectors = torch.randn(6, 3)
    embedding = WordEmbedding(vectors, learn_weights=True)
    tokens = torch.tensor([[2, 3, 0]])
    torch.testing.assert_close(embedding(tokens), vectors[tokens])  # λ = 1 to start
    (embedding(tokens).sum() * -1).backward()
    grad = embedding.learned.grad
    assert grad[2] != 0 and grad[3] != 0 and grad[4] == 0 and grad[5] == 0  # only the words read
    with torch.no_grad():
        embedding.learned.fill_(-50.0)
    assert (embedding(tokens) == 0).all() or embedding(tokens).abs().max() < 1e-20  # softplus: λ >= 0, never < 0
    assert WordEmbedding(vectors).learned is None


def test_config_check():
    with pytest.raises(ValueError, match="weighting"):
        CBOWConfig(weighting="idf")
