"""Lei et al. §4.2 pre-training: the encoder–decoder, its pairs and batches, perplexity, resuming, fine-tuning."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
import torch

from reproq.data.batching import pad_batch
from reproq.models import build_encoder
from reproq.models.embedding import WordEmbedding
from reproq.models.encoder_decoder import EncoderDecoder, TitleBatch
from reproq.question_retrieval import pretrain as pt
from reproq.question_retrieval import inputs
from reproq.question_retrieval import run as ex
from reproq.question_retrieval.batches import EncodedCorpus, TrainGroup

PRETRAIN = inputs.PretrainConfig(epochs=2, batch_size=32, max_pairs=64)


@pytest.fixture(scope="module")
def data(tiny_prepared):
    return tiny_prepared(key_phrase_len=2, n_name_words=20, twin_intents=True)


def config(encoder="rcnn", **kw):
    settings = dict(encoder=encoder, encoder_settings=(("hidden_dim", 6),), epochs=1, queries_per_batch=10,
                    max_train_queries=20, pretrain=PRETRAIN)
    return inputs.TrainConfig(**{**settings, **kw})


def tiny_model(name: str, vocab: int = 9, dim: int = 4) -> EncoderDecoder:
    torch.manual_seed(0)
    vectors = torch.randn(vocab, dim)
    vectors[0] = 0
    encoder, decoder = (build_encoder(name, input_dim=dim, hidden_dim=5) for _ in range(2))
    return EncoderDecoder(WordEmbedding(vectors), encoder, decoder, dropout=0.0).eval()


@pytest.mark.parametrize("name", ["rcnn", "lstm", "gru"])
def test_the_decoder_starts_from_the_encoders_last_state(name, monkeypatch):
    model = tiny_model(name)
    seen = {}
    decoder_run = model.decoder.run

    def spy(x, mask, state=None):
        seen["state"] = state
        return decoder_run(x, mask, state)

    monkeypatch.setattr(model.decoder, "run", spy)
    context = [[2, 3, 4], [5], [6, 7, 8, 2, 3]]
    batch = TitleBatch(*pad_batch(context), *pad_batch([[3, 4], [5, 6, 7], [8]]))
    model(batch)
    _, expected = model.encoder.run(model.embedding(batch.context), batch.context_mask)
    torch.testing.assert_close(seen["state"], expected)
    for row, tokens in enumerate(context):  # each row's state after its own last word, not after padding
        _, alone = model.encoder.run(model.embedding(torch.tensor([tokens])), torch.ones(1, len(tokens), dtype=torch.bool))
        torch.testing.assert_close(seen["state"][row], alone[0], rtol=1e-5, atol=1e-6)


def test_titles_are_generated_word_by_word_from_a_begin_vector():
    """Teacher forcing: changing title word t changes the NLL of words t and later, never of the words before."""
    model = tiny_model("lstm")
    body = pad_batch([[2, 3, 4]])
    nll, _ = model(TitleBatch(*body, *pad_batch([[5, 6, 7, 8]])))
    changed, _ = model(TitleBatch(*body, *pad_batch([[5, 6, 2, 8]])))
    assert torch.equal(nll[0, :2], changed[0, :2]) and (nll[0, 2:] != changed[0, 2:]).all()


def test_perplexity_is_exp_of_the_mean_nll_over_real_title_words():
    """A hand-checked toy: the output layer ignores the state and gives word w probability p_w, so the perplexity
    of the titles is exp(-mean log p over their real words); padding (the shorter titles' tail) counts nowhere."""
    model = tiny_model("gru")
    p = torch.tensor([0.02, 0.02, 0.3, 0.2, 0.1, 0.1, 0.1, 0.1, 0.06])
    with torch.no_grad():
        model.output.weight.zero_()
        model.output.bias.copy_(p.log())
    titles = {"a": [2, 3], "b": [4], "c": [2, 2, 8, 5], "d": []}
    corpus = EncodedCorpus(titles, {q: [3, 4] for q in titles})
    words = [w for t in titles.values() for w in t]
    expected = math.exp(-sum(math.log(p[w]) for w in words) / len(words))
    assert pt.heldout_perplexity(model, corpus, list(titles), device="cpu", batch_size=2) == pytest.approx(expected)


def test_pairs_are_every_question_with_itself_and_both_directions_of_similar_pairs():
    corpus = EncodedCorpus({"1": [2], "2": [3], "3": [4], "4": [], "9": [5]}, {q: [6] for q in "12349"})
    groups = [TrainGroup("1", ("2", "4"), ("3",)), TrainGroup("3", ("9",), ())]
    pairs = pt.title_pairs(groups, corpus, heldout=["9"])
    assert pairs == [("1", "1"), ("1", "2"), ("2", "1"), ("2", "2"), ("3", "3"), ("4", "1")]  # "4" has no title
    assert pt.title_pairs(groups, corpus, heldout=[], similar_pairs=False) == [("1", "1"), ("2", "2"), ("3", "3"),
                                                                                ("9", "9")]


def test_each_batch_of_pairs_is_one_update_per_context_field():
    corpus = EncodedCorpus({"1": [2, 3], "2": [4]}, {"1": [5, 6, 7], "2": [8]})
    batches = list(pt.title_batches([("1", "1"), ("2", "1")], corpus, contexts=("title", "body"), epoch=1, seed=0,
                                    batch_size=2))
    assert len(batches) == 2
    assert all(torch.equal(b.title, batches[0].title) for b in batches)
    assert sorted(map(tuple, batches[0].context.tolist())) == [(2, 3), (4, 0)]
    assert sorted(map(tuple, batches[1].context.tolist())) == [(5, 6, 7), (8, 0, 0)]


def test_pretraining_lowers_perplexity_and_resumes_to_identical_numbers(data, tmp_path, monkeypatch):
    cfg = config("lstm")
    whole = pt.pretrain_one(data, cfg, seed=1, device="cpu", checkpoint_root=tmp_path / "whole", progress=False)
    assert [h["epoch"] for h in whole.history] == [0, 1, 2]
    assert whole.history[0]["heldout_perplexity"] == pytest.approx(len(data.vocab), rel=0.05)  # untrained: ~uniform
    assert whole.history[2]["heldout_perplexity"] < whole.history[0]["heldout_perplexity"]
    assert set(whole.encoder) == set(build_encoder("lstm", input_dim=8, hidden_dim=6).state_dict())

    calls = {"n": 0}
    original = pt.heldout_perplexity

    def killed_in_epoch_two(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 3:  # epochs 0 and 1 are done and checkpointed
            raise KeyboardInterrupt
        return original(*args, **kwargs)

    monkeypatch.setattr(pt, "heldout_perplexity", killed_in_epoch_two)
    with pytest.raises(KeyboardInterrupt):
        pt.pretrain_one(data, cfg, seed=1, device="cpu", checkpoint_root=tmp_path / "killed", progress=False)
    monkeypatch.setattr(pt, "heldout_perplexity", original)
    resumed = pt.pretrain_one(data, cfg, seed=1, device="cpu", checkpoint_root=tmp_path / "killed", progress=False)
    clean = lambda h: [{k: v for k, v in r.items() if k != "loss" or r["epoch"]} for r in h]  # noqa: E731 (NaN)
    assert clean(resumed.history) == clean(whole.history) and resumed.best_epoch == whole.best_epoch
    assert all(torch.equal(resumed.encoder[k], whole.encoder[k]) for k in whole.encoder)


def test_one_pretraining_serves_both_poolings_and_fine_tuning_starts_from_it(data, tmp_path):
    last, mean = config(), inputs.with_question(config(), pooling="mean")
    assert pt.pretraining_key(data, last, 1) == pt.pretraining_key(data, mean, 1)
    assert pt.pretraining_key(data, last, 1) != pt.pretraining_key(data, last, 2)
    assert pt.pretraining_key(data, last, 1) != pt.pretraining_key(data, replace(last, lr=3e-4), 1)
    start = pt.pretrain_one(data, last, seed=1, device="cpu", checkpoint_root=tmp_path, progress=False)
    model, result = ex.trained_model(data, replace(last, epochs=0), seed=1, device="cpu", progress=False)
    weights = model.question_encoder.encoder.encoder.state_dict()
    assert all(torch.equal(weights[k], start.encoder[k]) for k in weights)
    scratch, _ = ex.trained_model(data, replace(last, epochs=0, pretrain=None), seed=1, device="cpu", progress=False)
    assert not torch.equal(scratch.question_encoder.encoder.encoder.W_gate, weights["W_gate"])
    assert "+ pre-train" in last.label() and "pre-train" not in replace(last, pretrain=None).label()


def test_pretrain_config_refuses_unknown_contexts():
    with pytest.raises(ValueError, match="contexts"):
        inputs.PretrainConfig(contexts=("answer",))


def test_the_authors_released_rcnn_can_be_the_starting_point(data, real_data):
    real_data("rcnn-checkpoint", "code/rationale/ubuntu/pre-trained/rcnn_lr0.001_d400_dr0.1.pkl.gz")
    from reproq.models.rcnn_checkpoint import load_checkpoint, load_rcnn

    released = replace(PRETRAIN, released=True)
    wide = replace(data, vectors=np.zeros((len(data.vocab), 200), dtype=np.float32))  # their 200-d inputs
    cfg = config(encoder_settings=(("hidden_dim", 400),), pretrain=released)
    start = pt.pretrain_one(wide, cfg, seed=1, device="cpu", progress=False)
    theirs = load_rcnn(load_checkpoint()).state_dict()
    assert start.history == [] and all(torch.equal(start.encoder[k], theirs[k]) for k in theirs)
    with pytest.raises(ValueError, match="released encoder is an RCNN"):
        pt.pretrain_one(wide, config(pretrain=released), seed=1, device="cpu", progress=False)  # d = 6


def test_a_context_without_a_title_is_left_out_of_the_titles_update():
    corpus = EncodedCorpus({"q": [2, 3], "c": []}, {"q": [5], "c": [6, 7]})  # "c": a comment, no title
    batches = list(pt.title_batches([("q", "q"), ("c", "q")], corpus, contexts=("title", "body"), epoch=1, seed=0,
                                    batch_size=2))
    assert [len(b.title) for b in batches] == [1, 2]  # the titles' update reads "q" alone, the bodies' both
    assert batches[0].context.tolist() == [[2, 3]]


def test_pretraining_texts_of_their_own_are_what_pretraining_reads(data, tmp_path):
    """With ``data.pretraining`` (SemEval-2016 3B's training threads), the pairs come from those texts and their extra
    pairs, never from the retrieval corpus: a corpus question absent from them is never a title to generate."""
    ids = sorted(data.corpus.titles)[:40]
    own = inputs.PretrainingInputs(EncodedCorpus({q: data.corpus.titles[q] for q in ids} | {"comment": []},
                                                 {q: data.corpus.bodies[q] for q in ids} | {"comment": [5, 6]}),
                                   (("comment", ids[0]),))
    seen = []
    original = pt.title_batches

    def recording(pairs, *args, **kwargs):
        seen.extend(pairs)
        return original(pairs, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pt, "title_batches", recording)
        pt.pretrain_one(replace(data, pretraining=own, heldout=(ids[1],)), config("gru", pretrain=replace(
            PRETRAIN, epochs=1)), seed=1, device="cpu", checkpoint_root=tmp_path, progress=False)
    assert ("comment", ids[0]) in seen
    assert {b for _, b in seen} <= set(ids) - {ids[1]}  # only its own questions' titles, never the held-out one
