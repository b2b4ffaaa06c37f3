"""Answer-selection rankers: Tay et al. Table 2's parameter counts from the built models, every method's
shapes and gradients, fixed word vectors, padding invariance."""

from __future__ import annotations

import doctest

import pytest
import torch

from reproq.answer_selection.batches import PairBatch
from reproq.models import answer_ranker
from reproq.models.answer_ranker import METHODS, PAIRWISE, RankerConfig, build_ranker, paper_parameter_count

TABLE2 = RankerConfig(projection_dim=300, hidden_dim=512, mlp_dim=128, width=2, n_features=0)  # d, m, h, k


def random_batch(seed, vocab=30, lengths_q=(3, 5, 1), lengths_a=(7, 2, 4)):
    g = torch.Generator().manual_seed(seed)
    def side(lengths):
        mask = torch.arange(max(lengths) + 1)[None, :] < torch.tensor(lengths)[:, None]
        return torch.randint(2, vocab, mask.shape, generator=g) * mask, mask
    (q, qm), (a, am), (n, nm) = side(lengths_q), side(lengths_a), side(lengths_a[::-1])
    return PairBatch(q, qm, a, am, torch.rand(len(lengths_q), 4, generator=g), torch.tensor([1, 0, 1]), n, nm)


def test_docstring_examples():
    assert doctest.testmod(answer_ranker).failed == 0


@pytest.mark.parametrize("method, paper, exact", [
    ("QRNN", 1.05e6, 3 * 2 * 512 * 300 + 2 * 512 * 128 + 128),  # 3kdm + 2dh + h = 1,052,800
    ("CTRN", 1.05e6, 3 * 2 * 512 * 300 + 2 * 512 * 128 + 128),  # LTC adds nothing
    ("LSTM", 1.79e6, 4 * (300 * 512 + 512 ** 2) + 2 * 512 * 128 + 128),  # 4(md + d²) + 2dh + h = 1,794,176
])
def test_table2_parameter_counts_from_the_built_models(method, paper, exact):
    model = build_ranker(torch.zeros(5, 300), RankerConfig(**{**TABLE2.__dict__, "method": method}))
    assert paper_parameter_count(model) == exact
    assert abs(exact - paper) / paper < 0.005  # the paper prints three significant digits


def test_table2_ap_bilstm_does_not_reach_the_printed_count():
    """The printed formula 4(md + d²) + 4d² gives 2.71M at d = 512, m = 300; a BiLSTM of 512 units per direction
    with U ∈ R^{2d×2d} (what we build) has 4.37M; the paper prints 5.86M, which neither reaches."""
    model = build_ranker(torch.zeros(5, 300), RankerConfig(**{**TABLE2.__dict__, "method": "AP-BiLSTM"}))
    assert paper_parameter_count(model) == 2 * 4 * (300 * 512 + 512 ** 2) + (2 * 512) ** 2 == 4_374_528
    assert 4 * (300 * 512 + 512 ** 2) + 4 * 512 ** 2 == 2_711_552


@pytest.mark.parametrize("method", METHODS)
def test_every_method_scores_and_trains(method):
    torch.manual_seed(0)
    model = build_ranker(torch.randn(30, 8), RankerConfig(method=method, projection_dim=6, hidden_dim=5, mlp_dim=16,
                                                          mlp_layers=2, n_features=4))
    model.eval()  # wiring, not dropout: with dropout a tiny network can lose every path by chance
    batch = random_batch(0)
    scores = model.score(batch)
    assert scores.shape == (3,) and torch.isfinite(scores).all()
    out = model(batch)
    loss = (out[0].sum() - out[1].sum()) if method in PAIRWISE else out.logsumexp(1).sum() - out[:, 1].sum()
    loss.backward()
    for name, p in model.named_parameters():
        if p.requires_grad:
            assert p.grad is not None and p.grad.abs().sum() > 0, f"{method}: {name} gets no gradient"
    assert "embedding.vectors" not in dict(model.named_parameters())  # the word vectors are fixed


@pytest.mark.parametrize("method, family, states", [("CNN", "CNN", 5), ("GRU", "GRU", 5), ("RCNN", "RCNN", 5),
                                                    ("CBOW", "CBOW", 6)])
def test_the_other_papers_encoders_sit_in_the_pointwise_ranker(method, family, states):
    """Notebook 12's rows: Lei et al.'s and Rankine's encoders from the registry, with the ranker's sizes (d; the CNN's
    width ap_width, the RCNN's order k; CBOW's states are m-d, its projection square)."""
    model = build_ranker(torch.randn(30, 8), RankerConfig(method=method, projection_dim=6, hidden_dim=5, width=2,
                                                          ap_width=3, mlp_dim=4, n_features=4))
    encoder = model.encoder.encoder
    assert type(encoder).__name__ == family and encoder.input_dim == 6 and encoder.output_dim == states
    assert model.mlp[1].in_features == 2 * states + 4
    assert getattr(encoder.config, {"CNN": "width", "RCNN": "order"}.get(method, "input_dim")) == \
        {"CNN": 3, "RCNN": 2}.get(method, 6)


def test_pointwise_score_is_the_log_odds_of_the_positive_class():
    torch.manual_seed(1)
    model = build_ranker(torch.randn(30, 8), RankerConfig(method="CTRN", projection_dim=6, hidden_dim=5, mlp_dim=4,
                                                          n_features=4)).eval()
    batch = random_batch(1)
    p = torch.softmax(model(batch), dim=1)[:, 1]
    torch.testing.assert_close(model.score(batch), torch.log(p / (1 - p)))


@pytest.mark.parametrize("method", ["CTRN", "BiLSTM", "AP-BiLSTM", "CNN", "GRU", "RCNN", "CBOW"])
def test_scores_do_not_depend_on_the_rest_of_the_batch(method):
    torch.manual_seed(2)
    model = build_ranker(torch.randn(30, 8), RankerConfig(method=method, projection_dim=6, hidden_dim=5, mlp_dim=4,
                                                          n_features=4)).double().eval()
    batch = random_batch(2)
    together = model.score(batch)
    for i in range(3):
        lq, la = int(batch.q_mask[i].sum()), int(batch.a_mask[i].sum())
        alone = PairBatch(batch.q_tokens[i:i + 1, :lq], batch.q_mask[i:i + 1, :lq], batch.a_tokens[i:i + 1, :la],
                      batch.a_mask[i:i + 1, :la], batch.features[i:i + 1])
        torch.testing.assert_close(model.score(alone)[0], together[i])


def test_features_can_join_after_the_dropout():
    """``feature_dropout=False``: the same parameters and, in eval mode, the same function; in training the
    features are never zeroed (so a feature-only signal survives every step), the encodings still are."""
    config = RankerConfig(method="QRNN", projection_dim=8, hidden_dim=6, mlp_dim=5, n_features=4)
    torch.manual_seed(0)
    before = build_ranker(torch.randn(30, 8), config)
    torch.manual_seed(0)
    after = build_ranker(torch.randn(30, 8), RankerConfig(**{**config.__dict__, "feature_dropout": False}))
    batch = random_batch(1)
    before.eval(), after.eval()
    torch.testing.assert_close(before(batch), after(batch))
    after.train()
    first = after.mlp[1]
    seen = []
    handle = first.register_forward_hook(lambda module, inputs, output: seen.append(inputs[0][:, -4:].clone()))
    after(batch)
    handle.remove()
    torch.testing.assert_close(seen[0], batch.features)  # the features reach the dense layer untouched
