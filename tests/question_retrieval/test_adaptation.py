"""Smolyakov & Srikant Experiment 2 on tiny stand-ins: batches without target labels, direct and adversarial runs,
the target-dev choice of epoch, resuming."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import torch

from reproq.question_retrieval import adaptation as ad
from reproq.question_retrieval import inputs
from reproq.question_retrieval.batches import training_batches

@pytest.fixture(scope="module")
def data(tiny_prepared):
    return tiny_prepared(target=True)


def config(**kw):
    return inputs.TrainConfig(**{**dict(encoder="cnn", encoder_settings=(("hidden_dim", 8),), epochs=2, queries_per_batch=10,
                                    max_train_queries=20, margin=0.4, l2=0.0, idf_reweight=False), **kw})


def test_the_target_is_prepared_on_one_vocabulary_with_both_corpora(data):
    target_words = {i for ids in data.target.corpus.titles.values() for i in ids}
    assert target_words and max(target_words) < len(data.vocab)
    assert len(data.target.dev) == 15 and any(k.startswith("android/") for k in data.provenance)


def test_adversarial_batches_carry_target_texts_and_never_a_target_label(data):
    """The batches are the same whatever the target's labels are: shuffling which candidates are positives changes
    no batch, so the domain classifier cannot see them."""
    corpus = inputs.cut_corpus(data, config())

    def batches(target_queries):
        target = replace(data.target, dev=target_queries, test=target_queries)
        source = training_batches(data.groups, corpus, epoch=1, seed=3, queries_per_batch=10, max_queries=20)
        return list(ad.adversarial_batches(source, target.corpus, epoch=1, seed=3))

    relabelled = [replace(q, similar_ids=q.candidate_ids[:1]) for q in data.target.dev]
    first, second = batches(data.target.dev), batches(relabelled)
    assert len(first) == 2
    for a, b in zip(first, second):
        assert len(a.target_title) == len(a.ranking.title)  # as many target questions as source questions
        assert all(torch.equal(getattr(a, f), getattr(b, f)) for f in
                   ("target_title", "target_title_mask", "target_body", "target_body_mask"))
    assert set(vars(first[0])) == {"ranking", "target_title", "target_title_mask", "target_body", "target_body_mask"}


@pytest.mark.parametrize("lam", [0.0, 1e-2])
def test_a_run_keeps_the_best_target_dev_epoch_and_records_the_probe(data, lam):
    result = ad.adapt_one(data, config(), seed=1, lam=lam, device="cpu", progress=False)
    history = result.history
    assert [h["epoch"] for h in history] == [0, 1, 2]
    assert result.scores["target_dev"]["AUC(0.05)"] == max(h["target_dev_AUC(0.05)"] for h in history)
    assert set(result.scores["target_test"]) == {"AUC", "AUC(0.05)", "AUC(0.05), McClish"}
    assert all(0 <= h["domain_accuracy"] <= 1 for h in history)
    assert {f"grad_norm_layer{i}" for i in range(1, 5)} <= set(history[1])


def test_a_runs_test_scores_are_its_encoders_and_its_test_aucs_are_theirs(data):
    """The Android test scores a run returns (which the ROC curves read instead of encoding the test texts again) are
    its kept encoder's scores, and its recorded test AUCs are computed from them."""
    from reproq.question_retrieval.batches import candidate_scores
    from reproq.question_retrieval.evaluate import pooled

    run = ad.adapt(data, config(), seed=1, lam=1e-2, device="cpu", progress=False)
    again = candidate_scores(run.encoder, inputs.cut_target(data, config()), data.target.test, device="cpu")
    assert len(run.test_scores) == len(data.target.test)
    assert all(np.array_equal(a, b) for a, b in zip(run.test_scores, again))
    assert run.result.scores["target_test"] == ad.auc_values(*run.test_pairs(data.target.test))
    assert run.test_pairs(data.target.test)[0].tolist() == pooled(data.target.test, again)[0].tolist()


def test_the_encoder_gets_the_ranking_gradient_minus_lambda_times_the_domain_gradient(data):
    """One batch through the adversarial ranker: the encoder's gradient is that of the max-margin loss minus λ times
    that of the domain loss (λ = 0: direct transfer, the classifier only measures)."""
    from torch.nn import functional as F

    from reproq.models.adversarial import AdversarialRanker, DomainClassifier, DomainClassifierConfig
    from reproq.train.objectives import DomainAdversarialObjective

    corpus = inputs.cut_corpus(data, config())
    source = training_batches(data.groups, corpus, epoch=1, seed=3, queries_per_batch=10, max_queries=10)
    batch = next(ad.adversarial_batches(source, data.target.corpus, epoch=1, seed=3))
    torch.manual_seed(0)
    model = AdversarialRanker(inputs.build_model(data, replace(config(), question=replace(config().question, dropout=0.0)))
                              .question_encoder, DomainClassifier(8, DomainClassifierConfig(lam=0.0))).double()
    encoder = [p for p in model.question_encoder.parameters() if p.requires_grad]

    def encoder_grads(lam, loss):
        model.classifier.config = DomainClassifierConfig(lam=lam)
        return torch.autograd.grad(loss(model(batch)), encoder)

    total = lambda out: DomainAdversarialObjective(margin=0.4)(lambda b: out, batch)["loss"]  # noqa: E731
    domain = lambda out: -F.binary_cross_entropy_with_logits(out[3], out[4])  # noqa: E731 (reversal at λ = 1)
    direct, strong, reversed_domain = encoder_grads(0.0, total), encoder_grads(10.0, total), encoder_grads(1.0, domain)
    for g0, g10, gd in zip(direct, strong, reversed_domain):
        torch.testing.assert_close(g10 - g0, -10.0 * gd, rtol=1e-9, atol=1e-12)
    assert any(gd.abs().sum() > 0 for gd in reversed_domain)
    with pytest.raises(ValueError, match="λ must be"):
        ad.adapt_one(data, config(), seed=1, lam=-1.0, device="cpu", progress=False)


def test_an_adversarial_run_resumes_to_identical_numbers(data, tmp_path, monkeypatch):
    whole = ad.adapt_one(data, config(), seed=2, lam=1e-2, device="cpu", checkpoint_root=tmp_path / "a", progress=False)
    calls = {"n": 0}
    original = ad._domain_probe

    def killed(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 3:  # after epochs 0 and 1 are checkpointed
            raise KeyboardInterrupt
        return original(*args, **kwargs)

    monkeypatch.setattr(ad, "_domain_probe", killed)
    with pytest.raises(KeyboardInterrupt):
        ad.adapt_one(data, config(), seed=2, lam=1e-2, device="cpu", checkpoint_root=tmp_path / "b", progress=False)
    monkeypatch.setattr(ad, "_domain_probe", original)
    resumed = ad.adapt_one(data, config(), seed=2, lam=1e-2, device="cpu", checkpoint_root=tmp_path / "b",
                           progress=False)
    strip = lambda h: [{k: v for k, v in r.items() if r["epoch"] or k != "loss"} for r in h]  # noqa: E731 (NaN)
    assert strip(resumed.history) == strip(whole.history) and resumed.scores == whole.scores


def test_the_siamese_network_trains_with_the_contrastive_loss_and_ranks_by_distance(data):
    from reproq.models.siamese import SiameseConfig

    siamese = inputs.TrainConfig(encoder="lstm", encoder_settings=(("hidden_dim", 4), ("bidirectional", True)), epochs=2,
                             queries_per_batch=10, max_train_queries=20, l2=0.0, idf_reweight=False,
                             question=replace(inputs.TrainConfig().question, pooling="mean", normalize_states=False,
                                              dropout=0.0))
    result = ad.siamese_one(data, siamese, seed=1, network=SiameseConfig(dense_layers=2), device="cpu",
                            progress=False)
    assert [h["epoch"] for h in result.history] == [0, 1, 2] and result.history[2]["loss"] < result.history[1]["loss"]
    assert 0 <= result.scores["target_test"]["AUC"] <= 1


def test_distance_scores_are_minus_the_euclidean_distance(data):
    from reproq.question_retrieval.batches import candidate_scores, encode_questions

    encoder = inputs.build_model(data, config()).question_encoder.eval()
    q = data.target.dev[0]
    cosine = candidate_scores(encoder, data.target.corpus, [q], device="cpu")[0]
    distance = candidate_scores(encoder, data.target.corpus, [q], device="cpu", distance=True)[0]
    v = encode_questions(encoder, data.target.corpus, [q.id, *q.candidate_ids], device="cpu")
    assert distance[0] == pytest.approx(-float((v[q.candidate_ids[0]] - v[q.id]).norm()), rel=1e-6)
    # unit vectors: the squared distance is 2 - 2 cos, so both rank the candidates alike
    assert distance.tolist() == pytest.approx((-(2 - 2 * cosine) ** 0.5).tolist(), abs=1e-5)
