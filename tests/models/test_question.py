"""The question encoder: title and body averaged, title-only switch, cosine scores."""

from __future__ import annotations

import pytest
import torch

from reproq.data.batching import pad_batch
from reproq.models import build_encoder
from reproq.models.embedding import TokenEncoder, WordEmbedding
from reproq.models.question import QuestionEncoder, QuestionEncoderConfig, QuestionRanker, RankingBatch

V, E = 12, 4


def encoder(**config):
    torch.manual_seed(0)
    vectors = torch.randn(V, E)
    vectors[0] = 0
    token_encoder = TokenEncoder(WordEmbedding(vectors, weights=torch.linspace(0.5, 2, V)),
                                 build_encoder("rcnn", input_dim=E, hidden_dim=6))
    return QuestionEncoder(token_encoder, QuestionEncoderConfig(dropout=0.0, **config)).eval()


TITLE = pad_batch([[2, 3], [4, 5, 6], [7]])
BODY = pad_batch([[8, 9, 10], [11], []])


@pytest.mark.parametrize("pooling", ["last", "mean", "max"])
def test_vectors_have_unit_norm(pooling):
    v = encoder(pooling=pooling)(*TITLE, *BODY)
    assert v.shape == (3, 6)
    torch.testing.assert_close(v.norm(dim=-1), torch.ones(3))


def test_title_only_ignores_the_body_and_title_body_averages():
    title_only = encoder(fields="title")
    other_body = pad_batch([[1, 1], [2], [3, 3, 3]])
    torch.testing.assert_close(title_only(*TITLE, *BODY), title_only(*TITLE, *other_body))
    both = encoder(fields="title+body", normalize_states=False, pooling="mean")
    field = both._field
    expected = 0.5 * (field(*TITLE) + field(*BODY))
    torch.testing.assert_close(both(*TITLE, *BODY), expected / expected.norm(dim=-1, keepdim=True))


def test_ranker_scores_are_cosines_of_the_indexed_questions():
    model = QuestionRanker(encoder())
    pairs = torch.tensor([[0, 1, 2, 2], [1, 0, 2, 1]])
    mask = torch.tensor([[True, False], [True, True]])
    positive, negatives, m = model(RankingBatch(*TITLE, *BODY, pairs, mask))
    v = model.question_encoder(*TITLE, *BODY)
    cos = v @ v.T
    torch.testing.assert_close(positive, torch.stack([cos[0, 1], cos[1, 0]]))
    torch.testing.assert_close(negatives, torch.stack([cos[0, [2, 2]], cos[1, [2, 1]]]))
    assert m is mask


def test_fixed_vectors_are_no_parameters_and_stay_out_of_the_state_dict():
    model = encoder()
    assert all("vectors" not in name for name, _ in model.named_parameters())
    assert all("vectors" not in key for key in model.state_dict())


def test_config_is_checked():
    with pytest.raises(ValueError, match="pooling"):
        QuestionEncoderConfig(pooling="first")
    with pytest.raises(ValueError, match="fields"):
        QuestionEncoderConfig(fields="body")


def test_separate_fields_score_is_beta_between_body_and_title_cosines():
    from reproq.models.question import SeparateFieldsEncoder

    title, body = encoder(fields="title"), encoder(fields="title", pooling="mean")
    model = SeparateFieldsEncoder(title, body)
    with torch.no_grad():
        model.beta_logit.fill_(0.7)
    v = model(*TITLE, *BODY)
    t, b = title(*TITLE), body(*BODY)
    beta = torch.sigmoid(torch.tensor(0.7))
    torch.testing.assert_close(v @ v.T, beta * (b @ b.T) + (1 - beta) * (t @ t.T))
    (v[0] @ v[1]).backward()
    assert model.beta_logit.grad != 0
    with pytest.raises(ValueError, match="one field"):
        SeparateFieldsEncoder(encoder(), body)


def test_projection_after_pooling():
    plain, projected = encoder(pooling="mean"), encoder(pooling="mean", projection=True)
    torch.testing.assert_close(projected.encoder(*TITLE), plain.encoder(*TITLE))  # same encoder weights
    assert projected.projection is not None and not torch.allclose(projected(*TITLE, *BODY), plain(*TITLE, *BODY))


def test_mlp_gated_beta_scores_each_pair_by_his_equation():
    from reproq.models.question import SeparateFieldsEncoder

    title, body = encoder(fields="title"), encoder(fields="title", pooling="mean")
    model = SeparateFieldsEncoder(title, body, gate="mlp", gate_hidden=3)
    v = model(*TITLE, *BODY)  # [t, b]
    t, b = title(*TITLE), body(*BODY)
    s = model.score(v[:1], v[None, 1:])  # question 0 against 1 and 2
    for j, k in enumerate((1, 2)):
        first, _, second, _ = model.beta_mlp
        beta = torch.sigmoid(second(torch.tanh(first(torch.cat([t[0], t[k], b[0], b[k]])))))[0]
        torch.testing.assert_close(s[0, j], beta * (b[0] @ b[k]) + (1 - beta) * (t[0] @ t[k]))
    ranker = QuestionRanker(model)
    batch = RankingBatch(*TITLE, *BODY, torch.tensor([[0, 1, 2]]), torch.tensor([[True]]))
    positive, negatives, _ = ranker(batch)
    torch.testing.assert_close(torch.stack([positive[0], negatives[0, 0]]), s[0])
    positive.sum().backward()
    assert all(p.grad is not None for p in model.beta_mlp.parameters()) and model.score is not None
    assert SeparateFieldsEncoder(title, body).score is None
