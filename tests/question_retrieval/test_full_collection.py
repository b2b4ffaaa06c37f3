"""dos Santos et al.'s protocol: a split with no duplicate pair on two sides, full-collection Accuracy@k equal to
ranking every question with Python's sort, and BOW-CNN's collection scores equal to its pair scores."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

from reproq import metrics
from reproq.corpora import load_askubuntu
from reproq.synthetic import SyntheticConfig
from reproq.models.bow_cnn import BOWCNNConfig
from reproq.question_retrieval import full_collection_training as bow_cnn
from reproq.question_retrieval.full_collection import (accuracy_at_k, duplicate_pairs, duplicate_split,
                                                       lexical_score_block, top_k)


@pytest.fixture(scope="module")
def data(tiny_stand_in):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return load_askubuntu("synthetic", synthetic_config=SyntheticConfig(**tiny_stand_in))


@pytest.fixture(scope="module")
def split(data):
    return duplicate_split(data, valid_queries=20, test_queries=30, seed=4)


def test_no_duplicate_pair_is_on_two_sides(data, split):
    side = {q.id: "valid" for q in split.valid} | {q.id: "test" for q in split.test}
    side |= {q: "train" for pair in split.train for q in pair}
    for a, b in duplicate_pairs(data):
        assert side[a] == side[b], (a, b)
    assert len(split.test) >= 30 and len(split.valid) >= 20 and split.train
    assert sorted(split.collection) == sorted(data.corpus)  # every question, each once
    for query in split.valid + split.test:
        assert query.duplicate_ids and query.id not in query.duplicate_ids
    again = duplicate_split(data, valid_queries=20, test_queries=30, seed=4)
    assert again == split and duplicate_split(data, valid_queries=20, test_queries=30, seed=5).test != split.test
    with pytest.raises(ValueError, match="ask for fewer"):
        duplicate_split(data, valid_queries=10_000, test_queries=30)


def test_top_k_accuracy_equals_sorting_the_whole_collection():
    rng = np.random.default_rng(0)
    n, queries = 60, 25
    scores = rng.integers(0, 6, size=(queries, n)).astype(float)  # many ties
    rows = rng.choice(n, size=queries, replace=False)
    duplicates = [rng.choice(np.setdiff1d(np.arange(n), [r]), size=rng.integers(1, 4), replace=False) for r in rows]
    query_of = {r: i for i, r in enumerate(rows)}  # collection row -> its query's row of ``scores``
    ranked = top_k(lambda block: scores[[query_of[r] for r in block]], rows, k=10, block=7)
    ours = accuracy_at_k(ranked, duplicates, ks=(1, 5, 10))
    # the slow twin: each query against every other question, Python's stable sort through the metric
    keep = [np.delete(np.arange(n), r) for r in rows]
    labels = [np.isin(k, d).astype(int) for k, d in zip(keep, duplicates)]
    for k in (1, 5, 10):
        slow = metrics.accuracy_at_k_score(labels, [scores[i, kept] for i, kept in enumerate(keep)], k=k)
        assert ours[f"Accuracy@{k}"] == pytest.approx(slow)
    assert all(r not in row for r, row in zip(rows, ranked))  # never itself


def test_collection_scores_equal_the_models_pair_scores(tiny_prepared, data, split):
    collection = bow_cnn.Collection.build(tiny_prepared(), split, "title+body")
    for config in (bow_cnn.DosSantosConfig(model=BOWCNNConfig(conv_units=5)),
                   bow_cnn.DosSantosConfig(model=BOWCNNConfig(conv_units=5, bow=False))):
        torch.manual_seed(0)
        model = bow_cnn.build_model(collection, config).eval()
        if config.model.bow:
            with torch.no_grad():
                model.beta.copy_(torch.tensor([0.7, 1.3]))  # unequal: a swapped β would show
        negatives = bow_cnn.draw_negatives(split, n=4, seed=1)
        batch = next(bow_cnn.training_batches(collection, negatives, config, epoch=1, seed=1))
        positive, drawn, _ = model(batch)
        block = bow_cnn.score_blocks(model, collection, device="cpu")
        row = {q: i for i, q in enumerate(split.collection)}
        # the batch's rows are its questions in first-use order; map them to collection rows
        order = []
        for i in np.random.default_rng([1, 1]).permutation(len(split.train))[:config.pairs_per_batch]:
            a, b = split.train[i]
            for q in [split.collection[r] for r in negatives[i]] + [a, b]:
                if q not in order:
                    order.append(q)
        pairs = batch.pairs.numpy()
        full = block(np.array([row[order[p[0]]] for p in pairs]))
        expected = np.stack([full[j, [row[order[c]] for c in p[1:]]] for j, p in enumerate(pairs)])
        np.testing.assert_allclose(torch.cat([positive[:, None], drawn], 1).detach().numpy(), expected,
                                   rtol=1e-5, atol=1e-6)


def test_lexical_collection_scores_equal_scoring_each_question(data, split):
    from reproq.baselines.lexical import question_tokens
    from reproq.baselines.lucene import SIMILARITIES

    ranker = SIMILARITIES["LMDirichlet"]()
    block = lexical_score_block(ranker, data.corpus, split, fields="title")
    rows = np.array([3, 17, 250])
    for row, scores in zip(rows, block(rows)):
        query = question_tokens(data.corpus[split.collection[row]], "title")
        expected = [ranker.score(query, d) for d in range(len(split.collection))]  # the slow twin, pair by pair
        np.testing.assert_allclose(scores, expected, rtol=1e-12, atol=1e-12)


def test_negatives_are_never_duplicates(split):
    drawn = bow_cnn.draw_negatives(split, n=20, seed=3)
    for (a, _), rows in zip(split.train, drawn):
        assert all(split.group.get(split.collection[r]) != split.group[a] for r in rows)


def test_reranking_trains_on_each_querys_pool_and_scores_its_own_candidates(tiny_prepared, tmp_path):
    """dos Santos et al.'s networks on a set whose queries rank their own candidates (SemEval-2016 3B): the negatives
    of a pair come from its query's pool, the dev MRR of the candidates keeps the epoch, and the scores of the
    candidates are the model's pair scores."""
    from reproq.question_retrieval.evaluate import retrieval_scores

    data = tiny_prepared()
    reranked = bow_cnn.reranking(data)
    assert reranked.split.train == tuple((g.query, p) for g in data.groups for p in g.positives)
    negatives = bow_cnn.draw_negatives(reranked.split, n=5, seed=1, pools=reranked.pools)
    for (query, _), rows in zip(reranked.split.train, negatives):
        assert {reranked.split.collection[r] for r in rows} <= set(reranked.pools[query])
    collection = bow_cnn.Collection.build(data, reranked.split, "title+body")
    config = bow_cnn.DosSantosConfig(model=BOWCNNConfig(conv_units=8), epochs=2, pairs_per_batch=8)
    model, result = bow_cnn.trained_model(collection, config, 1, device="cpu", progress=False, reranked=reranked)
    assert "dev_MRR" in result.history[1] and 1 <= result.best_epoch <= 2
    block = bow_cnn.score_blocks(model, collection, device="cpu")
    row = {q: i for i, q in enumerate(collection.split.collection)}
    by_hand = [block(np.array([row[q.id]]))[0, [row[c] for c in q.candidate_ids]] for q in data.test]
    assert result.scores["test"]["MAP"] == pytest.approx(retrieval_scores(data.test, by_hand)["MAP"])


def test_a_finished_run_is_reused_with_its_own_wall_time(tiny_prepared, tmp_path):
    """bow_cnn.run_grid keeps each finished run's record beside its checkpoint, as the other tasks' run_grid do: a
    second call trains nothing and returns the first run's numbers and seconds (not the seconds of reading it back)."""
    data = tiny_prepared()
    reranked = bow_cnn.reranking(data)
    collection = bow_cnn.Collection.build(data, reranked.split, "title")
    config = bow_cnn.DosSantosConfig(model=BOWCNNConfig(conv_units=8), epochs=1, pairs_per_batch=8)
    first = bow_cnn.run_grid(collection, [config], [1], reranked=reranked, device="cpu", progress=False,
                             checkpoint_root=tmp_path).best_runs[0]
    again = bow_cnn.run_grid(collection, [config], [1], reranked=reranked, device="cpu", progress=False,
                             checkpoint_root=tmp_path).best_runs[0]
    assert again.seconds == first.seconds and again.scores["test"]["MAP"] == first.scores["test"]["MAP"]
