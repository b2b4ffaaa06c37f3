"""Answer-selection data as the rankers read it: pairs of word ids, training batches of an epoch, scores.

A split becomes a :class:`PairSet` (every question–candidate pair as word ids, with its label, the
question it belongs to and, on TrecQA, the four overlap features). Pointwise models train on shuffled pairs
(Tay et al.: 2-class cross entropy); pairwise models (AP-CNN, AP-BiLSTM) on triples (q, a⁺, a⁻), where
each negative of an epoch meets one positive of its question drawn at random (dos Santos et al. 2016 train
with one negative per positive; pairing every negative once keeps the epoch as long as the pointwise one).
Batches are drawn from a generator seeded by (seed, epoch), so a resumed run repeats them. Pairs are
sorted by answer length within windows of 20 batches before batching (less padding, same epoch).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields

import numpy as np
import torch

from reproq.data.batching import pad_batch
from reproq.data.qa import QAQuestion
from reproq.data.vocab import Vocabulary, lowercase


@dataclass(frozen=True)
class PairSet:
    """A split as flat question–candidate pairs, in question order, candidates in reader order."""

    questions: tuple[QAQuestion, ...]
    q_ids: tuple[tuple[int, ...], ...]
    a_ids: tuple[tuple[int, ...], ...]
    labels: np.ndarray  # (P,) int64
    owner: np.ndarray  # (P,) index of the question of each pair
    features: np.ndarray | None  # (P, 4) float32, or None


@dataclass(frozen=True)
class PairBatch:
    q_tokens: torch.Tensor
    q_mask: torch.Tensor
    a_tokens: torch.Tensor
    a_mask: torch.Tensor
    features: torch.Tensor | None = None
    labels: torch.Tensor | None = None
    neg_tokens: torch.Tensor | None = None
    neg_mask: torch.Tensor | None = None

    def to(self, device: torch.device) -> PairBatch:
        moved = (getattr(self, f.name) for f in fields(self))
        return PairBatch(*(None if t is None else t.to(device) for t in moved))


def pair_set(questions: Sequence[QAQuestion], vocab: Vocabulary, overlap=None, *,
             max_answer_len: int | None = None, truncate: int | None = None) -> PairSet:
    """Encode ``questions`` (lower-cased) on ``vocab``; ``overlap`` (a fitted
    :class:`~reproq.baselines.overlap.OverlapFeatures`) adds the features. With ``max_answer_len`` pairs whose
    answer is longer are dropped (for training only: Severyn & Moschitti's parse.py drops answers over 60
    tokens, 1,221 pairs of TRAIN-ALL); with ``truncate`` questions and answers keep their first ``truncate``
    tokens (overlap features still see the whole texts)."""
    q_ids, a_ids, labels, owner, feats = [], [], [], [], []
    for i, q in enumerate(questions):
        question = tuple(vocab.encode(lowercase(q.tokens)))[:truncate]
        for c in q.candidates:
            if max_answer_len is not None and len(c.tokens) > max_answer_len:
                continue
            q_ids.append(question)
            a_ids.append(tuple(vocab.encode(lowercase(c.tokens)))[:truncate])
            labels.append(c.label)
            owner.append(i)
            if overlap is not None:
                feats.append(overlap.transform(q.tokens, c.tokens))
    features = np.asarray(feats, dtype=np.float32).reshape(-1, 4) if overlap is not None else None
    return PairSet(tuple(questions), tuple(q_ids), tuple(a_ids), np.asarray(labels, dtype=np.int64),
                   np.asarray(owner, dtype=np.int64), features)


def make_batch(pairs: PairSet, index: Sequence[int], negatives: Sequence[int] | None = None) -> PairBatch:
    q_tokens, q_mask = pad_batch([pairs.q_ids[i] for i in index])
    a_tokens, a_mask = pad_batch([pairs.a_ids[i] for i in index])
    features = None if pairs.features is None else torch.from_numpy(pairs.features[list(index)])
    neg_tokens = neg_mask = None
    if negatives is not None:
        neg_tokens, neg_mask = pad_batch([pairs.a_ids[i] for i in negatives])
    return PairBatch(q_tokens, q_mask, a_tokens, a_mask, features, torch.from_numpy(pairs.labels[list(index)]),
                     neg_tokens, neg_mask)


def _bucketed(order: np.ndarray, lengths: np.ndarray, batch_size: int, rng) -> list[np.ndarray]:
    """Batches of ``order`` sorted by length within windows of 20 batches; batch order shuffled."""
    window = 20 * batch_size
    batches = []
    for start in range(0, len(order), window):
        chunk = order[start:start + window]
        chunk = chunk[np.argsort(lengths[chunk], kind="stable")]
        batches += [chunk[i:i + batch_size] for i in range(0, len(chunk), batch_size)]
    return [batches[i] for i in rng.permutation(len(batches))]


def training_batches(pairs: PairSet, epoch: int, *, seed: int, batch_size: int, pairwise: bool,
                  max_batches: int | None = None) -> list[PairBatch]:
    """The batches of one epoch, drawn from ``numpy.random.default_rng((seed, epoch))``."""
    rng = np.random.default_rng((seed, epoch))
    lengths = np.array([len(a) for a in pairs.a_ids])
    if not pairwise:
        return [make_batch(pairs, b) for b in _bucketed(rng.permutation(len(lengths)), lengths, batch_size, rng)
                [:max_batches]]
    positives_of = {}
    for i in np.flatnonzero(pairs.labels == 1):
        positives_of.setdefault(int(pairs.owner[i]), []).append(int(i))
    negatives = np.array([i for i in np.flatnonzero(pairs.labels == 0) if int(pairs.owner[i]) in positives_of],
                         dtype=np.int64)
    batches = []
    for neg in _bucketed(rng.permutation(negatives), lengths, batch_size, rng)[:max_batches]:
        pos = [positives_of[int(pairs.owner[i])][rng.integers(len(positives_of[int(pairs.owner[i])]))] for i in neg]
        batches.append(make_batch(pairs, pos, negatives=neg))
    return batches


@torch.no_grad()
def score_questions(model: torch.nn.Module, pairs: PairSet, *, batch_size: int = 256) -> list[np.ndarray]:
    """``model.score`` of every pair, one array per question aligned with its candidates (eval mode)."""
    was_training = model.training
    model.eval()
    device = next(model.parameters()).device
    lengths = np.array([len(a) for a in pairs.a_ids])
    order = np.argsort(lengths, kind="stable")  # similar lengths together: less padding
    scores = np.zeros(len(lengths), dtype=np.float64)
    for start in range(0, len(order), batch_size):
        index = order[start:start + batch_size]
        scores[index] = model.score(make_batch(pairs, index).to(device)).double().cpu().numpy()
    model.train(was_training)
    return [scores[pairs.owner == i] for i in range(len(pairs.questions))]
