"""Tay et al. 2018's experiments as runs: one run, a grid of runs.

:func:`run_one` trains one configuration (:class:`~reproq.answer_selection.inputs.TrainConfig`) with one seed on its
training set through the study's training routine (:func:`reproq.train.routine.train`: Adam; cross entropy for the
pointwise rankers, the max-margin loss for the pairwise AP models; the epoch with the best DEV MAP kept, stopping
after ``patience`` epochs without improvement, Tay et al.), and scores DEV and TEST once with those weights; every
epoch is checkpointed under :func:`~reproq.answer_selection.inputs.checkpoint_key`. :func:`run_grid` is
§Implementation Details' tuning: configurations × seeds, the best by mean DEV MAP. ``question_retrieval.run`` has the
same verbs.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path

import torch

from reproq.answer_selection.batches import score_questions, training_batches
from reproq.answer_selection.evaluate import evaluate, ranking_scores
from reproq.answer_selection.inputs import AnswerInputs, TrainConfig, build_model, checkpoint_key
from reproq.models.answer_ranker import PAIRWISE
from reproq.train import callbacks, grid, objectives, routine
from reproq.train.executors import Executor
from reproq.train.grid import GridResult, RunResult


def run_one(data: AnswerInputs, config: TrainConfig, seed: int, *, device: str = "auto",
            checkpoint_root: Path | None = None, progress: bool = False, ks: Sequence[int] = ()) -> RunResult:
    """Train ``config`` with ``seed``; scores of DEV and TEST (raw, and on TrecQA also the clean sets
    ``dev_clean`` and ``test_clean``: questions with both a positive and a negative), with P@k for ``ks``. A finished or
    interrupted run under ``checkpoint_root`` with the same data, config and seed is resumed.

    The generators are seeded again once the model is built (``reseed``), so that training draws the same whatever
    the model's size. The untrained model is no candidate epoch: with the overlap features a random network can score
    well on DEV by chance, and "train for 0 epochs" is not what the paper selects among."""
    pairwise = config.method in PAIRWISE
    train, dev = data.splits[config.train_split], data.splits["dev"]
    fitted = routine.train(
        lambda device: build_model(data, config),
        objectives.MaxMarginObjective(margin=config.margin, l2=0.0) if pairwise
        else objectives.SoftmaxCrossEntropyObjective(l2=config.l2),
        lambda epoch: training_batches(train, epoch, seed=seed, batch_size=config.batch_size, pairwise=pairwise,
                                       max_batches=config.max_batches),
        seed=seed, device=device, epochs=config.epochs, selection=routine.Selection("dev_MAP", config.patience),
        evaluations=lambda model, device: [callbacks.Evaluate(lambda m: evaluate(m, dev, seed=seed))],
        optimizer=functools.partial(torch.optim.Adam, lr=config.lr), key=checkpoint_key(data, config, seed),
        checkpoint_root=checkpoint_root, desc=f"{config.method} {config.train_split} seed {seed}", progress=progress,
        evaluate_untrained=False, reseed=True)
    scores = {}
    for name in ("dev", "test"):
        if name in data.splits:
            pairs = data.splits[name]
            question_scores = score_questions(fitted.model, pairs)
            scores[name] = ranking_scores(pairs.questions, question_scores, seed=seed, ks=ks, per_question=True)
            if data.dataset == "trecqa":  # the clean set: questions with both a positive and a negative
                kept = [(q, s) for q, s in zip(pairs.questions, question_scores) if q.is_clean]
                scores[f"{name}_clean"] = ranking_scores([q for q, _ in kept], [s for _, s in kept], seed=seed, ks=ks,
                                                         per_question=True)
    return fitted.result(config, seed, scores)


def run_grid(data: AnswerInputs, configs: Sequence[TrainConfig], seeds: Sequence[int], *,
             executor: Executor | None = None, **run_options) -> GridResult:
    """Every configuration with every seed; the best configuration by mean DEV MAP (TEST unused). The runs go
    through ``executor`` (:func:`reproq.train.grid.run_grid`); with a ``checkpoint_root``, finished runs keep their
    records there and are not run again (a record without the P@k of ``ks`` is scored again from its checkpoint)."""
    store = grid.RunStore.under(run_options.get("checkpoint_root"), functools.partial(checkpoint_key, data),
                                scoring={"ks": sorted(set(run_options.get("ks", ())))})
    return grid.run_grid(functools.partial(run_one, data, **run_options), configs, seeds, metric="MAP",
                         executor=executor, store=store)
