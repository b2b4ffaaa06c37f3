"""Tay et al. 2018's experiments as runs: data preparation, the profiles' settings, one run, the search grid.

Preparation (:func:`prepare`) lower-cases the text, builds the vocabulary over every split, trains 50-d
skip-gram word2vec on the split texts (the paper's 50-d aquaint + Wikipedia vectors of Severyn & Moschitti
cannot be had here; labels are never used, and :attr:`Prepared.embeddings` records what the vectors were
trained on), and on TrecQA fits the overlap features' IDF on all split texts, as Severyn & Moschitti and castor
do. Word2vec vectors are cached under ``build/word2vec/`` by a hash of their text and settings.

:func:`run_once` trains one method once (one seed, one training split), selects its epoch on DEV MAP, and
scores DEV and TEST; :func:`grid_search` is §Implementation Details' tuning, on DEV, for the ``paper`` profile.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np
import torch

from reproq import paths
from reproq.baselines.overlap import OverlapFeatures, question_texts
from reproq.data import semeval, trecqa, wikiqa
from reproq.data.records import QAQuestion
from reproq.data.sources import provenance
from reproq.data.vocab import Vocabulary, embedding_matrix, text_fingerprint, train_word2vec
from reproq.models.answer_selection import PAIRWISE, RankerConfig, build_ranker
from reproq.results import code_version
from reproq.train import runtime
from reproq.train.answer_selection import PairSet, TrainConfig, fit_ranker, lowercase, pair_set, ranking_scores
from reproq.train.answer_selection import score_questions

SPLITS = {  # dataset -> (training splits, dev split, test split or None)
    "trecqa": (("train", "train-all"), "dev", "test"),
    "wikiqa": (("train",), "dev", "test"),
    "semeval2016": (("train",), "dev", None),  # QatarLiving: the test threads cannot be had (reproq.data.semeval)
}
MAX_TRAIN_ANSWER = {"trecqa": 60}  # Severyn & Moschitti parse.py: training answers over 60 tokens are dropped
EMBEDDING_DIM = {  # the paper's word-vector sizes (§Implementation Details); ours are word2vec of that size
    "trecqa": 50,  # Severyn & Moschitti's 50-d aquaint + Wikipedia skip-gram vectors
    "semeval2016": 200,  # GloVe 200-d trained on the task's unannotated QatarLiving corpus
    "wikiqa": 50,  # not in the paper: as TrecQA
}
TRUNCATE = {"semeval2016": 100}  # forum threads: keep the first 100 tokens of a question or comment (ours)


@dataclass(frozen=True)
class Profile:
    ranker: dict  # RankerConfig overrides
    train: dict[str, TrainConfig]  # per TrecQA training split ("train", "train-all") and per other dataset
    w2v_epochs: int = 5
    grid: dict = field(default_factory=dict)  # RankerConfig / TrainConfig field -> values, searched on DEV
    limit: int | None = None  # the first questions of each split only (smoke: every code path, in seconds)


PAPER_GRID = {  # §Implementation Details
    "hidden_dim": list(range(128, 1025, 128)), "mlp_layers": [1, 2, 3],
    "lr": [1e-3, 1e-4, 1e-5], "batch_size": [64, 128, 256, 512],
}
PROFILES = {
    # smoke: every code path in seconds
    "smoke": Profile(ranker={"projection_dim": 16, "hidden_dim": 16, "mlp_dim": 16},
                     train={s: TrainConfig(epochs=1, batch_size=32, max_batches=3)
                            for s in ("train", "train-all", "semeval2016", "wikiqa")},
                     w2v_epochs=1, limit=12),
    # cpu (2 cores): half the grid's smallest filter count, no search; TRAIN-ALL: 2 epochs of 200 batches of 128
    # (one pass over TRAIN-ALL in all); QatarLiving and WikiQA: fewer epochs
    "cpu": Profile(ranker={"projection_dim": 50, "hidden_dim": 64, "mlp_dim": 64},
                   train={"train": TrainConfig(epochs=12, batch_size=64),
                          "train-all": TrainConfig(epochs=2, batch_size=128, max_batches=200),
                          "semeval2016": TrainConfig(epochs=8, batch_size=64),
                          "wikiqa": TrainConfig(epochs=6, batch_size=64)}),
    # paper: 25 / 5 epochs and the search grid (for a GPU)
    "paper": Profile(ranker={}, train={"train": TrainConfig(epochs=25), "train-all": TrainConfig(epochs=5),
                                       "semeval2016": TrainConfig(epochs=25), "wikiqa": TrainConfig(epochs=25)},
                     w2v_epochs=20, grid=PAPER_GRID),
}


@dataclass(frozen=True)
class Prepared:
    dataset: str
    vocab: Vocabulary
    vectors: np.ndarray  # (len(vocab), dim) float32, zero rows for padding, unknown and words without a vector
    embeddings: dict  # what the vectors are: word2vec settings and the text they were trained on
    splits: dict[str, PairSet]
    provenance: dict[str, str]

    @property
    def n_features(self) -> int:
        any_split = next(iter(self.splits.values()))
        return 0 if any_split.features is None else any_split.features.shape[1]


def load_splits(dataset: str) -> tuple[dict[str, list[QAQuestion]], dict[str, str]]:
    """The dataset's splits (raw TrecQA) and the provenance of their files."""
    training, dev, test = SPLITS[dataset]
    names = [*training, dev] + ([test] if test else [])
    if dataset == "trecqa":
        files = list(trecqa.XML_FILES.values()) + list(trecqa.TRAIN_ALL_FILES)
        return {s: trecqa.load_trecqa(s) for s in names}, provenance("trecqa", files)
    if dataset == "wikiqa":
        files = [f"WikiQA/{s}/{f}" for s in names for f in wikiqa.FILE_NAMES]
        return {s: wikiqa.load_wikiqa(s) for s in names}, provenance("wikiqa", files)
    return {s: semeval.load_semeval(s) for s in names}, provenance("semeval2016", [semeval.DEV_XML, *semeval.TRAIN_XMLS[1:]])


def _word2vec(sentences: list[tuple[str, ...]], *, dim: int, epochs: int, seed: int) -> tuple[list[str], np.ndarray, dict]:
    settings = {"dim": dim, "epochs": epochs, "seed": seed, "sg": True, "window": 5, "min_count": 1, "negative": 5}
    record = {"word2vec": settings, "trained_on": text_fingerprint(sentences)}
    key = hashlib.sha1(json.dumps(record, sort_keys=True).encode()).hexdigest()[:16]
    cache = paths.build_dir() / "word2vec" / f"{key}.npz"
    if cache.is_file():
        saved = np.load(cache, allow_pickle=False)
        return list(saved["words"]), saved["vectors"], record
    words, vectors = train_word2vec(sentences, dim=dim, seed=seed, epochs=epochs, sg=True)
    cache.parent.mkdir(parents=True, exist_ok=True)
    np.savez(cache, words=np.array(words), vectors=vectors)
    return words, vectors, record


def prepare(dataset: str, *, dim: int | None = None, w2v_epochs: int = 5, seed: int = 0,
            limit: int | None = None) -> Prepared:
    """Vocabulary, word2vec vectors (``dim``: :data:`EMBEDDING_DIM` by default), overlap features on TrecQA,
    and every split as a :class:`PairSet` (TrecQA's training splits without answers over 60 tokens; QatarLiving
    cut to 100 tokens a text). ``limit`` keeps the first questions of each split (the smoke profile)."""
    questions, files = load_splits(dataset)
    questions = {s: qs[:limit] for s, qs in questions.items()}
    texts = [lowercase(t) for t in question_texts(*questions.values())]
    vocab = Vocabulary.build(texts)
    words, vectors, record = _word2vec(texts, dim=dim or EMBEDDING_DIM[dataset], epochs=w2v_epochs, seed=seed)
    record["trained_on"]["splits"] = list(questions)
    overlap = OverlapFeatures().fit(question_texts(*questions.values())) if dataset == "trecqa" else None
    training = SPLITS[dataset][0]
    splits = {s: pair_set(qs, vocab, overlap, truncate=TRUNCATE.get(dataset),
                          max_answer_len=MAX_TRAIN_ANSWER.get(dataset) if s in training else None)
              for s, qs in questions.items()}
    return Prepared(dataset, vocab, embedding_matrix(vocab, words, vectors), record, splits, files)


def run_once(prepared: Prepared, method: str, train_split: str, seed: int, ranker: RankerConfig,
             train: TrainConfig, *, device: str = "auto", progress: bool = False, ks: Sequence[int] = (),
             checkpoint_root: Path | None = None) -> dict:
    """Train ``method`` on ``train_split`` with ``seed``; return DEV and TEST scores (TEST raw, and clean when
    the dataset has such a version), the chosen epoch and timings.

    With ``checkpoint_root`` every epoch is checkpointed in a folder named by the run and a hash of its settings
    and code version, and a run started again resumes there (a finished one only re-scores).
    """
    runtime.seed_everything(seed)
    config = replace(ranker, method=method, n_features=prepared.n_features)
    model = build_ranker(torch.from_numpy(prepared.vectors), config).to(runtime.resolve_device(device))
    fingerprint = json.dumps({"dataset": prepared.dataset, "split": train_split, "seed": seed, "ranker": asdict(config),
                              "train": asdict(train), "code": code_version()}, sort_keys=True)
    checkpoint_dir = None if checkpoint_root is None else Path(checkpoint_root) / (
        f"{prepared.dataset}-{method}-{train_split}-seed{seed}-{hashlib.sha1(fingerprint.encode()).hexdigest()[:10]}")
    started = time.perf_counter()
    state = fit_ranker(model, prepared.splits[train_split], prepared.splits["dev"], train, seed=seed,
                       pairwise=method in PAIRWISE, progress=progress, desc=f"{method} {train_split} seed {seed}",
                       checkpoint_dir=checkpoint_dir, fingerprint=fingerprint)
    out = {"best_epoch": state.best["epoch"], "epochs_run": state.epoch, "wall_s": time.perf_counter() - started,
           "history": state.history, "config": {**asdict(config), **asdict(train)}}
    for name in ("dev", "test"):
        if name in prepared.splits:
            pairs = prepared.splits[name]
            scores = score_questions(model, pairs)
            out[name] = ranking_scores(pairs.questions, scores, seed=seed, ks=ks)
            if prepared.dataset == "trecqa":  # the clean set: questions with both a positive and a negative
                kept = [(q, s) for q, s in zip(pairs.questions, scores) if q.is_clean]
                out[f"{name}_clean"] = ranking_scores([q for q, _ in kept], [s for _, s in kept], seed=seed, ks=ks)
    return out


def grid_search(prepared: Prepared, method: str, train_split: str, seed: int, ranker: RankerConfig,
                train: TrainConfig, grid: dict, *, device: str = "auto") -> tuple[RankerConfig, TrainConfig, list]:
    """Every combination of ``grid`` (fields of RankerConfig or TrainConfig), chosen by DEV MAP; TEST unused."""
    trials = []
    for values in itertools.product(*grid.values()):
        setting = dict(zip(grid, values))
        r = replace(ranker, **{k: v for k, v in setting.items() if hasattr(ranker, k)})
        t = replace(train, **{k: v for k, v in setting.items() if hasattr(train, k)})
        result = run_once(prepared, method, train_split, seed, r, t, device=device)
        trials.append({**setting, "dev_MAP": result["dev"]["MAP"]})
    best = max(trials, key=lambda trial: trial["dev_MAP"])
    chosen = {k: best[k] for k in grid}
    return (replace(ranker, **{k: v for k, v in chosen.items() if hasattr(ranker, k)}),
            replace(train, **{k: v for k, v in chosen.items() if hasattr(train, k)}), trials)


SETTING_NAMES = {"train": "TRAIN", "train-all": "TRAIN-ALL"}  # Tay et al. Table 6's column names


def result_records(result: dict, prepared: Prepared, *, table: str, method: str, setting: str, seed: int,
                   splits: dict[str, str], metrics: Sequence[str] = ("MAP", "MRR"), paper: str = "tay2018",
                   dataset: str | None = None, device: str = "cpu") -> list:
    """One :class:`~reproq.results.Record` per metric of ``result`` (from :func:`run_once`) for each of its
    ``splits``, named as ``splits`` maps them (e.g. ``{"test": "test", "test_clean": "test-clean"}``: only
    a split named as the paper's joins the paper's number); ``dataset`` overrides the dataset's name (the
    paper calls SemEval-2016 3A "qatarliving")."""
    from reproq.evaluation import metric_records

    data = {**prepared.provenance, "word_vectors": json.dumps(prepared.embeddings, sort_keys=True)}
    config = {k: v for k, v in result["config"].items() if k != "method"}
    records = []
    for key, split in splits.items():
        records += metric_records(result[key], metric_names=list(metrics), paper=paper, table=table,
                                  dataset=dataset or prepared.dataset, split=split, method=method, setting=setting,
                                  seeds=(seed,), synthetic=False, data=data, config=config, device=device,
                                  wall_time_s=result["wall_s"])
    return records
