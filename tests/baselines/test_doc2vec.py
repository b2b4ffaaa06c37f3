"""doc2vec (Smolyakov & Srikant Experiment 3): deterministic with a seed and one worker; inference order-free."""

from __future__ import annotations

import numpy as np

from reproq.baselines.doc2vec import Doc2VecConfig, Doc2VecRanker

DOCS = [["wifi", "driver", "crash", "after", "update"], ["kernel", "panic", "on", "boot"],
        ["wifi", "slow", "after", "suspend"], ["battery", "drain", "on", "laptop"]] * 5
SMALL = dict(vector_size=8, window=2, min_count=1, epochs=5)


def test_same_seed_same_vectors_and_inference_does_not_depend_on_order():
    a, b = (Doc2VecRanker(Doc2VecConfig(**SMALL)).fit(DOCS) for _ in range(2))
    queries = {"q1": ["wifi", "crash"], "q2": ["battery", "laptop"], "q3": ["kernel", "boot", "panic"]}
    va, vb = a.vectors(queries), b.vectors(dict(reversed(queries.items())))
    assert all(np.array_equal(va[k], vb[k]) for k in queries)
    assert all(abs(np.linalg.norm(v) - 1) < 1e-6 for v in va.values())
    other = Doc2VecRanker(Doc2VecConfig(**SMALL, seed=1)).fit(DOCS).vectors(queries)
    assert not np.array_equal(other["q1"], va["q1"])


def test_dm_and_dbow_are_different_models():
    dm = Doc2VecRanker(Doc2VecConfig(**SMALL)).fit(DOCS)
    dbow = Doc2VecRanker(Doc2VecConfig(**SMALL, dm=False)).fit(DOCS)
    assert dm.model_.dm and not dbow.model_.dm
    q = {"q": ["wifi", "after", "update"]}
    assert not np.array_equal(dm.vectors(q)["q"], dbow.vectors(q)["q"])
