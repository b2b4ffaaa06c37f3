"""What an answer-selection run reads: its configuration, the data as ids with word vectors and overlap features, and
the model it builds.

:func:`prepare` lower-cases the text, builds the vocabulary over every split, trains skip-gram word2vec of
the paper's size on the split texts (the paper's vectors cannot be had here; labels are never used, and
:attr:`AnswerInputs.word_vectors` records what the vectors were trained on) or loads a pretrained source, and fits
the overlap features' IDF on all split texts, as Severyn & Moschitti and castor do (the paper gives the features
on TrecQA only; a ranker built with ``n_features = 0`` ignores them). :class:`TrainConfig` holds Tay et al.'s training
settings. ``question_retrieval.inputs`` is its sibling.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
from dataclasses import dataclass, field

import numpy as np
import torch

from reproq.answer_selection.batches import PairSet, pair_set
from reproq.baselines.overlap import OverlapFeatures, question_texts
from reproq.data import word_vectors
from reproq.data.qa_datasets import EMBEDDING_DIM, MAX_TRAIN_ANSWER, SPLITS, TRUNCATE, load_splits
from reproq.data.vocab import Vocabulary, lowercase
from reproq.models import FAMILY_MODULES
from reproq.models.answer_ranker import RankerConfig, build_ranker, family_module
from reproq.train import checkpoint

FEATURES = ("normalized", "raw")  # the overlap features' two variants (reproq.baselines.overlap)


@dataclass(frozen=True)
class TrainConfig:
    """One training configuration: the ranker, its training set, and the optimisation (Tay et al.'s defaults)."""

    ranker: RankerConfig = RankerConfig()
    train_split: str = "train"  # TrecQA: "train" or "train-all" (Table 6's two columns)
    epochs: int = 25  # Tay et al. (TrecQA): 25 epochs for TRAIN, 5 for TRAIN-ALL
    patience: int = 5  # "training is terminated if the validation performance doesn't improve after 5 epochs"
    batch_size: int = 64  # tuned in {64, 128, 256, 512} (§Implementation Details)
    lr: float = 1e-3  # Adam; tuned in {1e-3, 1e-4, 1e-5} (§Implementation Details)
    l2: float = 4e-6  # §Implementation Details
    margin: float = 0.5  # AP-CNN / AP-BiLSTM hinge margin m (our choice; dos Santos et al. tune it per dataset)
    max_batches: int | None = None  # cap on batches per epoch (the smoke profile); None: the whole split

    def label(self) -> str:
        r = self.ranker
        return (f"{r.method} m={r.projection_dim} d={r.hidden_dim} h={r.mlp_dim} on {self.train_split} lr={self.lr} "
                f"batch={self.batch_size}" + (f" alignment={r.alignment}" if r.method == "CTRN" else ""))

    @property
    def method(self) -> str:
        return self.ranker.method


@dataclass(frozen=True)
class AnswerInputs:
    """An answer-selection dataset as the rankers read it (:func:`prepare`): the vocabulary, its word vectors and what
    they are, every split as a :class:`~reproq.answer_selection.batches.PairSet`, and where it came from."""

    dataset: str
    vocab: Vocabulary
    vectors: np.ndarray  # (len(vocab), dim) float32, zero rows for padding, unknown and words without a vector
    word_vectors: dict  # what the vectors are: word2vec settings and the text they were trained on
    splits: dict[str, PairSet]
    provenance: dict[str, str] = field(compare=False)

    @property
    def n_features(self) -> int:
        any_split = next(iter(self.splits.values()))
        return 0 if any_split.features is None else any_split.features.shape[1]

    @functools.cached_property
    def content(self) -> str:
        """A SHA-1 of everything a model reads here: the word vectors and each split's token ids, labels, owners and
        overlap features. Inputs that differ in any of them (the raw or the normalised features, say, whose
        provenance is the same) never share a checkpoint (:func:`checkpoint_key`)."""
        digest = hashlib.sha1(np.ascontiguousarray(self.vectors).tobytes())
        for name, split in sorted(self.splits.items()):
            digest.update(name.encode())
            for ids in (split.q_ids, split.a_ids):
                digest.update(np.array([len(t) for t in ids], dtype=np.int64).tobytes())
                digest.update(np.fromiter(itertools.chain.from_iterable(ids), dtype=np.int64).tobytes())
            digest.update(np.asarray(split.labels, dtype=np.int64).tobytes())
            digest.update(np.asarray(split.owner, dtype=np.int64).tobytes())
            if split.features is not None:
                digest.update(np.ascontiguousarray(split.features, dtype=np.float32).tobytes())
        return digest.hexdigest()

    @property
    def word_vectors_text(self) -> str:
        """:attr:`word_vectors` as one line, for a record's provenance."""
        return json.dumps(self.word_vectors, sort_keys=True)


def prepare(dataset: str, *, vectors: str = "word2vec", features: str = "normalized", dim: int | None = None,
            w2v_epochs: int = 5, seed: int = 0, limit: int | None = None) -> AnswerInputs:
    """Vocabulary, word vectors, overlap features, and every split as a
    :class:`~reproq.answer_selection.batches.PairSet` (training sets without answers over
    :data:`~reproq.data.qa_datasets.MAX_TRAIN_ANSWER` tokens; texts cut at :data:`~reproq.data.qa_datasets.TRUNCATE`).

    ``vectors`` names a source of :mod:`reproq.data.word_vectors`: ``"word2vec"`` (skip-gram on the split texts,
    ``dim`` the paper's size, :data:`~reproq.data.qa_datasets.EMBEDDING_DIM`) or a pretrained one such as
    ``"glove.6B.50d"``. ``features`` is ``"normalized"`` (the four features divided by |Q| + |A|, castor's) or
    ``"raw"`` (the counts, Yu et al. 2014's). ``limit`` keeps the first questions of each split (smoke)."""
    if features not in FEATURES:
        raise ValueError(f"features must be one of {FEATURES}, got {features!r}")
    questions, files = load_splits(dataset)
    questions = {s: qs[:limit] for s, qs in questions.items()}
    texts = [lowercase(t) for t in question_texts(*questions.values())]
    vocab = Vocabulary.build(texts)
    options = dict(sentences=texts, dim=dim or EMBEDDING_DIM[dataset], epochs=w2v_epochs, seed=seed)
    source = word_vectors.load(vectors, **(options if vectors == "word2vec" else {}))
    record = dict(source.provenance)
    if vectors == "word2vec":
        record["trained_on"] = {**record["trained_on"], "splits": list(questions)}
    overlap = OverlapFeatures(normalize=features == "normalized").fit(question_texts(*questions.values()))
    training = SPLITS[dataset][0]
    splits = {s: pair_set(qs, vocab, overlap, truncate=TRUNCATE.get(dataset),
                          max_answer_len=MAX_TRAIN_ANSWER.get(dataset) if s in training else None)
              for s, qs in questions.items()}
    return AnswerInputs(dataset, vocab, source.matrix(vocab), record, splits, files)


def build_model(data: AnswerInputs, config: TrainConfig) -> torch.nn.Module:
    return build_ranker(torch.from_numpy(data.vectors), config.ranker)


def checkpoint_key(data: AnswerInputs, config: TrainConfig, seed: int) -> str:
    """What a run's checkpoint belongs to: data (its files, its vectors and what the model reads:
    :attr:`AnswerInputs.content`), configuration, seed and code."""
    return checkpoint.key({"data": data.provenance, "dataset": data.dataset, "vocab": len(data.vocab),
                           "word_vectors": data.word_vectors, "content": data.content}, config, seed,
                          code=run_code(config))


def run_code(config: TrainConfig, routine: str = "reproq.answer_selection.run") -> checkpoint.Code:
    """The code a run of ``config`` depends on: its training ``routine`` with what it imports, and the module of its
    ranker's encoder family, not the other families'."""
    return checkpoint.Code((routine, family_module(config.ranker)), FAMILY_MODULES)


