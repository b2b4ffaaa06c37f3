"""doc2vec (Le & Mikolov 2014) as Smolyakov & Srikant (2017) Experiment 3 trains it, with gensim.

A question is one document, its title followed by its body; the model is trained on the *source* corpus
(AskUbuntu), then a vector is inferred for each target question (Android) and candidates are ranked by the cosine
with the query's (:func:`reproq.question_retrieval.batches.candidate_scores` does the same with an encoder's). Table 5 and §6.3: 256 dimensions, a context window of 10, words seen at least twice, 64 epochs
with the learning rate decaying linearly from 0.025 (gensim's default schedule, down to its ``min_alpha``); the
distributed-memory (DM) and distributed-bag-of-words (DBOW) architectures.

Repeatable: one worker thread and a fixed seed make training repeatable (measured across processes), and
inference needs one more thing. gensim draws an inferred document's starting vector from a hash of its words with
Python's ``hash``, which differs from process to process (``PYTHONHASHSEED``): two runs of the same notebook gave
doc2vec-DM test AUCs of 0.709 and 0.710. ``infer_vector`` takes no hash function, so :meth:`Doc2VecRanker.vectors`
gives gensim's starting-vector function a stable hash for its duration (:func:`_stable_starting_vectors`).
"""

from __future__ import annotations

import functools
import zlib
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np


def _stable_hash(text: str) -> int:
    """A hash of ``text`` that is the same in every process (CRC-32 of its UTF-8 bytes)."""
    return zlib.crc32(text.encode("utf-8"))


@contextmanager
def _stable_starting_vectors() -> Iterator[None]:
    """gensim's ``Doc2Vec.infer_vector`` draws its starting vector with ``pseudorandom_weak_vector`` and Python's
    per-process ``hash``; for the duration, that function (as ``gensim.models.doc2vec`` sees it) uses
    :func:`_stable_hash` instead."""
    from gensim.models import doc2vec as module

    original = module.pseudorandom_weak_vector
    module.pseudorandom_weak_vector = functools.partial(original, hashfxn=_stable_hash)
    try:
        yield
    finally:
        module.pseudorandom_weak_vector = original


@dataclass(frozen=True)
class Doc2VecConfig:
    dm: bool = True  # Table 7: doc2vec-DM and doc2vec-DBOW (dm=False)
    vector_size: int = 256  # Table 5: doc2vec dim 256
    window: int = 10  # Table 5: context window 10
    min_count: int = 2  # Table 5: min count 2
    alpha: float = 0.025  # Table 5 and §6.3: learning rate 0.025, decayed linearly
    epochs: int = 64  # §6.3: trained for 64 epochs
    seed: int = 0


class Doc2VecRanker:
    """``fit(docs)`` trains on the token sequences ``docs``; ``vectors(docs)`` infers unit vectors for others, whose
    dot products are cosines."""

    def __init__(self, config: Doc2VecConfig = Doc2VecConfig()):
        self.config = config

    def fit(self, docs: Sequence[Sequence[str]]) -> Doc2VecRanker:
        from gensim.models.doc2vec import Doc2Vec, TaggedDocument  # gensim is slow to import; few callers need it

        c = self.config
        self.model_ = Doc2Vec([TaggedDocument(list(d), [i]) for i, d in enumerate(docs)], dm=int(c.dm),
                              vector_size=c.vector_size, window=c.window, min_count=c.min_count, alpha=c.alpha,
                              epochs=c.epochs, seed=c.seed, workers=1)
        return self

    def vectors(self, docs: Mapping[str, Sequence[str]]) -> dict[str, np.ndarray]:
        """A unit vector per document, inferred with the training's epochs and learning rate; the model's generator
        (its negative samples) is reseeded before each document, so a document's vector depends on it alone, not on
        which documents were inferred before it."""
        out = {}
        with _stable_starting_vectors():
            for key, tokens in docs.items():
                self.model_.random.seed(self.config.seed)
                v = self.model_.infer_vector(list(tokens))
                out[key] = v / (np.linalg.norm(v) + 1e-12)
        return out
