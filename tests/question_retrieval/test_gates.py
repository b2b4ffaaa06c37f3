"""The RCNN's decay read off a trained ranker: the best epoch's weights, per-position and per-kind summaries."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from reproq.corpora import load_askubuntu
from reproq.synthetic import SyntheticConfig, word_kinds
from reproq.models.rcnn import rcnn_reference
from reproq.question_retrieval import gates
from reproq.question_retrieval import inputs
from reproq.question_retrieval import run as ex
from reproq.question_retrieval.evaluate import evaluate

@pytest.fixture(scope="module")
def trained(tmp_path_factory, tiny_prepared):
    data = tiny_prepared()
    config = inputs.TrainConfig(encoder="rcnn", encoder_settings=(("hidden_dim", 6),), epochs=3, queries_per_batch=10,
                            max_train_queries=20, max_body_len=20)
    model, result = ex.trained_model(data, config, 1, checkpoint_root=tmp_path_factory.mktemp("ckpt"), device="cpu",
                                     progress=False)
    return data, config, model, result


def test_trained_model_has_the_best_dev_epochs_weights(trained):
    data, config, model, result = trained
    dev = evaluate(model.question_encoder, inputs.cut_corpus(data, config), data.dev, device="cpu")
    assert dev["MRR"] == pytest.approx(result.dev["MRR"]) and dev["MAP"] == pytest.approx(result.dev["MAP"])
    best = result.history[result.best_epoch]  # what the epoch loop measured at the best epoch, not after it
    assert dev["MRR"] == pytest.approx(best["dev_MRR"]) and dev["MAP"] == pytest.approx(best["dev_MAP"])
    assert not model.training


def test_decays_are_the_slow_twins_gates_of_each_question(trained):
    data, config, model, _ = trained
    corpus, ids = inputs.cut_corpus(data, config), [q.id for q in data.dev[:5]]
    found = gates.decays(model, corpus, ids, "body", batch_size=2)
    token_encoder = model.question_encoder.encoder
    for qid, decay in zip(ids, found):
        tokens = torch.tensor([corpus.bodies[qid]])
        x = token_encoder.embedding(tokens)
        _, twin = rcnn_reference(token_encoder.encoder, x, torch.ones_like(tokens, dtype=torch.bool), decay=True)
        assert decay.shape == (len(corpus.bodies[qid]), 6)
        np.testing.assert_allclose(decay, twin[0].detach().numpy(), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="field"):
        gates.decays(model, corpus, ids, "answer")


def test_by_position_averages_over_the_questions_that_reach_t():
    table = gates.by_position([np.full((3, 2), 0.5), np.array([[0.0, 1.0]])])
    assert table["questions"].tolist() == [2, 1, 1]
    assert table["mean over dimensions"].tolist() == [0.5, 0.5, 0.5]
    assert table["max over dimensions"].tolist() == [0.75, 0.5, 0.5]
    assert len(gates.by_position([np.zeros((9, 2))], max_len=4)) == 4


def test_word_kinds_cover_the_stand_ins_words_and_the_kind_table_counts_them(trained, tiny_stand_in):
    data, config, model, _ = trained
    kinds = word_kinds(SyntheticConfig(**tiny_stand_in))
    corpus_words = {w for q in load_askubuntu("synthetic", synthetic_config=SyntheticConfig(**tiny_stand_in)).corpus.values()
                    for w in (*q.title, *q.body)}
    assert corpus_words <= set(kinds) and set(kinds.values()) == {"concept", "common", "filler"}
    corpus, ids = inputs.cut_corpus(data, config), [q.id for q in data.dev]
    words = [[data.vocab.words[i] for i in corpus.titles[q]] for q in ids]
    table = gates.by_word_kind(gates.decays(model, corpus, ids, "title"), words, kinds)
    assert table["words"].sum() == sum(map(len, words)) and set(table["kind"]) <= {"concept", "common", "filler"}
    assert table["mean decay"].between(0, 1).all()
