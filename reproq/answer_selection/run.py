"""Tay et al. 2018's experiments as runs: data preparation, one run, a grid of runs.

:func:`prepare` lower-cases the text, builds the vocabulary over every split, trains skip-gram word2vec of
the paper's size on the split texts (the paper's vectors cannot be had here; labels are never used, and
:attr:`Prepared.word_vectors` records what the vectors were trained on) or loads a pretrained source, and fits
the overlap features' IDF on all split texts, as Severyn & Moschitti and castor do (the paper gives the features
on TrecQA only; a ranker built with ``n_features = 0`` ignores them).

:func:`run_one` trains one configuration with one seed on its training set (Adam; cross entropy for the
pointwise rankers, the max-margin loss for the pairwise AP models), keeps the epoch with the best DEV MAP,
stops after ``patience`` epochs without improvement (Tay et al.), and scores DEV and TEST once with those
weights; every epoch is checkpointed under :func:`checkpoint_key`. :func:`run_grid` is §Implementation
Details' tuning: configurations × seeds, the best by mean DEV MAP. ``question_retrieval.run`` has the same verbs.
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from reproq.answer_selection.batches import PairSet, pair_set, score_questions, train_batches
from reproq.answer_selection.evaluate import evaluate, ranking_scores
from reproq.baselines.overlap import OverlapFeatures, question_texts
from reproq.data.qa_datasets import EMBEDDING_DIM, MAX_TRAIN_ANSWER, SPLITS, TRUNCATE, load_splits
from reproq.data import word_vectors
from reproq.data.vocab import Vocabulary, lowercase
from reproq.models import count_parameters
from reproq.models.answer_ranker import PAIRWISE, RankerConfig, build_ranker
from reproq.train import callbacks, checkpoint, loop, objectives, runs, runtime
from reproq.train.executors import Executor
from reproq.train.runs import GridResult, RunResult


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

    @property
    def method(self) -> str:
        return self.ranker.method


@dataclass(frozen=True)
class Prepared:
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

    @property
    def word_vectors_text(self) -> str:
        """:attr:`word_vectors` as one line, for a record's provenance."""
        return json.dumps(self.word_vectors, sort_keys=True)


def prepare(dataset: str, *, vectors: str = "word2vec", features: str = "normalized", dim: int | None = None,
            w2v_epochs: int = 5, seed: int = 0, limit: int | None = None) -> Prepared:
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
    return Prepared(dataset, vocab, source.matrix(vocab), record, splits, files)


def build_model(data: Prepared, config: TrainConfig) -> torch.nn.Module:
    return build_ranker(torch.from_numpy(data.vectors), config.ranker)


def checkpoint_key(data: Prepared, config: TrainConfig, seed: int) -> str:
    """What a run's checkpoint belongs to: data, configuration, seed and code."""
    return checkpoint.key({"data": data.provenance, "dataset": data.dataset, "vocab": len(data.vocab),
                           "word_vectors": data.word_vectors}, config, seed)


def run_one(data: Prepared, config: TrainConfig, seed: int, *, device: str = "auto",
            checkpoint_root: Path | None = None, progress: bool = False, ks: Sequence[int] = ()) -> RunResult:
    """Train ``config`` with ``seed``; scores of DEV and TEST (raw, and on TrecQA also the clean sets
    ``dev_clean`` and ``test_clean``: questions with both a positive and a negative), with P@k for ``ks``. A finished or
    interrupted run under ``checkpoint_root`` with the same data, config and seed is resumed."""
    started = time.perf_counter()
    runtime.seed_everything(seed)
    model = build_model(data, config).to(runtime.resolve_device(device))
    key = checkpoint_key(data, config, seed)
    state = _fit(model, data.splits[config.train_split], data.splits["dev"], config, seed=seed, progress=progress,
                 checkpoint_dir=checkpoint.folder(checkpoint_root, key), fingerprint=key)
    scores = {}
    for name in ("dev", "test"):
        if name in data.splits:
            pairs = data.splits[name]
            per_question = score_questions(model, pairs)
            scores[name] = ranking_scores(pairs.questions, per_question, seed=seed, ks=ks)
            if data.dataset == "trecqa":  # the clean set: questions with both a positive and a negative
                kept = [(q, s) for q, s in zip(pairs.questions, per_question) if q.is_clean]
                scores[f"{name}_clean"] = ranking_scores([q for q, _ in kept], [s for _, s in kept], seed=seed, ks=ks)
    return RunResult(config, seed, state.history, state.best["epoch"], state.epoch, scores, count_parameters(model),
                     time.perf_counter() - started)


def _fit(model: torch.nn.Module, train: PairSet, dev: PairSet, config: TrainConfig, *, seed: int, progress: bool,
         checkpoint_dir: Path | None, fingerprint: str) -> loop.FitState:
    """Adam on ``train``, the epoch chosen by DEV MAP; leaves the best weights in ``model``."""
    runtime.seed_everything(seed)
    pairwise = config.method in PAIRWISE
    objective = (objectives.MaxMarginObjective(margin=config.margin, l2=0.0) if pairwise
                 else objectives.SoftmaxCrossEntropyObjective(l2=config.l2))
    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=config.lr)
    desc = f"{config.method} {config.train_split} seed {seed}"
    cbs = [callbacks.Evaluate(lambda m: evaluate(m, dev, seed=seed)), callbacks.KeepBest("dev_MAP"),
           callbacks.EarlyStopping("dev_MAP", patience=config.patience),
           callbacks.ProgressBar(config.epochs, desc=desc, metric="dev_MAP", disable=not progress)]
    device = next(model.parameters()).device

    def batches(epoch):
        return (b.to(device) for b in train_batches(train, epoch, seed=seed, batch_size=config.batch_size,
                                                    pairwise=pairwise, max_batches=config.max_batches))

    # evaluate_untrained=False: the untrained model is no candidate (with the overlap features a random network
    # can score well on DEV by chance, and "train for 0 epochs" is not what the paper selects among)
    state = loop.fit(model, objective, optimizer, batches, epochs=config.epochs, callbacks=cbs,
                     checkpoint_dir=checkpoint_dir, fingerprint=fingerprint, evaluate_untrained=False)
    model.load_state_dict(state.best["model"])
    return state


def run_grid(data: Prepared, configs: Sequence[TrainConfig], seeds: Sequence[int], *,
             executor: Executor | None = None, **run_options) -> GridResult:
    """Every configuration with every seed; the best configuration by mean DEV MAP (TEST unused). The runs go
    through ``executor`` (:func:`reproq.train.runs.run_grid`); with a ``checkpoint_root``, finished runs keep their
    records there and are not run again."""
    return runs.run_grid(functools.partial(run_one, data, **run_options), configs, seeds, metric="MAP",
                         executor=executor, store=runs.RunStore.under(run_options.get("checkpoint_root"),
                                                                      functools.partial(checkpoint_key, data)))
