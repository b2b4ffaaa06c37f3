"""The RCNN's adaptive decay as Lei et al. §7 read it: 1 − λ_t, how much of word t enters the states.

- :func:`decays`: 1 − λ_t [T, d] of every real word of the given questions' titles or bodies, from a trained
  :class:`~reproq.models.question.QuestionRanker` whose encoder is an RCNN (:meth:`reproq.models.rcnn.RCNN.decay`).
- :func:`by_position` (Figure 5): at each word position t, the mean and the max over the d dimensions of 1 − λ_t,
  each averaged over the questions that reach t ("the average of weights in the vector decreases as t increments
  ... the largest value in the weight vector remains high").
- :func:`by_word_kind` (the check behind Figure 4): the mean of 1 − λ_t over the words of each kind — on the
  synthetic stand-in the generator knows which words carry a question's meaning
  (:func:`reproq.synthetic.word_kinds`), so whether the gate lets those in more than filler is measurable.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import torch

from reproq.data.batching import pad_batch
from reproq.models.question import QuestionRanker
from reproq.models.rcnn import RCNN
from reproq.question_retrieval.batches import EncodedCorpus

FIELDS = ("title", "body")


@torch.no_grad()
def decays(ranker: QuestionRanker, corpus: EncodedCorpus, ids: Sequence[str], field: str, *,
           batch_size: int = 256) -> list[np.ndarray]:
    """1 − λ_t of each question of ``ids`` (its ``field``: "title" or "body"), one [T_i, d] float32 array per
    question over its real words, with the ranker in eval mode (no dropout)."""
    if field not in FIELDS:
        raise ValueError(f"field must be one of {FIELDS}, got {field!r}")
    token_encoder = ranker.question_encoder.encoder
    if not isinstance(token_encoder.encoder, RCNN):
        raise ValueError(f"the decay is the RCNN's gate; this ranker's encoder is {type(token_encoder.encoder).__name__}")
    ranker.eval()
    device = next(ranker.parameters()).device
    texts = corpus.titles if field == "title" else corpus.bodies
    out = []
    for start in range(0, len(ids), batch_size):
        rows = [texts[i] for i in ids[start:start + batch_size]]
        tokens, mask = pad_batch(rows)
        decay = token_encoder.encoder.decay(token_encoder.embedding(tokens.to(device)), mask.to(device)).cpu().numpy()
        out += [d[:len(row)] for d, row in zip(decay, rows)]
    return out


def by_position(question_decays: Sequence[np.ndarray], *, max_len: int | None = None) -> pd.DataFrame:
    """Per word position t (1-based, up to ``max_len``): the mean over questions of mean_d(1 − λ_t) and of
    max_d(1 − λ_t), and how many questions reach t.

    >>> by_position([np.array([[0.2, 0.4], [0.1, 0.3]]), np.array([[0.6, 0.8]])]).round(2).values.tolist()
    [[1.0, 0.5, 0.6, 2.0], [2.0, 0.2, 0.3, 1.0]]
    """
    longest = max((len(d) for d in question_decays), default=0)
    rows = []
    for t in range(min(longest, max_len or longest)):
        at_t = np.stack([d[t] for d in question_decays if len(d) > t])
        rows.append({"position": t + 1, "mean over dimensions": float(at_t.mean(axis=1).mean()),
                     "max over dimensions": float(at_t.max(axis=1).mean()), "questions": len(at_t)})
    return pd.DataFrame(rows, columns=["position", "mean over dimensions", "max over dimensions", "questions"])


def by_word_kind(question_decays: Sequence[np.ndarray], words: Sequence[Sequence[str]],
                 kinds: Mapping[str, str]) -> pd.DataFrame:
    """Mean over the d dimensions and over every occurrence of 1 − λ_t, per kind of word (``kinds``: word ->
    kind; a word without a kind counts as "other"), with the number of occurrences.

    >>> by_word_kind([np.array([[0.2, 0.4], [0.8, 1.0]])], [["kanebo", "the"]], {"kanebo": "concept"})
          kind  mean decay  words
    0  concept         0.3      1
    1    other         0.9      1
    """
    rows = [{"kind": kinds.get(word, "other"), "decay": float(decay.mean())}
            for question, tokens in zip(question_decays, words) for decay, word in zip(question, tokens)]
    frame = pd.DataFrame(rows, columns=["kind", "decay"])
    return (frame.groupby("kind", sort=True)["decay"].agg(["mean", "size"])
            .rename(columns={"mean": "mean decay", "size": "words"}).reset_index())
