"""Discriminative training of a question encoder on AskUbuntu (Lei et al. 2016 §3, §6), run by run.

:func:`prepare` turns a :class:`~reproq.data.askubuntu.QuestionRetrievalData` into ids, vectors and IDF
weights; :func:`run_one` trains one configuration with one seed (Adam, max-margin loss on the hardest
negative, dev MRR picks the epoch, test at that epoch) through the generic fit loop, checkpointing every
epoch under :func:`checkpoint_key`; :func:`run_grid` runs configurations × seeds and picks the configuration
by mean dev MRR (:func:`reproq.train.runs.run_grid`). ``answer_selection.run`` has the same verbs.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import torch

from reproq.data.askubuntu import EvalQuery, QuestionRetrievalData
from reproq.data.vocab import Vocabulary, embedding_matrix, idf_weights
from reproq.models import build_encoder, count_parameters
from reproq.models.embedding import TokenEncoder, WordEmbedding
from reproq.models.question import QuestionEncoder, QuestionEncoderConfig, QuestionRanker, SeparateFieldsEncoder
from reproq.question_retrieval.batches import (EncodedCorpus, TrainGroup, encode_corpus, training_batches,
                                               training_groups)
from reproq.question_retrieval.adaptation import Target, prepare_target
from reproq.question_retrieval.evaluate import evaluate
from reproq.question_retrieval.pretrain import PretrainConfig, pretrain_one
from reproq.train import callbacks as cb
from reproq.train import checkpoint, runs
from reproq.train.executors import Executor
from reproq.train.loop import fit_best
from reproq.train.objectives import MaxMarginObjective
from reproq.train.runtime import resolve_device, seed_everything
from reproq.train.runs import GridResult, RunResult


@dataclass(frozen=True)
class TrainConfig:
    """One training configuration; defaults are Lei et al.'s RCNN (and taolei87/rcnn ``qa/main.py``)."""

    encoder: str = "rcnn"
    encoder_settings: tuple[tuple[str, object], ...] = ()  # overrides of the encoder config, e.g. (("hidden_dim", 100),)
    question: QuestionEncoderConfig = QuestionEncoderConfig()
    lr: float = 1e-3  # Adam; Lei et al. §6 grid {1e-3, 3e-4}; qa/main.py --learning_rate 0.001
    weight_decay: float = 0.0  # Smolyakov & Srikant: 1e-5; Lei et al. use the L2 term below instead
    lr_halve_every: int | None = None  # Smolyakov & Srikant §7.1: "halved every 4 epochs"
    margin: float = 1.0  # δ; qa/main.py hard-codes 1.0 (Smolyakov & Srikant: 0.4)
    l2: float = 1e-5  # qa/main.py --l2_reg 0.00001, on Σ‖θ‖₂
    n_negatives: int = 20  # Lei et al. §6: "We randomly sample 20 questions as negative examples ... each epoch"
    queries_per_batch: int = 40  # qa/main.py --batch_size 40 (query groups per batch)
    max_title_len: int | None = None  # Smolyakov & Srikant: 10
    max_body_len: int | None = 100  # Lei et al. footnote 5
    idf_reweight: bool = True  # qa/main.py --reweight 1: word vectors scaled by IDF
    epochs: int = 50  # qa/main.py --max_epoch 50
    patience: int = 15  # qa/main.py stops after 15 epochs without a better dev MRR
    max_train_queries: int | None = None  # a cheaper epoch: only this many query groups (None: all)
    pretrain: PretrainConfig | None = None  # Lei et al. §4.2: start from a pre-trained encoder (None: random init)
    learn_word_weights: bool = False  # Rankine §5.1: a learned weight λ_w >= 0 per word on the fixed vectors
    separate_fields: bool = False  # Rankine §5.2: title and body through encoders of their own, β learned
    beta_gate: str = "scalar"  # with separate_fields: one β ("scalar"), or β of each pair from an MLP ("mlp")

    def learning_rate(self, epoch: int) -> float:
        """The learning rate of ``epoch`` (from 1): ``lr``, halved every ``lr_halve_every`` epochs when set."""
        return self.lr * 0.5 ** ((epoch - 1) // self.lr_halve_every) if self.lr_halve_every else self.lr

    def label(self) -> str:
        settings = ", ".join(f"{k}={v}" for k, v in self.encoder_settings)
        return f"{self.encoder}({settings}) {self.question.pooling} {self.question.fields} lr={self.lr} " \
               f"dropout={self.question.dropout}" + (" + pre-train" if self.pretrain else "") + \
               (" learned word weights" if self.learn_word_weights else "") + \
               (f" separate title/body encoders, {self.beta_gate} β" if self.separate_fields else "")


@dataclass(frozen=True)
class Prepared:
    vocab: Vocabulary
    vectors: np.ndarray  # float32 [V, E], rows on vocab ids
    idf: np.ndarray  # float32 [V]
    corpus: EncodedCorpus  # body already cut at the reader's 100 tokens, title uncut
    groups: list[TrainGroup]
    dev: list[EvalQuery]
    test: list[EvalQuery]
    synthetic: bool
    provenance: dict[str, str]
    heldout: tuple[str, ...] = ()  # never trained on: pre-training's perplexity (Lei et al. Figure 3)
    target: Target | None = None  # domain adaptation: the target domain on this vocabulary (adaptation.py)


def prepare(data: QuestionRetrievalData, *, max_positives: int = 10,
            target: QuestionRetrievalData | None = None) -> Prepared:
    """Vocabulary = the corpus words that have a vector (taolei87/rcnn drops the others from the text); with a
    ``target`` domain (Android, for adaptation), the words of both corpora, and the target prepared on it. IDF
    weights come from the source corpus alone."""
    if data.vectors is None or data.train is None:
        raise ValueError(f"{data.domain} has no vectors or training queries; train on AskUbuntu")
    words, vectors = data.vectors
    corpora = [data.corpus] + ([target.corpus] if target is not None else [])
    seen = {w for corpus in corpora for q in corpus.values() for w in (*q.title, *q.body)}
    vocab = Vocabulary(w for w in words if w in seen)
    documents = [" ".join(part) for q in data.corpus.values() for part in (q.title, q.body)]
    provenance = data.provenance | (target.provenance if target is not None else {})
    return Prepared(vocab, embedding_matrix(vocab, words, vectors), idf_weights(vocab, documents),
                    encode_corpus(data.corpus, vocab, max_body_len=None),
                    training_groups(data.train, data.corpus, max_positives=max_positives),
                    data.dev, data.test, data.synthetic, provenance, tuple(data.heldout),
                    None if target is None else prepare_target(target, vocab))


def build_embedding(data: Prepared, config: TrainConfig) -> WordEmbedding:
    """The fixed word vectors ``config`` reads (IDF-scaled when it says so), with its dropout."""
    return WordEmbedding(torch.from_numpy(data.vectors), weights=torch.from_numpy(data.idf) if config.idf_reweight
                         else None, dropout=config.question.dropout, learn_weights=config.learn_word_weights)


def build_model(data: Prepared, config: TrainConfig) -> QuestionRanker:
    def question_encoder(question: QuestionEncoderConfig) -> QuestionEncoder:
        encoder = build_encoder(config.encoder, input_dim=data.vectors.shape[1], **dict(config.encoder_settings))
        return QuestionEncoder(TokenEncoder(build_embedding(data, config), encoder), question)

    if config.separate_fields:
        one_field = replace(config.question, fields="title")
        return QuestionRanker(SeparateFieldsEncoder(question_encoder(one_field), question_encoder(one_field),
                                                    gate=config.beta_gate))
    return QuestionRanker(question_encoder(config.question))


def cut_corpus(data: Prepared, config: TrainConfig) -> EncodedCorpus:
    """The corpus as ``config`` reads it: titles and bodies cut at its lengths."""
    return data.corpus.cut(config.max_title_len, config.max_body_len)


def source_batches(data: Prepared, corpus: EncodedCorpus, config: TrainConfig, *, seed: int, epoch: int):
    """One epoch's training batches of ``config`` (:func:`~reproq.question_retrieval.batches.training_batches`)."""
    return training_batches(data.groups, corpus, epoch=epoch, seed=seed, n_negatives=config.n_negatives,
                            queries_per_batch=config.queries_per_batch, max_queries=config.max_train_queries)


def checkpoint_key(data: Prepared, config: TrainConfig, seed: int) -> str:
    """What a run's checkpoint belongs to: data, configuration, seed and code."""
    return checkpoint.key({"data": data.provenance, "vocab": len(data.vocab)}, config, seed)


def run_one(data: Prepared, config: TrainConfig, seed: int, *, device: str = "auto",
            checkpoint_root: Path | None = None, progress: bool = True) -> RunResult:
    """Train one configuration with one seed; a finished or interrupted run under ``checkpoint_root`` with
    the same data, config and seed is resumed (a finished one costs only the final test evaluation)."""
    return trained_model(data, config, seed, device=device, checkpoint_root=checkpoint_root, progress=progress)[1]


def trained_model(data: Prepared, config: TrainConfig, seed: int, *, device: str = "auto",
                  checkpoint_root: Path | None = None, progress: bool = True,
                  objective=None) -> tuple[QuestionRanker, RunResult]:
    """:func:`run_one`, and the model it leaves: the weights of its best dev epoch, in eval mode (a finished run
    under ``checkpoint_root`` is reused, as the notebooks' runs are). With ``config.pretrain`` the encoder is first
    pre-trained with the same seed (:func:`~reproq.question_retrieval.pretrain.pretrain_one`, reused from its own
    checkpoint) and fine-tuning starts from it; the generators are then seeded again, so that fine-tuning draws
    what training from scratch with the same seed draws. ``objective(model, batch) -> loss`` replaces the max-margin
    objective of ``config`` (a course lab trains with the student's loss); it is no part of the checkpoint key, so
    it cannot be combined with a ``checkpoint_root``."""
    if objective is not None and checkpoint_root is not None:
        raise ValueError("a run with its own objective is not checkpointed: its key would not tell it apart")
    started = time.time()
    device = resolve_device(device)
    start = None if config.pretrain is None else pretrain_one(data, config, seed, device=device,
                                                              checkpoint_root=checkpoint_root, progress=progress)
    seed_everything(seed)
    model = build_model(data, config).to(device)
    if start is not None:
        model.question_encoder.encoder.encoder.load_state_dict(start.encoder)
    corpus = cut_corpus(data, config)
    encoder = model.question_encoder
    model.eval()
    untrained_test = evaluate(encoder, corpus, data.test, device=device)
    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=config.lr,
                                 weight_decay=config.weight_decay)
    callbacks = [cb.Evaluate(lambda m: _headline(evaluate(m.question_encoder, corpus, data.dev, device=device))),
                 cb.KeepBest("dev_MRR"), cb.EarlyStopping("dev_MRR", patience=config.patience)]
    if config.lr_halve_every:
        callbacks.append(cb.LearningRateSchedule(optimizer, config.learning_rate))
    callbacks.append(cb.ProgressBar(config.epochs, desc=f"{config.encoder} seed {seed}", disable=not progress))
    key = checkpoint_key(data, config, seed)

    def batches(epoch: int):
        for batch in source_batches(data, corpus, config, seed=seed, epoch=epoch):
            yield batch.to(device)

    objective = objective or MaxMarginObjective(margin=config.margin, l2=config.l2)
    state = fit_best(model, objective, optimizer, batches, epochs=config.epochs,
                     callbacks=callbacks, key=key, checkpoint_root=checkpoint_root)
    untrained_dev = {k[4:]: v for k, v in state.history[0].items() if k.startswith("dev_")}
    scores = {"dev": evaluate(encoder, corpus, data.dev, device=device),
              "test": evaluate(encoder, corpus, data.test, device=device),
              "untrained_dev": untrained_dev, "untrained_test": _headline(untrained_test)}
    return model, RunResult(config, seed, state.history, state.best["epoch"], state.epoch, scores,
                            count_parameters(model), time.time() - started)


def _headline(scores: dict) -> dict:
    return {k: scores[k] for k in ("MAP", "MRR", "P@1", "P@5")}


def run_grid(data: Prepared, configs: Sequence[TrainConfig], seeds: Sequence[int], *,
             executor: Executor | None = None, **run_options) -> GridResult:
    """Every configuration with every seed; the best configuration by mean dev MRR (at each run's best epoch).
    The runs go through ``executor`` (:func:`reproq.train.runs.run_grid`); with a ``checkpoint_root``, finished runs
    keep their records there and are not run again."""
    return runs.run_grid(functools.partial(run_one, data, **run_options), configs, seeds, metric="MRR",
                         executor=executor, store=runs.RunStore.under(run_options.get("checkpoint_root"),
                                                                      functools.partial(checkpoint_key, data)))


def with_question(config: TrainConfig, **question_overrides) -> TrainConfig:
    """``config`` with some question-encoder settings changed (pooling, fields, dropout)."""
    return replace(config, question=replace(config.question, **question_overrides))
