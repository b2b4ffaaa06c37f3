"""What the question-retrieval tests share: a tiny synthetic stand-in, and it prepared for training."""

from __future__ import annotations

import warnings

import pytest

from reproq.corpora import load_android, load_askubuntu
from reproq.synthetic import SyntheticConfig
from reproq.question_retrieval.inputs import prepare

TINY = dict(n_questions=400, n_intents=80, n_train_queries=40, n_dev_queries=15, n_test_queries=15, n_heldout=10,
            n_concepts=60, n_filler=60, vector_dim=8, body_len=(10, 30))


@pytest.fixture(scope="session")
def tiny_stand_in() -> dict:
    """The tiny stand-in's SyntheticConfig fields (generated in well under a second)."""
    return dict(TINY)


@pytest.fixture(scope="session")
def tiny_prepared():
    """``tiny_prepared(target=False, **overrides)``: ``inputs.prepare`` of the tiny AskUbuntu stand-in (``overrides`` of
    its SyntheticConfig), with the tiny Android stand-in (its own pairs) as the target when ``target``."""
    def make(*, target: bool = False, **overrides):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            source = load_askubuntu("synthetic", synthetic_config=SyntheticConfig(**TINY, **overrides))
            android = load_android("synthetic", synthetic_config=SyntheticConfig(domain="android", **TINY, **overrides),
                                   real_pairs=False) if target else None
            return prepare(source, target=android)

    return make
