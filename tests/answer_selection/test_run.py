"""Answer-selection training glue: pairs and batches, repeatable epochs, scores aligned with candidates,
trec_eval MAP/MRR against pytrec_eval on a TrecQA run, and a whole (tiny) run end to end."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from reproq.answer_selection import run as tay2018
from reproq.answer_selection.batches import pair_set, score_questions, training_batches
from reproq.answer_selection.evaluate import ranking_scores
from reproq.answer_selection.inputs import (
    AnswerInputs,
    TrainConfig,
    build_model,
    prepare,
)
from reproq.baselines.overlap import OverlapFeatures, question_texts
from reproq.data.trecqa import read_trecqa_xml
from reproq.data.vocab import Vocabulary, lowercase
from reproq.models.answer_ranker import RankerConfig
from reproq.papers import tay2018 as paper
from reproq.papers.tay2018 import tay_configs

FIXTURE = Path(__file__).parents[1] / "fixtures" / "trecqa" / "sample.xml"


@pytest.fixture(scope="module")
def sample():
    questions = read_trecqa_xml(FIXTURE)
    vocab = Vocabulary.build(lowercase(t) for t in question_texts(questions))
    return questions, vocab, pair_set(questions, vocab, OverlapFeatures().fit(question_texts(questions)))


def test_pair_set_flattens_in_order(sample):
    questions, vocab, pairs = sample
    assert len(pairs.labels) == sum(len(q.candidates) for q in questions)
    assert pairs.owner.tolist() == [i for i, q in enumerate(questions) for _ in q.candidates]
    assert pairs.labels.tolist() == [c.label for q in questions for c in q.candidates]
    assert pairs.features.shape == (len(pairs.labels), 4)
    first = questions[0].candidates[0]
    assert pairs.a_ids[0] == tuple(vocab.encode(lowercase(first.tokens)))
    short = pair_set(questions, vocab, max_answer_len=5)
    assert all(len(a) <= 5 for a in short.a_ids) and len(short.labels) < len(pairs.labels)


def test_epochs_repeat_and_differ(sample):
    _, _, pairs = sample
    epoch = lambda e: [b.a_tokens.tolist() for b in training_batches(pairs, e, seed=3, batch_size=2, pairwise=False)]  # noqa: E731
    assert epoch(1) == epoch(1) and epoch(1) != epoch(2)
    seen = sorted(i for b in training_batches(pairs, 1, seed=3, batch_size=2, pairwise=False) for i in b.labels.tolist())
    assert seen == sorted(pairs.labels.tolist())  # every pair once per epoch


def test_pairwise_triples_pair_a_positive_and_a_negative_of_one_question(sample):
    questions, vocab, pairs = sample
    batches = training_batches(pairs, 1, seed=0, batch_size=3, pairwise=True)
    encoded = {(tuple(pairs.q_ids[i]), tuple(pairs.a_ids[i])): (int(pairs.owner[i]), int(pairs.labels[i]))
               for i in range(len(pairs.labels))}
    n_triples = 0
    for b in batches:
        for q, qm, pos, pm, neg, nm in zip(b.q_tokens, b.q_mask, b.a_tokens, b.a_mask, b.neg_tokens, b.neg_mask):
            owner_pos, label_pos = encoded[tuple(q[qm].tolist()), tuple(pos[pm].tolist())]
            owner_neg, label_neg = encoded[tuple(q[qm].tolist()), tuple(neg[nm].tolist())]
            assert (label_pos, label_neg) == (1, 0) and owner_pos == owner_neg
            n_triples += 1
    with_positive = {int(o) for o, y in zip(pairs.owner, pairs.labels) if y == 1}
    assert n_triples == sum(1 for o, y in zip(pairs.owner, pairs.labels) if y == 0 and int(o) in with_positive)


class AnswerLength(torch.nn.Module):
    """Scores a pair by its answer's length: a known ranking to check alignment."""

    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.ones(()))

    def score(self, batch):
        return self.w * batch.a_mask.sum(1).float()


def test_scores_come_back_aligned_with_candidates(sample):
    questions, _, pairs = sample
    scores = score_questions(AnswerLength(), pairs, batch_size=2)
    assert [s.tolist() for s in scores] == [[float(len(c.tokens)) for c in q.candidates] for q in questions]


def test_trec_eval_map_mrr_agree_with_pytrec_eval_on_a_trecqa_run(real_data):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    from reproq.data import trecqa

    real_data("trecqa", trecqa.XML_FILES["test"])
    test = trecqa.load_trecqa("test")
    feats = OverlapFeatures().fit(question_texts(test))
    rng = np.random.default_rng(0)  # overlap scores with a jitter: no ties (trec_eval keeps float32 scores)
    scores = [f[:, 1] + 1e-4 * rng.random(len(f)) for f in feats.transform_questions(test)]
    ours = ranking_scores(test, scores)
    kept = [(q, s) for q, s in zip(test, scores) if q.candidates]
    qrels = {q.id: {c.id: c.label for c in q.candidates} for q, _ in kept}
    run = {q.id: {c.id: float(v) for c, v in zip(q.candidates, s)} for q, s in kept}
    per_query = pytrec_eval.RelevanceEvaluator(qrels, {"map", "recip_rank"}).evaluate(run)
    assert len(per_query) == ours["n_evaluated"] == 95  # raw TEST: 100 questions, 5 without candidates
    assert ours["MAP"] == pytest.approx(np.mean([v["map"] for v in per_query.values()]), abs=1e-12)
    assert ours["MRR"] == pytest.approx(np.mean([v["recip_rank"] for v in per_query.values()]), abs=1e-12)


def tiny(pairs, vocab):
    return AnswerInputs("trecqa", vocab, np.random.default_rng(0).normal(size=(len(vocab), 6)).astype("f4"),
                            {"word2vec": "random, for the test"}, {"train": pairs, "dev": pairs, "test": pairs}, {})


@pytest.mark.parametrize("method", ["CTRN", "AP-CNN"])
def test_a_tiny_run_end_to_end(sample, method):
    questions, vocab, pairs = sample
    config = TrainConfig(RankerConfig(method=method, projection_dim=5, hidden_dim=4, mlp_dim=4, n_features=4),
                         epochs=3, batch_size=4, patience=1)
    result = tay2018.run_one(tiny(pairs, vocab), config, seed=1, ks=(1,))
    assert set(result.scores) >= {"dev", "test", "test_clean"}
    assert 1 <= result.best_epoch <= result.epochs_run <= 3  # the untrained model is no candidate
    assert result.history[0]["epoch"] == 1 and "dev_MAP" in result.history[-1]
    for values in (result.dev, result.test, result.scores["test_clean"]):
        assert 0 < values["MAP"] <= 1 and 0 < values["MRR"] <= 1 and 0 <= values["P@1"] <= 1
    again = tay2018.run_one(tiny(pairs, vocab), config, seed=1, ks=(1,))
    assert again.test == result.test  # same seed, same device: same numbers


def test_a_checkpointed_run_resumes_to_the_same_numbers(sample, tmp_path):
    questions, vocab, pairs = sample
    config = TrainConfig(RankerConfig(method="QRNN", projection_dim=5, hidden_dim=4, mlp_dim=4, n_features=4),
                         epochs=2, batch_size=4)
    first = tay2018.run_one(tiny(pairs, vocab), config, 1, checkpoint_root=tmp_path)
    (folder,) = tmp_path.iterdir()
    assert folder.name == tay2018.checkpoint_key(tiny(pairs, vocab), config, 1)[:16]
    assert (folder / "last.pt").is_file()
    again = tay2018.run_one(tiny(pairs, vocab), config, 1, checkpoint_root=tmp_path)  # finished: same scores
    assert again.test == first.test and again.history == first.history


def test_inputs_that_differ_only_in_their_features_never_share_a_checkpoint(sample):
    # the raw and the normalised overlap features have the same files, vectors and vocabulary: before the key held
    # what the model reads, the second variant resumed the first's finished checkpoint and was scored on its own data
    config = TrainConfig(RankerConfig(method="CTRN", n_features=4))
    raw, normalised = tiny_prepared("raw"), tiny_prepared("normalized")
    assert tay2018.checkpoint_key(raw, config, 1) != tay2018.checkpoint_key(normalised, config, 1)
    assert tay2018.checkpoint_key(raw, config, 1) == tay2018.checkpoint_key(tiny_prepared("raw"), config, 1)
    _, vocab, pairs = sample
    assert tay2018.checkpoint_key(tiny(pairs, vocab), config, 1) == tay2018.checkpoint_key(tiny(pairs, vocab), config, 1)


def test_grid_picks_the_best_mean_dev_map(monkeypatch, sample):
    questions, vocab, pairs = sample
    scores = {1e-3: [0.5, 0.7], 1e-4: [0.65, 0.6]}  # means 0.6 and 0.625

    def fake_run(prepared, cfg, seed, **kw):
        return tay2018.RunResult(cfg, seed, [], 1, 1, {"dev": {"MAP": scores[cfg.lr][seed]}}, 0, 0.0)

    monkeypatch.setattr(tay2018, "run_one", fake_run)
    configs = [TrainConfig(lr=lr) for lr in (1e-3, 1e-4)]
    assert tay2018.run_grid(tiny(pairs, vocab), configs, seeds=[0, 1]).best.lr == 1e-4


def test_profiles_give_one_configuration_or_the_papers_grid(sample):
    questions, vocab, pairs = sample
    cpu = tay_configs(paper.PROFILES["cpu"], tiny(pairs, vocab), "CTRN", "train-all")
    assert len(cpu) == 1 and cpu[0].ranker.hidden_dim == 64 and cpu[0].max_batches == 200
    assert cpu[0].ranker.n_features == 4 and cpu[0].train_split == "train-all"
    grid = tay_configs(paper.PROFILES["paper"], tiny(pairs, vocab), "QRNN", "train")
    assert len(grid) == 8 * 3 * 3 * 4  # d in 128..1024, 1-3 dense layers, 3 learning rates, 4 batch sizes
    assert {c.ranker.hidden_dim for c in grid} == set(range(128, 1025, 128)) and {c.epochs for c in grid} == {25}


def test_training_improves_dev_on_a_learnable_signal(sample):
    # positives of the fixture share words with their question; a QRNN ranker must beat its untrained self
    questions, vocab, pairs = sample
    vectors = torch.randn(len(vocab), 8, generator=torch.Generator().manual_seed(0)).numpy()
    data = AnswerInputs("trecqa", vocab, vectors, {}, {"train": pairs, "dev": pairs}, {})
    config = TrainConfig(ranker=RankerConfig(method="QRNN", projection_dim=8, hidden_dim=8, mlp_dim=8, n_features=4,
                                             dropout=0.0), epochs=30, batch_size=8, lr=1e-2, patience=30)
    torch.manual_seed(0)
    untrained = ranking_scores(pairs.questions, score_questions(build_model(data, config), pairs))["MAP"]
    result = tay2018.run_one(data, config, seed=0, device="cpu")
    losses = [r["loss"] for r in result.history]
    assert losses[-1] < 0.5 * losses[0]
    assert result.dev["MAP"] > untrained
    # the best epoch's weights are the ones scored after training
    assert result.dev["MAP"] == max(r["dev_MAP"] for r in result.history)


def test_prepare_takes_a_vector_source_and_a_feature_variant(real_data):
    from reproq.data import trecqa

    real_data("trecqa", trecqa.XML_FILES["test"])
    glove = prepare("trecqa", vectors="glove.6B.50d", features="raw", limit=5)
    assert glove.word_vectors["name"] == "glove.6B.50d" and glove.vectors.shape[1] == 50
    assert (glove.splits["test"].features[:, 0] == np.round(glove.splits["test"].features[:, 0])).all()  # counts
    normal = prepare("trecqa", w2v_epochs=1, limit=5)
    assert normal.word_vectors["name"] == "word2vec"
    assert normal.splits["test"].features[:, 0].max() <= 0.5  # |Q ∩ A| / (|Q| + |A|)
    with pytest.raises(ValueError, match="features must be one of"):
        prepare("trecqa", features="log", limit=5)


def test_the_ablation_reads_test_only_for_the_variant_dev_chose(monkeypatch):
    dev_maps = iter([0.60, 0.72, 0.65, 0.70])
    monkeypatch.setattr(paper, "prepare", lambda dataset, **kw: tiny_prepared(kw["features"]))
    monkeypatch.setattr(paper, "run_one", lambda data, config, seed, **kw: tay2018.RunResult(
        config, seed, [], 1, 1, {"dev": {"MAP": next(dev_maps), "MRR": 0.5}, "test": {"MAP": 0.9, "MRR": 0.8}}, 0, 0.0))
    table = paper.run_ablation("trecqa", paper.PROFILES["smoke"], "CTRN", 1, vectors=["word2vec"])
    assert list(table["chosen"]) == [False, True, False, False]
    assert table["TEST MAP"].notna().tolist() == [False, True, False, False]  # TEST read once, where DEV chose
    choice = paper.chosen(table)
    assert (choice.vectors, choice.variant) == ("word2vec", "normalised, through the dropout")
    assert choice.features == "normalized" and choice.ranker == {}


def test_the_ablation_choice_configures_the_rankers_and_needs_no_test_split(monkeypatch):
    configs = []
    dev_maps = iter([0.60, 0.62, 0.65, 0.70])
    monkeypatch.setattr(paper, "prepare", lambda dataset, **kw: tiny_prepared(kw["features"]))

    def run_one(data, config, seed, **kw):
        configs.append(config)
        return tay2018.RunResult(config, seed, [], 1, 1, {"dev": {"MAP": next(dev_maps), "MRR": 0.5}}, 0, 0.0)

    monkeypatch.setattr(paper, "run_one", run_one)
    table = paper.run_ablation("semeval2016", paper.PROFILES["smoke"], "QRNN", 1, vectors=["word2vec"])
    assert "TEST MAP" not in table  # the runs give no test scores: DEV only
    assert [c.ranker.n_features for c in configs] == [0, 4, 4, 4]
    assert [c.ranker.feature_dropout for c in configs] == [True, True, False, False]
    choice = paper.chosen(table)
    assert choice.variant == "raw counts, after the dropout" and choice.features == "raw"
    config = tay_configs(paper.PROFILES["cpu"], tiny_prepared("raw"), "CTRN", ranker=choice.ranker)[0]
    assert config.ranker.feature_dropout is False and config.ranker.hidden_dim == 64  # the profile's sizes kept


def tiny_prepared(features):
    questions = read_trecqa_xml(FIXTURE)
    vocab = Vocabulary.build(lowercase(t) for t in question_texts(questions))
    pairs = pair_set(questions, vocab, OverlapFeatures(normalize=features == "normalized").fit(question_texts(questions)))
    return AnswerInputs("trecqa", vocab, np.zeros((len(vocab), 6), dtype="f4"), {}, {"train": pairs}, {})


def test_the_budget_ablation_trains_each_budget_and_reads_test_where_dev_chose(monkeypatch):
    seen = []
    dev_maps = iter([0.70, 0.74, 0.73, 0.71])  # QRNN: the paper's budget wins; CTRN: the profile's

    def run_one(data, config, seed, **kw):
        seen.append((config.method, config.epochs, config.max_batches, config.ranker.feature_dropout))
        return tay2018.RunResult(config, seed, [], 2, config.epochs,
                                 {"dev": {"MAP": next(dev_maps), "MRR": 0.5}, "test": {"MAP": 0.9, "MRR": 0.8}}, 0, 0.0)

    monkeypatch.setattr(paper, "run_one", run_one)
    table = paper.run_budgets(tiny_prepared("raw"), paper.PROFILES["cpu"], ["QRNN", "CTRN"], 1,
                                 {"cpu": {}, "paper": {"epochs": 5, "max_batches": None}},
                                 ranker={"feature_dropout": False})
    assert seen == [("QRNN", 3, 200, False), ("QRNN", 5, None, False), ("CTRN", 3, 200, False), ("CTRN", 5, None, False)]
    assert list(table["budget"]) == ["cpu", "paper"] * 2 and list(table["chosen"]) == [False, True, True, False]
    assert table["TEST MAP"].notna().tolist() == [False, True, True, False]  # per method, TEST once, where DEV chose


def test_the_papers_budget_searches_d_on_dev_then_trains_every_seed_at_the_chosen_d(monkeypatch):
    """run_paper_budget, trained by a fake grid: DEV MAP chooses d per method (TEST never read to choose), the chosen d
    is trained with every seed, with the normalised features only QRNN and CTRN, and the floors come under each
    setting."""
    from reproq.results import Provenance, Record
    from reproq.train.grid import GridResult

    dev_map = {("QRNN", 64): .70, ("QRNN", 128): .74, ("CTRN", 64): .73, ("CTRN", 128): .71,
               (paper.alignment_method("ceil"), 64): .60, (paper.alignment_method("ceil"), 128): .65}
    grids = []

    def fake_grid(data, configs, seeds, **kw):
        kind = "normalized" if data.splits["train"].features.max() <= 0.5 else "raw"
        grids.append((kind, [(c.method, c.ranker.alignment, c.ranker.hidden_dim, c.epochs, c.max_batches)
                             for c in configs], list(seeds)))
        methods = {c: ("CTRN" if c.method == "CTRN" and c.ranker.alignment == "literal" else
                       paper.alignment_method(c.ranker.alignment) if c.method == "CTRN" else c.method)
                   for c in configs}
        scores = lambda c: {split: {"MAP": dev_map[methods[c], c.ranker.hidden_dim] + (split != "dev") * 0.1,
                                    "MRR": 0.5} for split in ("dev", "test", "test_clean")}
        runs = {c: [tay2018.RunResult(c, s, [], 5, 5, scores(c), 0, 0.0) for s in seeds] for c in configs}
        return GridResult(runs, configs[0])

    monkeypatch.setattr(paper, "prepare", lambda dataset, **kw: tiny_prepared(kw["features"]))
    monkeypatch.setattr(tay2018, "run_grid", fake_grid)
    floor = Record("tay2018", "Table 6", "trecqa", "test", "floor: BM25", "train=TRAIN-ALL", "MAP", 0.6, seeds=(0,))
    other = Record("tay2018", "Table 6", "trecqa", "test", "floor: BM25", "train=TRAIN", "MAP", 0.6, seeds=(0,))
    methods = ["QRNN", "CTRN", paper.alignment_method("ceil")]
    search, records = paper.run_paper_budget("trecqa", paper.PROFILES["cpu"], "word2vec", methods,
                                             [1, 2, 3], [64, 128], Provenance(code_version="test"), [floor, other])
    assert search.query("chosen")[["method", "d"]].values.tolist() == [["QRNN", 128], ["CTRN", 64],
                                                                      [paper.alignment_method("ceil"), 128]]
    assert [g[0] for g in grids] == ["raw", "raw", "normalized"]
    assert grids[0][2] == [1] and len(grids[0][1]) == 6  # the search: every method and d, the first seed
    assert {c[3:] for c in grids[0][1]} == {(5, None)}  # the paper's 5 full passes
    assert grids[1][1] == [("QRNN", "literal", 128, 5, None), ("CTRN", "literal", 64, 5, None),
                           ("CTRN", "ceil", 128, 5, None)] and grids[1][2] == [1, 2, 3]
    assert [c[:3] for c in grids[2][1]] == [("QRNN", "literal", 128), ("CTRN", "literal", 64)]  # normalised
    by_setting = {s: {r.method for r in records if r.setting == s} for s in paper.BUDGET_SETTINGS.values()}
    assert by_setting == {paper.BUDGET_SETTINGS["raw"]: set(methods) | {"floor: BM25"},
                          paper.BUDGET_SETTINGS["normalized"]: {"QRNN", "CTRN", "floor: BM25"}}
    assert {r.split for r in records if r.method == "QRNN"} == {"test", "test-clean", "dev"}
    assert len([r for r in records if r.method == "QRNN" and r.split == "test" and r.metric == "MAP"]) == 6


def test_a_reused_run_records_the_settings_it_was_trained_under(sample, tmp_path, monkeypatch):
    """Issue 53: a rerun at another thread count that reuses a finished run says the run's thread count, not its own."""
    from reproq import run_settings
    from reproq.results import Provenance, run_records

    questions, vocab, pairs = sample
    config = TrainConfig(RankerConfig(method="QRNN", projection_dim=5, hidden_dim=4, mlp_dim=4, n_features=4),
                         epochs=1, batch_size=4)
    monkeypatch.setattr(run_settings, "current", lambda: {"threads": "1", "executor": "local"})
    first = tay2018.run_one(tiny(pairs, vocab), config, 1, checkpoint_root=tmp_path)
    monkeypatch.setattr(run_settings, "current", lambda: {"threads": "2", "executor": "dask"})
    again = tay2018.run_one(tiny(pairs, vocab), config, 1, checkpoint_root=tmp_path)  # finished: reused
    assert first.settings == again.settings == {"threads": "1", "executor": "local"}
    [record] = run_records([again], Provenance(run=run_settings.current()), paper="p", table="t", dataset="d",
                           method="QRNN", splits=["test"], metrics=["MAP"])
    assert record.run == {"threads": "1", "executor": "local"}
