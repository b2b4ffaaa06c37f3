"""AskUbuntu-family data as the question encoder reads it: ids, training batches of query groups, scores.

Follows taolei87/rcnn ``qa/myio.py`` where the paper is silent:

- the vocabulary is the words that have a vector; other words are dropped from the text (``map_corpus``
  with ``filter_oov=True``), then the body keeps its first 100 ids (footnote 5);
- a training query with no similar question or more than 10 is skipped (``read_annotations``,
  ``prune_pos_cnt=10``); every epoch draws 20 of its 100 random questions as negatives (§6 "Training
  Set"); a drawn question that is also marked similar counts as a positive;
- a batch holds 40 query groups (``--batch_size 40``); each (query, positive) pair is one hinge term
  against all the group's negatives.

Sampling is seeded by ``(seed, epoch)`` alone, so a resumed run draws the same batches.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from reproq.data.askubuntu import EvalQuery, Question, TrainQuery
from reproq.data.batching import pad_batch
from reproq.data.vocab import Vocabulary
from reproq.models.question import QuestionEncoder, RankingBatch


@dataclass(frozen=True)
class EncodedCorpus:
    """Every question's title and body as vocabulary ids (unknown words dropped, lengths cut)."""

    titles: dict[str, list[int]]
    bodies: dict[str, list[int]]

    def batch(self, ids: Sequence[str]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """``(title, title_mask, body, body_mask)`` of the questions ``ids``, right-padded."""
        title, title_mask = pad_batch([self.titles[i] for i in ids])
        body, body_mask = pad_batch([self.bodies[i] for i in ids])
        return title, title_mask, body, body_mask

    def cut(self, max_title_len: int | None, max_body_len: int | None) -> EncodedCorpus:
        """The corpus with titles and bodies cut at these lengths (None: uncut)."""
        return EncodedCorpus({q: t[:max_title_len] for q, t in self.titles.items()},
                             {q: b[:max_body_len] for q, b in self.bodies.items()})


def encode_corpus(corpus: dict[str, Question], vocab: Vocabulary, *, max_title_len: int | None = None,
                  max_body_len: int | None = 100) -> EncodedCorpus:
    """Ids of every question; ``max_body_len`` 100 is Lei et al.'s (footnote 5), Smolyakov & Srikant also
    cut titles at 10."""
    titles = {q: vocab.encode(x.title, unknown="drop")[:max_title_len] for q, x in corpus.items()}
    bodies = {q: vocab.encode(x.body, unknown="drop")[:max_body_len] for q, x in corpus.items()}
    return EncodedCorpus(titles, bodies)


@dataclass(frozen=True)
class TrainGroup:
    query: str
    positives: tuple[str, ...]
    randoms: tuple[str, ...]  # the pool negatives are drawn from


def training_groups(train: Sequence[TrainQuery], corpus_ids, *, max_positives: int = 10) -> list[TrainGroup]:
    """Training queries that can be used: in the corpus, with 1..``max_positives`` similar questions."""
    known = set(corpus_ids)
    groups = []
    for q in train:
        positives = tuple(p for p in q.similar_ids if p in known)
        if q.id not in known or not q.similar_ids or len(q.similar_ids) > max_positives:
            continue
        groups.append(TrainGroup(q.id, positives, tuple(r for r in q.random_ids if r in known)))
    return [g for g in groups if g.positives]


def training_batches(groups: Sequence[TrainGroup], corpus: EncodedCorpus, *, epoch: int, seed: int,
                     n_negatives: int = 20, queries_per_batch: int = 40,
                     max_queries: int | None = None) -> Iterator[RankingBatch]:
    """One epoch's batches: groups in a fresh random order (the first ``max_queries`` of it when given),
    ``n_negatives`` negatives drawn per group, every generator seeded by ``(seed, epoch)``."""
    rng = np.random.default_rng([seed, epoch])
    order = rng.permutation(len(groups))[:max_queries]
    for start in range(0, len(order), queries_per_batch):
        rows: dict[str, int] = {}
        pairs: list[list[int]] = []
        for g in (groups[i] for i in order[start:start + queries_per_batch]):
            drawn = [g.randoms[i] for i in rng.permutation(len(g.randoms))[:n_negatives]]
            positives = list(dict.fromkeys([*g.positives, *(d for d in drawn if d in g.positives)]))
            negatives = [d for d in dict.fromkeys(drawn) if d not in g.positives]
            if not negatives:
                continue
            ids = [rows.setdefault(q, len(rows)) for q in [g.query, *positives, *negatives]]
            query, pos, neg = ids[0], ids[1:1 + len(positives)], ids[1 + len(positives):]
            pairs += [[query, p, *neg] for p in pos]
        if not pairs:
            continue
        width = max(len(p) for p in pairs)
        mask = torch.tensor([[k < len(p) - 2 for k in range(width - 2)] for p in pairs])
        padded = torch.tensor([p + [p[-1]] * (width - len(p)) for p in pairs])  # repeat a real negative
        yield RankingBatch(*corpus.batch(list(rows)), padded, mask)


def encode_questions(model: QuestionEncoder, corpus: EncodedCorpus, ids: Sequence[str], *, device,
                     batch_size: int = 256) -> dict[str, torch.Tensor]:
    """Unit vectors of the questions ``ids`` (in eval mode, the caller's business), encoded in batches of
    similar body length (padding changes no encoding; it only costs time)."""
    ordered = sorted(dict.fromkeys(ids), key=lambda q: (len(corpus.bodies[q]), len(corpus.titles[q])))
    vectors = {}
    with torch.no_grad():
        for start in range(0, len(ordered), batch_size):
            chunk = ordered[start:start + batch_size]
            out = model(*(t.to(device) for t in corpus.batch(chunk))).cpu()
            vectors.update(zip(chunk, out))
    return vectors


def candidate_scores(model: QuestionEncoder, corpus: EncodedCorpus, queries: Sequence[EvalQuery], *,
                     device, distance: bool = False) -> list[np.ndarray]:
    """Cosine similarity of each query to each of its candidates (the encoder's vectors are unit vectors), or, with
    ``distance``, minus their Euclidean distance (a Siamese network's score); aligned with ``candidate_ids``."""
    ids = [i for q in queries for i in (q.id, *q.candidate_ids)]
    return vector_scores(encode_questions(model, corpus, ids, device=device), queries, distance=distance,
                         score=getattr(model, "score", None))


def vector_scores(vectors, queries: Sequence[EvalQuery], *, distance: bool = False, score=None) -> list[np.ndarray]:
    """Each query's candidates scored from question vectors (``vectors``: id -> 1-d tensor or array): dot products
    (cosines, for unit vectors), minus the Euclidean distances, or a pair scorer's ``score(query [1, D],
    candidates [1, K, D])``."""
    scores = []
    for q in queries:
        candidates = torch.stack([torch.as_tensor(vectors[c]) for c in q.candidate_ids])
        query = torch.as_tensor(vectors[q.id])
        if score is not None:
            with torch.no_grad():
                s = score(query.unsqueeze(0), candidates.unsqueeze(0))[0]
        else:
            s = -(candidates - query).norm(dim=-1) if distance else candidates.matmul(query)
        scores.append(s.double().cpu().numpy())
    return scores
