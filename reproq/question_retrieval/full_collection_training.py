"""Training BOW-CNN and CNN alone (dos Santos et al. 2015 §2.5, §3.2) and scoring the whole collection with them, or
each query's own candidates (:class:`Reranking`: SemEval-2016 3B, where the search engine's ten are the candidates).

Each training instance is a duplicate pair of :func:`~reproq.question_retrieval.full_collection.duplicate_split`'s
training groups; before training, 20 questions of other groups are drawn for it once (§2.5: "before training, we
create 20 pairs of negative examples for each positive pair"), and both ``(q1, q2)`` and ``(q2, q1)`` are trained
against them ("(q1, qx)⁻ and (q2, qx)⁻"). Each step uses the drawn question that scores highest against the query
(the smallest Δ = s(q, q⁺) − s(q, qx)) in the loss log(1 + exp(−γΔ)), γ = 10; SGD with Table 2's learning rate.
Not reported, so chosen here: pairs per step, epochs, the start of β; the validation queries' Accuracy@1 over the
full collection keeps the epoch (their "tuned using the development sets"). ``t`` starts from their IDF,
``log |Q| / df`` over the collection's questions as the model reads them (title, or title and body).

On a set whose queries rank their own candidates (:class:`Reranking`) the training pairs are each training query with
each of its positives, the 20 negatives of a pair are drawn once from its query's pool (the labelled irrelevant
candidates and random questions of other queries: :func:`reproq.data.semeval_b.training_queries`), and the dev MRR of
the candidates' ranking keeps the epoch, as for Lei et al.'s encoders on the same set.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp
import torch

from reproq.baselines.lexical import FIELDS
from reproq.data.askubuntu import EvalQuery
from reproq.data.batching import pad_batch
from reproq.models import FAMILY_MODULES
from reproq.models.bow_cnn import BOWCNN, BOWCNNConfig
from reproq.models.question import RankingBatch
from reproq.question_retrieval.evaluate import headline, retrieval_scores
from reproq.question_retrieval.full_collection import DuplicateSplit, evaluate
from reproq.question_retrieval.inputs import STAND_IN, RetrievalInputs
from reproq.train import callbacks as cb
from reproq.train import checkpoint, grid, routine
from reproq.train.executors import Executor
from reproq.train.grid import GridResult, RunResult
from reproq.train.objectives import LogisticRankingObjective


@dataclass(frozen=True)
class DosSantosConfig:
    """One training configuration; defaults are dos Santos et al.'s BOW-CNN (Table 2)."""

    model: BOWCNNConfig = BOWCNNConfig()
    fields: str = "title+body"  # "title" (Table 3) | "title+body" (Table 4, their "all")
    lr: float = 0.01  # Table 2: 0.01 for BOW-CNN, 0.05 for CNN alone; plain SGD (§2.5)
    gamma: float = 10.0  # §2.5, after Yih et al. 2011
    n_negatives: int = 20  # §2.5: 20 negatives drawn per positive pair, before training
    # their SGD takes one pair a round (§2.5); ours, for speed, several (each in both directions), the loss summed over
    # them so that each moves the weights at Table 2's rate (reproq.train.objectives.logistic_ranking_loss)
    pairs_per_batch: int = 20
    epochs: int = 10  # not reported
    patience: int = 3  # not reported: stop after this many epochs without a better validation Acc@1
    max_train_pairs: int | None = None  # a cheaper epoch: the first pairs of each epoch's order (None: all)

    def __post_init__(self):
        if self.fields not in FIELDS:
            raise ValueError(f"fields must be one of {FIELDS}, got {self.fields!r}")

    def label(self) -> str:
        name = "BOW-CNN" if self.model.bow else "CNN"
        t = f" t={self.model.t_init}" + ("" if self.model.train_t else " frozen") if self.model.bow else ""
        return f"{name} {self.fields} clu={self.model.conv_units}{t}"


@dataclass(frozen=True)
class Collection:
    """A split's questions as the model reads them (one id sequence each), rows in the split's order."""

    split: DuplicateSplit
    sequences: dict[str, list[int]]  # id -> word ids of the prepared vocabulary
    vectors: np.ndarray  # float32 [V, d]: the word vectors W⁰ starts from
    provenance: dict[str, str]

    @classmethod
    def build(cls, prepared, split: DuplicateSplit, fields: str) -> Collection:
        """From :class:`~reproq.question_retrieval.inputs.RetrievalInputs` of the same corpus: titles, or titles and
        bodies (the reader's first 100 body words) joined."""
        c = prepared.corpus
        sequences = {q: c.titles[q] + (c.bodies[q] if fields == "title+body" else []) for q in split.collection}
        return cls(split, sequences, prepared.vectors, prepared.provenance)

    @property
    def vocabulary_size(self) -> int:
        return len(self.vectors)

    def counts(self, ids: Sequence[str]) -> sp.csr_matrix:
        """``[len(ids), V]`` word counts (q^bow of Eq. 1)."""
        lengths = [len(self.sequences[q]) for q in ids]
        columns = np.fromiter((w for q in ids for w in self.sequences[q]), dtype=np.int64, count=sum(lengths))
        return sp.csr_matrix((np.ones(len(columns)), columns, np.cumsum([0, *lengths])),
                             shape=(len(ids), self.vocabulary_size))

    def idf(self) -> np.ndarray:
        """dos Santos et al. §3.2: IDF(w, Q) = log |Q| / |{q ∈ Q : w ∈ q}| (0 for a word no question uses)."""
        df = np.asarray((self.counts(self.split.collection) > 0).sum(axis=0)).ravel()
        return np.log(len(self.split.collection) / np.maximum(df, 1)).astype(np.float32) * (df > 0)

    def batch(self, ids: Sequence[str]) -> tuple[torch.Tensor, torch.Tensor]:
        return pad_batch([self.sequences[q] or [0] for q in ids])  # an empty question reads one padding word


@dataclass(frozen=True)
class Reranking:
    """A set whose queries rank their own candidates, as training reads it (:func:`reranking`): the split (the whole
    corpus as the collection, the training pairs, each query's group), each training query's pool of negatives, and
    the dev and test queries with their candidates and the metrics' convention for a query without a positive."""

    split: DuplicateSplit
    pools: dict[str, tuple[str, ...]]  # training query -> the questions its pairs' negatives are drawn from
    dev: tuple[EvalQuery, ...]
    test: tuple[EvalQuery, ...]
    no_positive: str = "skip"


def reranking(data: RetrievalInputs) -> Reranking:
    """``data``'s training groups and evaluation queries as :class:`Reranking` (the collection in sorted id order:
    candidate scores are read by row, never ranked over it)."""
    pairs = tuple((g.query, p) for g in data.groups for p in g.positives)
    group = {q: i for i, g in enumerate(data.groups) for q in (g.query, *g.positives)}
    split = DuplicateSplit(tuple(sorted(data.corpus.titles)), pairs, (), (), group)
    return Reranking(split, {g.query: g.randoms for g in data.groups}, tuple(data.dev), tuple(data.test),
                     data.no_positive)


def draw_negatives(split: DuplicateSplit, *, n: int, seed: int,
                   pools: dict[str, tuple[str, ...]] | None = None) -> np.ndarray:
    """``[pairs, n]`` collection rows drawn once per training pair (§2.5), with replacement, among the questions
    that are in neither side's group of duplicates; with ``pools``, among the pair's query's pool."""
    rng = np.random.default_rng([seed, len(split.train)])
    out = np.empty((len(split.train), n), dtype=np.int64)
    row_of = {q: i for i, q in enumerate(split.collection)} if pools is not None else {}
    for i, (a, _) in enumerate(split.train):
        if pools is not None:
            out[i] = [row_of[q] for q in np.asarray(pools[a])[rng.integers(len(pools[a]), size=n)]]
            continue
        drawn: list[int] = []
        while len(drawn) < n:
            row = int(rng.integers(len(split.collection)))
            if split.group.get(split.collection[row]) != split.group[a]:
                drawn.append(row)
        out[i] = drawn
    return out


def candidate_evaluation(score_block, collection: Collection, queries: Sequence[EvalQuery], *,
                         no_positive: str) -> dict:
    """Each query's candidates ranked by the model's scores (:func:`score_blocks`), scored by
    :func:`~reproq.question_retrieval.evaluate.retrieval_scores`."""
    row = {q: i for i, q in enumerate(collection.split.collection)}
    block = score_block(np.array([row[q.id] for q in queries], dtype=np.int64))
    scores = [block[i, [row[c] for c in q.candidate_ids]] for i, q in enumerate(queries)]
    return retrieval_scores(queries, scores, no_positive=no_positive)


def training_batches(collection: Collection, negatives: np.ndarray, config: DosSantosConfig, *, epoch: int,
                     seed: int):
    """One epoch's batches: the training pairs in a fresh order seeded by ``(seed, epoch)``, each pair twice
    (either side the query) against its drawn negatives, the pairs' questions in the ``title`` slot."""
    split = collection.split
    order = np.random.default_rng([seed, epoch]).permutation(len(split.train))[:config.max_train_pairs]
    for start in range(0, len(order), config.pairs_per_batch):
        rows: dict[str, int] = {}
        pairs = []
        for i in order[start:start + config.pairs_per_batch]:
            a, b = split.train[i]
            drawn = [rows.setdefault(split.collection[r], len(rows)) for r in negatives[i]]
            ra, rb = rows.setdefault(a, len(rows)), rows.setdefault(b, len(rows))
            pairs += [[ra, rb, *drawn], [rb, ra, *drawn]]
        tokens, mask = collection.batch(list(rows))
        empty = torch.zeros((len(rows), 0), dtype=torch.long)
        pairs_t = torch.tensor(pairs)
        yield RankingBatch(tokens, mask, empty, empty.bool(), pairs_t, torch.ones_like(pairs_t[:, 2:], dtype=torch.bool))


def build_model(collection: Collection, config: DosSantosConfig) -> BOWCNN:
    return BOWCNN(torch.from_numpy(collection.vectors), torch.from_numpy(collection.idf()), config.model)


def mean_conv_cosine(model: BOWCNN, collection: Collection, *, n: int = 200, device="cpu") -> float:
    """The mean cosine between the convolutional vectors of ``n`` questions (the collection's first, a random
    sample): near 1, the path gives every question nearly the same vector and can no longer tell them apart."""
    ids = collection.split.collection[:n]
    with torch.no_grad():
        v = model.conv_vectors(*(t.to(device) for t in collection.batch(ids))).double()
    return float(((v @ v.T).sum() - len(ids)) / (len(ids) * (len(ids) - 1)))


def score_blocks(model: BOWCNN, collection: Collection, *, device, batch_size: int = 512):
    """``score_block(rows) -> [len(rows), N]``: s(q, ·) of the collection's questions at ``rows`` against all of
    them, every question encoded once (the same score as the model gives each pair: a test checks it)."""
    ids = collection.split.collection
    model.eval()
    with torch.no_grad():
        conv = torch.cat([model.conv_vectors(*(t.to(device) for t in collection.batch(ids[i:i + batch_size]))).cpu()
                          for i in range(0, len(ids), batch_size)]).numpy()  # float32 [N, clu] unit rows
        bow = None
        if model.config.bow:
            weighted = collection.counts(ids) @ sp.diags(model.t.detach().double().cpu().numpy())
            norms = np.sqrt(np.asarray(weighted.multiply(weighted).sum(axis=1)).ravel())
            bow = (sp.diags(1.0 / np.where(norms > 0, norms, 1.0)) @ weighted).tocsr()  # [N, V] unit rows
            beta = model.beta.detach().double().cpu().numpy()

    def score_block(rows: np.ndarray) -> np.ndarray:
        scores = conv[rows] @ conv.T
        if bow is None:
            return scores
        return beta[0] * (bow[rows] @ bow.T).toarray() + beta[1] * scores

    return score_block


def trained_model(collection: Collection, config: DosSantosConfig, seed: int, *, device: str = "auto",
                  checkpoint_root: Path | None = None, progress: bool = True,
                  reranked: Reranking | None = None) -> tuple[BOWCNN, RunResult]:
    """Train one configuration with one seed through the study's training routine (:func:`reproq.train.routine.
    train`; resumed under ``checkpoint_root``): plain SGD, validation Accuracy@1 keeps the epoch; the validation and
    test Accuracy@k of that epoch are the result. With ``reranked`` (``collection`` built on its split), the pairs'
    negatives come from its pools and each query ranks its own candidates: dev MRR keeps the epoch, the dev and
    test MAP, MRR, P@1, P@5 of that epoch are the result."""
    split = collection.split
    negatives = draw_negatives(split, n=config.n_negatives, seed=seed, pools=reranked.pools if reranked else None)

    def on(queries, blocks, **options):
        if reranked is None:
            return evaluate(blocks, split, queries, **options)
        return candidate_evaluation(blocks, collection, queries, no_positive=reranked.no_positive)

    dev = reranked.dev if reranked else split.valid
    test = reranked.test if reranked else split.test

    def evaluations(model: BOWCNN, device: torch.device):
        def epoch(m: BOWCNN) -> dict:
            scores = on(dev, score_blocks(m, collection, device=device))
            return scores if reranked is None else headline(scores)

        return [cb.Evaluate(epoch),
                cb.Evaluate(lambda m: {"conv_cosine": mean_conv_cosine(m, collection, device=device)},
                            prefix="sample_")]

    fitted = routine.train(
        lambda device: build_model(collection, config), LogisticRankingObjective(gamma=config.gamma),
        lambda epoch: training_batches(collection, negatives, config, epoch=epoch, seed=seed), seed=seed,
        device=device, epochs=config.epochs,
        selection=routine.Selection("dev_MRR" if reranked else "dev_Accuracy@1", config.patience),
        evaluations=evaluations, optimizer=functools.partial(torch.optim.SGD, lr=config.lr),
        key=checkpoint_key(collection, config, seed, reranked=reranked), checkpoint_root=checkpoint_root,
        desc=f"{config.label()} seed {seed}", progress=progress)
    blocks = score_blocks(fitted.model, collection, device=fitted.device)
    scores = {"dev": on(dev, blocks), "test": on(test, blocks, **({} if reranked else {"progress": progress}))}
    return fitted.model, fitted.result(config, seed, scores)


def checkpoint_key(collection: Collection, config: DosSantosConfig, seed: int, *,
                   reranked: Reranking | None = None) -> str:
    """What a run's checkpoint belongs to: the collection's data and split (its validation queries, or with
    ``reranked`` its dev queries), the configuration, the seed and this module's code."""
    dev = reranked.dev if reranked else collection.split.valid
    return checkpoint.key({"data": collection.provenance, "split": [len(collection.split.train), [q.id for q in dev]]},
                          config, seed, code=checkpoint.Code((__name__, STAND_IN), FAMILY_MODULES))


def run_one(collection: Collection, config: DosSantosConfig, seed: int, **options) -> RunResult:
    """:func:`trained_model`'s result alone."""
    return trained_model(collection, config, seed, **options)[1]


def run_grid(collection: Collection, configs: Sequence[DosSantosConfig], seeds: Sequence[int], *,
             executor: Executor | None = None, reranked: Reranking | None = None, **run_options) -> GridResult:
    """Every configuration with every seed (:func:`reproq.train.grid.run_grid`, as ``question_retrieval.run``'s): the
    best by mean validation Accuracy@1 (with ``reranked``: dev MRR); with a ``checkpoint_root``, finished runs keep
    their records there (their wall time too) and are not run again."""
    return grid.run_grid(functools.partial(run_one, collection, reranked=reranked, **run_options), configs, seeds,
                         metric="MRR" if reranked else "Accuracy@1", executor=executor,
                         store=grid.RunStore.under(run_options.get("checkpoint_root"),
                                                   functools.partial(checkpoint_key, collection, reranked=reranked)))
