"""Discriminative training of a question encoder on AskUbuntu (Lei et al. 2016 §3, §6), run by run.

:func:`run_one` trains one configuration (:class:`~reproq.question_retrieval.inputs.TrainConfig`) with one seed on
:class:`~reproq.question_retrieval.inputs.RetrievalInputs` through the study's training routine
(:func:`reproq.train.routine.train`: Adam, the max-margin loss on the hardest negative, dev MRR keeps the epoch, test
at that epoch), checkpointed every epoch under :func:`~reproq.question_retrieval.inputs.checkpoint_key`;
:func:`run_grid` runs configurations × seeds and picks the configuration by mean dev MRR
(:func:`reproq.train.grid.run_grid`). ``answer_selection.run`` has the same verbs.
"""

from __future__ import annotations

import functools
from dataclasses import replace
from collections.abc import Sequence
from pathlib import Path

import torch

from reproq.models.question import QuestionRanker
from reproq.question_retrieval.evaluate import evaluate, headline
from reproq.question_retrieval.inputs import (RetrievalInputs, TrainConfig, build_model, checkpoint_key, cut_corpus,
                                              source_batches)
from reproq.question_retrieval.pretrain import pretrain_one
from reproq.train import callbacks as cb
from reproq.train import grid, routine
from reproq.train.executors import Executor
from reproq.train.objectives import MaxMarginObjective
from reproq.train.grid import GridResult, RunResult
from reproq.train.runtime import resolve_device


def run_one(data: RetrievalInputs, config: TrainConfig, seed: int, *, device: str = "auto",
            checkpoint_root: Path | None = None, progress: bool = True) -> RunResult:
    """Train one configuration with one seed; a finished or interrupted run under ``checkpoint_root`` with
    the same data, config and seed is resumed (a finished one costs only the final test evaluation)."""
    return trained_model(data, config, seed, device=device, checkpoint_root=checkpoint_root, progress=progress)[1]


def trained_model(data: RetrievalInputs, config: TrainConfig, seed: int, *, device: str = "auto",
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
    device = resolve_device(device)
    start = None if config.pretrain is None else pretrain_one(data, config, seed, device=device,
                                                              checkpoint_root=checkpoint_root, progress=progress)
    corpus = cut_corpus(data, config)
    untrained_test = {}

    def build(device: torch.device) -> QuestionRanker:
        model = build_model(data, config).to(device)
        if start is not None:
            model.question_encoder.encoder.encoder.load_state_dict(start.encoder)
        model.eval()  # the untrained model's test scores, read once before training (epoch 0 reads dev)
        untrained_test.update(headline(evaluate(model.question_encoder, corpus, data.test, device=device,
                                                  no_positive=data.no_positive)))
        return model

    def evaluations(model: QuestionRanker, device: torch.device):
        return [cb.Evaluate(lambda m: headline(evaluate(m.question_encoder, corpus, data.dev, device=device,
                                                         no_positive=data.no_positive)))]

    fitted = routine.train(
        build, objective or MaxMarginObjective(margin=config.margin, l2=config.l2),
        functools.partial(_batches, data, corpus, config, seed), seed=seed, device=device, epochs=config.epochs,
        selection=routine.Selection("dev_MRR", config.patience), evaluations=evaluations,
        optimizer=functools.partial(torch.optim.Adam, lr=config.lr, weight_decay=config.weight_decay),
        schedule=config.learning_rate if config.lr_halve_every else None, key=checkpoint_key(data, config, seed),
        checkpoint_root=checkpoint_root, desc=f"{config.encoder} seed {seed}", progress=progress)
    encoder = fitted.model.question_encoder
    untrained_dev = {k[4:]: v for k, v in fitted.state.history[0].items() if k.startswith("dev_")}
    scores = {"dev": evaluate(encoder, corpus, data.dev, device=fitted.device, no_positive=data.no_positive),
              "test": evaluate(encoder, corpus, data.test, device=fitted.device, no_positive=data.no_positive),
              "untrained_dev": untrained_dev, "untrained_test": untrained_test}
    run = fitted.result(config, seed, scores)  # its pre-training's seconds count: the run cost them
    return fitted.model, run if start is None else replace(run, seconds=run.seconds + start.seconds)


def _batches(data: RetrievalInputs, corpus, config: TrainConfig, seed: int, epoch: int):
    return source_batches(data, corpus, config, seed=seed, epoch=epoch)


def run_grid(data: RetrievalInputs, configs: Sequence[TrainConfig], seeds: Sequence[int], *,
             executor: Executor | None = None, **run_options) -> GridResult:
    """Every configuration with every seed; the best configuration by mean dev MRR (at each run's best epoch).
    The runs go through ``executor`` (:func:`reproq.train.grid.run_grid`); with a ``checkpoint_root``, finished runs
    keep their records there and are not run again."""
    return grid.run_grid(functools.partial(run_one, data, **run_options), configs, seeds, metric="MRR",
                         executor=executor, store=grid.RunStore.under(run_options.get("checkpoint_root"),
                                                                      functools.partial(checkpoint_key, data)))
