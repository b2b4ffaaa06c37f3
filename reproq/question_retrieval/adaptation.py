"""Smolyakov & Srikant (2017) Experiments 2 and 3: from AskUbuntu to Android without a single Android label.

An encoder trained on AskUbuntu's labelled pairs is applied to Android (*direct transfer*), or trained with a domain
classifier behind a gradient reversal layer on encodings of AskUbuntu and of unlabelled Android questions
(*adversarial*, :mod:`reproq.models.adversarial`). Android's dev pairs choose the epoch (and λ, in a sweep); its test
pairs report, as the pooled ROC AUC and AUC(0.05) of the course meter (:func:`auc_values` of the pairs
:func:`~reproq.question_retrieval.evaluate.pooled` pools), scikit-learn's McClish value beside it.

- the Android corpus as ids on the source's vocabulary, and its dev/test pairs: :func:`reproq.question_retrieval.inputs.
  prepare` with ``target=``, which builds the vocabulary over both corpora; :func:`with_target_sample` a cheaper dev;
- :func:`adversarial_batches`: each source training batch of :mod:`~reproq.question_retrieval.batches`, with as many
  Android questions as it has source questions, drawn from the corpus by ``(seed, epoch)`` — texts only;
- :func:`adapt` (:func:`adapt_one`: its result alone): one configuration, one seed, one λ (0: direct transfer),
  through the study's training routine like every run; each epoch records the source dev MRR, the Android dev
  AUCs, the domain classifier's loss and accuracy on a fixed sample of both domains, and the mean gradient norm of
  each of its layers (Figures 12–14); it returns an :class:`Adapted`: the encoder, its result and its scores of
  every Android test pair, which the ROC curves and the per-query table read (the test texts are encoded once);
- :func:`siamese` (:func:`siamese_one`): Experiment 3's Siamese BiLSTM with dense layers and dropout, contrastive
  loss, the same routine.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

import numpy as np
import torch
from torch.nn import functional as F

from reproq import metrics
from reproq.data.askubuntu import EvalQuery
from reproq.models.adversarial import AdversarialBatch, AdversarialRanker, DomainClassifier, DomainClassifierConfig
from reproq.models.siamese import SiameseConfig, SiameseEncoder, SiameseRanker
from reproq.question_retrieval.batches import EncodedCorpus, candidate_scores
from reproq.question_retrieval.evaluate import pooled, retrieval_scores
from reproq.question_retrieval.inputs import (RetrievalInputs, TrainConfig, build_model, checkpoint_key, cut_corpus,
                                              cut_target, run_code, source_batches)
from reproq.train import callbacks as cb
from reproq.train import checkpoint, routine
from reproq.train.objectives import ContrastiveObjective, DomainAdversarialObjective
from reproq.train.grid import RunResult

AUCS = {"AUC": (1.0, "meter"), "AUC(0.05)": (0.05, "meter"), "AUC(0.05), McClish": (0.05, "mcclish")}


def with_target_sample(data: RetrievalInputs, *, dev: int | None, test: int | None = None,
                       seed: int = 0) -> RetrievalInputs:
    """``data`` whose target dev and test sets keep ``dev`` and ``test`` of their queries, drawn
    with ``seed`` (None: all): a cheaper choice of epoch for a small profile (``cpu`` samples dev only; ``smoke`` also
    test, to run every code path in seconds)."""
    def sample(queries, n):
        if n is None or n >= len(queries):
            return queries
        return [queries[i] for i in sorted(np.random.default_rng(seed).choice(len(queries), n, replace=False))]

    return replace(data, target=replace(data.target, dev=sample(data.target.dev, dev),
                                        test=sample(data.target.test, test)))


def auc_values(labels: np.ndarray, scores: np.ndarray) -> dict[str, float]:
    """The AUC variants of :data:`AUCS` of pooled ``labels`` and ``scores``: the course meter's AUC and AUC(0.05), and
    scikit-learn's McClish-standardised AUC(0.05)."""
    return {name: metrics.auc_score(labels, scores, max_fpr=fpr, variant=variant) for name, (fpr, variant) in AUCS.items()}


def adversarial_batches(source_batches: Iterator, target: EncodedCorpus, *, epoch: int, seed: int
                        ) -> Iterator[AdversarialBatch]:
    """Each source batch with as many target questions as it has source questions, drawn without labels (the
    target corpus holds texts only) by a generator seeded by ``(seed, epoch, 1)``."""
    ids = sorted(target.titles)
    rng = np.random.default_rng([seed, epoch, 1])
    for batch in source_batches:
        drawn = [ids[i] for i in rng.choice(len(ids), len(batch.title), replace=False)]
        yield AdversarialBatch(batch, *target.batch(drawn))


def _domain_probe(model: AdversarialRanker, source: EncodedCorpus, target: EncodedCorpus, *, device,
                  n: int = 500) -> dict[str, float]:
    """The domain classifier on a fixed sample of ``n`` questions of each domain: its cross entropy, and its accuracy
    (0.5: the encodings no longer tell the domains apart)."""
    rng = np.random.default_rng(0)
    picks = [[ids[i] for i in rng.choice(len(ids), min(n, len(ids)), replace=False)]
             for ids in (sorted(source.titles), sorted(target.titles))]
    with torch.no_grad():
        v = torch.cat([model.question_encoder(*(t.to(device) for t in corpus.batch(p)))
                       for corpus, p in zip((source, target), picks)])
        logits = model.classifier(v)
    domain = torch.cat([torch.zeros(len(picks[0])), torch.ones(len(picks[1]))]).to(device)
    return {"loss": float(F.binary_cross_entropy_with_logits(logits, domain)),
            "accuracy": float(((logits > 0).float() == domain).float().mean())}


class Adapted(NamedTuple):
    """A trained adaptation run: its ``encoder`` at the kept epoch (eval mode), its ``result``, and its ``test_scores``,
    one array per Android test query aligned with its candidates (what ``result``'s target test AUCs are computed
    from)."""

    encoder: torch.nn.Module
    result: RunResult
    test_scores: list[np.ndarray]

    def test_pairs(self, queries: Sequence[EvalQuery]) -> tuple[np.ndarray, np.ndarray]:
        """``(labels, scores)`` of every test pair, pooled (``queries``: the run's test queries): what a ROC curve
        is drawn from."""
        return pooled(queries, self.test_scores)


def adapt_one(data: RetrievalInputs, config: TrainConfig, seed: int, **options) -> RunResult:
    """:func:`adapt`'s result alone."""
    return adapt(data, config, seed, **options).result


def siamese_one(data: RetrievalInputs, config: TrainConfig, seed: int, **options) -> RunResult:
    """:func:`siamese`'s result alone."""
    return siamese(data, config, seed, **options).result


def adapt(data: RetrievalInputs, config: TrainConfig, seed: int, *, lam: float, classifier: DomainClassifierConfig = DomainClassifierConfig(),
          device: str = "auto", checkpoint_root: Path | None = None, progress: bool = True) -> Adapted:
    """Train ``config`` on the source labels of ``data`` (:func:`~reproq.question_retrieval.inputs.prepare` with a
    ``target``)
    with one seed and λ = ``lam``: 0 is direct transfer — the domain classifier still learns to tell the domains
    apart from the encodings, but the reversal passes nothing back, so it only *measures* how far apart they are —
    and λ > 0 is adversarial training. The epoch of the best target dev AUC(0.05) is kept; its scores (source dev
    MRR, target dev and test AUCs) are returned with the encoder at that epoch (eval mode) and its test scores. A run
    under ``checkpoint_root`` resumes."""
    if lam < 0:
        raise ValueError(f"λ must be >= 0 (0: direct transfer), got {lam}")

    def model(encoder):
        return AdversarialRanker(encoder, DomainClassifier(encoder.output_dim, replace(classifier, lam=lam)))

    def extra_callbacks(m, corpus, target_corpus, device):
        return [cb.Evaluate(lambda m: _domain_probe(m, corpus, target_corpus, device=device), prefix="domain_"),
                cb.GradientNorms(m.classifier)]

    label = "direct" if lam == 0 else f"adversarial λ={lam:g}"
    return _adapted(data, config, seed, model, DomainAdversarialObjective(margin=config.margin, l2=config.l2),
                    label=label, key={"lam": lam, "classifier": classifier}, target_batches=True,
                    extra_callbacks=extra_callbacks, device=device, checkpoint_root=checkpoint_root, progress=progress)


def siamese(data: RetrievalInputs, config: TrainConfig, seed: int, *, network: SiameseConfig = SiameseConfig(), device: str = "auto",
            checkpoint_root: Path | None = None, progress: bool = True) -> Adapted:
    """Smolyakov & Srikant Experiment 3's Siamese network: ``config``'s encoder (their BiLSTM, mean pooling, no
    normalisation) under dense layers with dropout, the contrastive loss on AskUbuntu's pairs, candidates ranked by
    minus the distance; the epoch of the best target dev AUC(0.05) is kept, as in :func:`adapt`."""
    return _adapted(data, config, seed, lambda encoder: SiameseRanker(SiameseEncoder(encoder, network)),
                    ContrastiveObjective(margin=network.margin), label="siamese", key={"siamese": network},
                    distance=True, device=device, checkpoint_root=checkpoint_root, progress=progress)


def _adapted(data: RetrievalInputs, config: TrainConfig, seed: int, build, objective, *, label: str, key: dict,
             target_batches: bool = False, extra_callbacks=None, distance: bool = False, device: str,
             checkpoint_root: Path | None, progress: bool) -> Adapted:
    """The run every adaptation method shares, through the study's training routine
    (:func:`reproq.train.routine.train`): ``build(question_encoder)`` is the model ``objective`` trains on the source
    batches (with target questions when ``target_batches``); the target dev AUC(0.05) keeps the epoch."""
    if data.target is None:
        raise ValueError("adaptation needs inputs.prepare(source, target=...): the target corpus and pairs")
    corpus, target, target_corpus = cut_corpus(data, config), data.target, cut_target(data, config)

    def on_target(encoder, queries, device) -> dict[str, float]:
        return auc_values(*pooled(queries, candidate_scores(encoder, target_corpus, queries, device=device,
                                                            distance=distance)))

    def evaluations(model, device: torch.device):
        encoder = model.question_encoder
        return [cb.Evaluate(lambda m: {"MRR": retrieval_scores(data.dev, candidate_scores(
                    encoder, corpus, data.dev, device=device, distance=distance))["MRR"]}),
                cb.Evaluate(lambda m: on_target(encoder, target.dev, device), prefix="target_dev_"),
                *(extra_callbacks(model, corpus, target_corpus, device) if extra_callbacks else [])]

    def batches(epoch: int):
        source = source_batches(data, corpus, config, seed=seed, epoch=epoch)
        return adversarial_batches(source, target_corpus, epoch=epoch, seed=seed) if target_batches else source

    run_key = checkpoint.key(checkpoint_key(data, config, seed), {"target": target.provenance, **key},
                             [q.id for q in target.dev],  # the dev queries that choose the epoch
                             code=run_code(config, __name__))
    fitted = routine.train(
        lambda device: build(build_model(data, config).question_encoder), objective, batches, seed=seed,
        device=device, epochs=config.epochs, selection=routine.Selection("target_dev_AUC(0.05)", config.patience),
        evaluations=evaluations,
        optimizer=functools.partial(torch.optim.Adam, lr=config.lr, weight_decay=config.weight_decay),
        schedule=config.learning_rate if config.lr_halve_every else None, key=run_key,
        checkpoint_root=checkpoint_root, desc=f"{config.encoder} {label} seed {seed}", progress=progress)
    encoder = fitted.model.question_encoder
    best = fitted.state.history[fitted.state.best["epoch"]]
    test_scores = candidate_scores(encoder, target_corpus, target.test, device=fitted.device, distance=distance)
    scores = {"dev": {"MRR": best["dev_MRR"]},
              "target_dev": {k[len("target_dev_"):]: v for k, v in best.items() if k.startswith("target_dev_")},
              "target_test": auc_values(*pooled(target.test, test_scores))}
    return Adapted(encoder, fitted.result(config, seed, scores, counted=encoder), test_scores)
