"""Training runs end to end on a tiny synthetic stand-in; profiles; configuration choice."""

from __future__ import annotations

from dataclasses import replace

import pytest
import torch

from reproq import papers, profiles
from reproq.models import build_encoder, count_parameters
from reproq.papers import lei2016, rankine2016, smolyakov2017
from reproq.papers.dossantos2015 import dos_santos_table2_records
from reproq.papers.lei2016 import table3_records
from reproq.papers.smolyakov2017 import smolyakov_params_records
from reproq.question_retrieval import inputs
from reproq.question_retrieval import run as ex
from reproq.question_retrieval.summaries import trained_vs_untrained
from reproq.results import Provenance, run_records
from reproq.train.grid import RunResult


@pytest.fixture(scope="module")
def data(tiny_prepared):
    return tiny_prepared()


def config(**kw):
    settings = dict(encoder="cnn", encoder_settings=(("hidden_dim", 8),), epochs=2, queries_per_batch=10,
                    max_train_queries=20)
    return inputs.TrainConfig(**{**settings, **kw})


def test_prepare_keeps_words_with_vectors(data):
    assert data.synthetic and data.vectors.shape == (len(data.vocab), 8)
    assert not data.vectors[:2].any() and data.idf.shape == (len(data.vocab),)
    assert data.groups and all(g.positives for g in data.groups)


def test_a_run_records_history_best_epoch_and_both_splits(data, tmp_path):
    run = ex.run_one(data, config(), seed=3, device="cpu", checkpoint_root=tmp_path, progress=False)
    assert [h["epoch"] for h in run.history] == [0, 1, 2]
    assert run.best_epoch in (0, 1, 2)
    assert run.dev["MRR"] == pytest.approx(run.history[run.best_epoch]["dev_MRR"])
    assert run.scores["untrained_dev"]["MRR"] == run.history[0]["dev_MRR"]
    assert set(run.test) >= {"MAP", "MRR", "P@1", "P@5"}
    assert run.n_parameters == count_parameters(build_encoder("cnn", input_dim=8, hidden_dim=8))
    again = ex.run_one(data, config(), seed=3, device="cpu", checkpoint_root=tmp_path, progress=False)
    assert again.history[1:] == run.history[1:] and again.test == run.test  # the finished checkpoint is reused


def test_records_carry_the_synthetic_flag_and_seed(data):
    run = ex.run_one(data, config(epochs=1), seed=1, device="cpu", progress=False)
    assert run.history[1]["loss"] != ex.run_one(data, config(epochs=1), seed=2, device="cpu", progress=False).history[1]["loss"]
    provenance = Provenance.resolve(data.provenance, synthetic=data.synthetic, device="auto")
    records = run_records([run], provenance, paper="lei2016", table="Table 2", dataset="askubuntu", method="CNN",
                          setting="pooling=mean")
    assert len(records) == 2 * 4 and all(r.synthetic and r.seeds == (1,) for r in records)
    assert {r.metric for r in records} == {"MAP", "MRR", "P@1", "P@5"} and {r.split for r in records} == {"dev", "test"}
    assert all(r.device == "cpu" for r in records)  # "auto" is resolved before it is recorded
    table = trained_vs_untrained({"CNN": [run]})
    assert table.loc[0, "untrained dev MRR"] == pytest.approx(run.scores["untrained_dev"]["MRR"] * 100, abs=0.01)


def test_grid_picks_the_best_mean_dev_mrr(monkeypatch, data):
    scores = {0.1: [0.5, 0.7], 0.2: [0.65, 0.6]}  # means 0.6 and 0.625

    def fake_run(prepared, cfg, seed, **kw):
        mrr = scores[cfg.question.dropout][seed]
        return RunResult(cfg, seed, [], 1, 1, {"dev": {"MRR": mrr}}, 0, 0.0)

    monkeypatch.setattr(ex, "run_one", fake_run)
    configs = [inputs.with_question(config(), dropout=d) for d in (0.1, 0.2)]
    grid = ex.run_grid(data, configs, seeds=[0, 1])
    assert grid.best.question.dropout == 0.2 and len(grid.best_runs) == 2


def test_paper_profile_is_the_papers_grid():
    paper = papers.profile("paper").section("question_retrieval")
    assert len(lei2016.lei_grid(paper, "rcnn", pooling="last")) == 6  # lr {1e-3, 3e-4} × dropout {.1, .2, .3}
    assert len(lei2016.lei_grid(paper, "cnn", pooling="mean")) == 18  # × width {2, 3, 4}
    assert dict(lei2016.lei_grid(paper, "rcnn", pooling="last")[0].encoder_settings) == {"hidden_dim": 400}
    assert paper.seeds == (1, 2, 3, 4, 5)
    assert {c.epochs for c in lei2016.lei_grid(paper, "cnn", pooling="max")} == {50}
    assert {c.epochs for c in lei2016.lei_grid(paper, "cnn", pooling="max", epochs=7)} == {7}
    with pytest.raises(ValueError, match="profile"):
        profiles.get("gpu")


def test_smolyakov_budgets():
    paper = papers.profile("paper").section("question_retrieval")
    counts = {e: count_parameters(build_encoder(e, **dict(smolyakov2017.smolyakov_config(paper, e).encoder_settings)))
              for e in ("cnn", "lstm")}
    # Table 3: 200 filters for each kernel size 1-5 on 200-d inputs; the paper prints 420,600 (and 337,920)
    assert counts == {"cnn": 200 * 200 * 15 + 1_000, "lstm": 337_920}
    assert {r.method: r.value for r in smolyakov_params_records()} == {"CNN": 601_000, "LSTM": 337_920}
    c = smolyakov2017.smolyakov_config(paper, "lstm")
    assert (c.margin, c.n_negatives, c.max_title_len, c.max_body_len, c.question.pooling) == (0.4, 40, 10, 100, "mean")


def test_table4_networks_only_for_adversarial_runs_of_a_profile_that_asks():
    paper = papers.profile("paper")
    qr, adaptation = paper.section("question_retrieval"), paper.section("adaptation")

    def network(encoder, adversarial, a=adaptation):
        model = build_encoder(encoder, **dict(smolyakov2017.adaptation_config(qr, a, encoder, adversarial=adversarial)
                                              .encoder_settings))
        return model, count_parameters(model)

    cnn, n_cnn = network("cnn", True)
    assert cnn.widths == (2, 3, 4, 5, 6) and cnn.output_dim == 1_250 and n_cnn == 200 * 250 * 20 + 1_250
    lstm, n_lstm = network("lstm", True)
    assert not lstm.config.bidirectional and lstm.output_dim == 128 and n_lstm == 4 * 128 * (200 + 128 + 2)
    assert network("cnn", False)[1] == 601_000 and network("lstm", False)[1] == 337_920  # direct: Table 3's
    assert network("cnn", True, replace(adaptation, table4=False))[1] == 601_000


def test_rankines_networks_train_and_their_own_parameters_get_gradients(data):
    from reproq.train.objectives import MaxMarginObjective

    smoke = papers.profile("smoke").section("rankine")
    for name, c in rankine2016.rankine_configs(smoke).items():
        c = replace(c, epochs=1, max_train_queries=20, queries_per_batch=10)
        torch.manual_seed(0)
        model = inputs.build_model(data, c)
        batch = next(inputs.source_batches(data, inputs.cut_corpus(data, c), c, seed=1, epoch=1))
        MaxMarginObjective(margin=c.margin, l2=c.l2)(model, batch).backward()
        encoder = model.question_encoder
        gate = [encoder.beta_logit] if c.beta_gate == "scalar" else list(encoder.beta_mlp.parameters())
        assert all(p.grad is not None and p.grad.abs().sum() > 0 for p in gate), name
        for field in (encoder.title, encoder.body):
            assert all(p.grad is not None for p in field.parameters() if p.requires_grad), name
            if c.learn_word_weights:
                assert field.encoder.embedding.learned.grad.abs().sum() > 0, name
        if name in ("Weighted CBOW", "GRU (d=280, last state), MLP-gated β"):  # the whole loop (smoke runs all)
            run = ex.run_one(data, c, seed=1, device="cpu", progress=False)
            assert 0 < run.dev["MRR"] <= 1 and run.n_parameters == count_parameters(model)


def test_dos_santos_table2_records_are_the_paper_profiles_networks():
    values = {(r.method, r.metric): r.value for r in dos_santos_table2_records()}
    assert values == {("CNN", "context_window"): 3, ("CNN", "conv_units"): 1_000, ("CNN", "learning_rate"): 0.05,
                      ("BOW-CNN", "context_window"): 3, ("BOW-CNN", "conv_units"): 400,
                      ("BOW-CNN", "learning_rate"): 0.01}


def test_table3_records():
    values = {(r.method, r.metric): r.value for r in table3_records()}
    assert values[("RCNN", "params")] == 400_800 and values[("LSTM", "params")] == 423_360
    assert values[("GRU", "params")] == 404_040 and values[("CNN", "params")] == 400_867
    assert values[("CNN", "filter_width")] == 3 and ("LSTM", "filter_width") not in values


def test_a_run_with_its_own_objective_is_not_checkpointed(data, tmp_path):
    with pytest.raises(ValueError, match="not checkpointed"):
        ex.trained_model(data, config(), 1, checkpoint_root=tmp_path, objective=lambda model, batch: 0.0)


def test_a_model_whose_curve_is_anothers_first_epochs_says_so_in_the_legend():
    import pandas as pd

    from reproq.figures.retrieval import _under_another

    def curve(model, values, seed=1):
        return [{"model": model, "seed": seed, "epoch": e, "dev MRR (%)": v} for e, v in enumerate(values)]

    frame = pd.DataFrame(curve("CNN max", [60, 62, 63]) + curve("CNN max, 30 epochs", [60, 62, 63, 64, 65])
                         + curve("CNN mean", [60, 62]) + curve("RCNN", [60, 61, 63, 64]))
    assert _under_another(frame) == {"CNN max": "CNN max (the first epochs of CNN max, 30 epochs)",
                                     "CNN max, 30 epochs": "CNN max, 30 epochs",
                                     "CNN mean": "CNN mean (the first epochs of CNN max, 30 epochs)",
                                     "RCNN": "RCNN"}  # the same first two epochs, then not: its own line
