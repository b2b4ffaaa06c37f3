"""The question-retrieval datasets as the notebooks use them, one bundle each
(:class:`~reproq.data.askubuntu.QuestionRetrievalData`): AskUbuntu and Android from the real files when they are here,
else the deterministic synthetic stand-in (:mod:`reproq.synthetic`) in the same formats, read by the same readers
(:mod:`reproq.data.askubuntu`), with a :class:`SyntheticDataWarning` and ``synthetic`` set in the bundle, so that no
number of the stand-in passes for a reproduction; and SemEval-2016 3B (:func:`load_semeval_b`), always real.
"""

from __future__ import annotations

import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np

from reproq import synthetic
from reproq.data import semeval_b, sources, word_vectors
from reproq.data.askubuntu import (ANDROID_FILES, ASKUBUNTU_FILES, QuestionRetrievalData, read_android_eval,
                                   read_corpus, read_eval, read_heldout, read_train, read_vectors)


class SyntheticDataWarning(UserWarning):
    """A loader fell back to the synthetic stand-in: its numbers reproduce no paper."""


def _locate(dataset: str, files: dict[str, str], source: str, config: synthetic.SyntheticConfig,
            root: Path | None) -> tuple[dict[str, Path], bool, dict[str, str]]:
    """Paths of the dataset's files, whether they are synthetic, and their provenance."""
    if source not in ("auto", "real", "synthetic"):
        raise ValueError(f"source must be 'auto', 'real' or 'synthetic', got {source!r}")
    if source == "auto":
        missing = [p for p in files.values() if not sources.available(dataset, p, root=root)]
        source = "synthetic" if missing else "real"
        if missing:
            warnings.warn(
                f"{dataset}: {', '.join(missing)} not available (get them with "
                f"`{sources.fetch_command(dataset)}`); using the SYNTHETIC stand-in instead. "
                "Numbers on it are NOT a reproduction of any paper.", SyntheticDataWarning, stacklevel=3)
    if source == "real":
        found = {field: sources.require(dataset, p, root=root) for field, p in files.items()}
        return found, False, sources.provenance(dataset, list(files.values()))
    if config.domain != dataset:
        raise ValueError(f"synthetic_config.domain is {config.domain!r}; {dataset!r} needs {dataset!r}")
    folder = synthetic.materialize(config)
    tag = f"synthetic seed={config.seed} config={synthetic.config_id(config)}"
    return ({field: folder / dataset / p for field, p in files.items()}, True,
            {f"{dataset}/{p}": tag for p in files.values()})


def load_askubuntu(source: str = "auto", *, synthetic_config: synthetic.SyntheticConfig | None = None,
                   root: Path | None = None) -> QuestionRetrievalData:
    """The AskUbuntu bundle: ``source`` is "real" (every file, else MissingDataError), "synthetic",
    or "auto" (real when every file is available, else synthetic with a :class:`SyntheticDataWarning`)."""
    config = synthetic_config or synthetic.SyntheticConfig(domain="askubuntu")
    found, is_synthetic, provenance = _locate("askubuntu", ASKUBUNTU_FILES, source, config, root)
    return QuestionRetrievalData(
        domain="askubuntu", corpus=read_corpus(found["corpus"]), train=read_train(found["train"]),
        dev=read_eval(found["dev"]), test=read_eval(found["test"]), heldout=read_heldout(found["heldout"]),
        vectors=read_vectors(found["vectors"]), synthetic=is_synthetic,
        source_dir=found["dev"].parent, provenance=provenance)


def load_android(source: str = "auto", *, synthetic_config: synthetic.SyntheticConfig | None = None,
                 root: Path | None = None, real_pairs: bool | None = None) -> QuestionRetrievalData:
    """The Android bundle (no train, heldout or vectors; see :class:`QuestionRetrievalData`);
    ``source`` as in :func:`load_askubuntu`.

    When the corpus is synthetic and the real pair files are at hand (``real_pairs``: None uses them when present,
    True requires them, False never does), the stand-in's corpus copies their structure — the real query and
    candidate ids and positives, synthetic text — and the real pair files are the evaluation sets
    (:class:`reproq.synthetic.PairStructure`): the protocol is the real one, only the text is not.
    """
    config = synthetic_config or synthetic.SyntheticConfig(domain="android")
    pair_files = {field: path for field, path in ANDROID_FILES.items() if field != "corpus"}
    if real_pairs is None:
        real_pairs = all(sources.available("android", p, root=root) for p in pair_files.values())
    if not real_pairs or source == "real" or (source == "auto" and sources.available(
            "android", ANDROID_FILES["corpus"], root=root)):
        found, is_synthetic, provenance = _locate("android", ANDROID_FILES, source, config, root)
        return QuestionRetrievalData(
            domain="android", corpus=read_corpus(found["corpus"]), train=None,
            dev=read_android_eval(found["dev.pos"], found["dev.neg"]),
            test=read_android_eval(found["test.pos"], found["test.neg"]),
            heldout=[], vectors=None, synthetic=is_synthetic, source_dir=found["dev.pos"].parent,
            provenance=provenance)
    if source == "auto":
        warnings.warn(f"android: {ANDROID_FILES['corpus']} not available (get it with "
                      f"`{sources.fetch_command('android')}`); using a SYNTHETIC corpus on the real pair files instead. "
                      "Numbers on it are NOT a reproduction of any paper.", SyntheticDataWarning, stacklevel=2)
    found = {field: sources.require("android", path, root=root) for field, path in pair_files.items()}
    dev = read_android_eval(found["dev.pos"], found["dev.neg"])
    test = read_android_eval(found["test.pos"], found["test.neg"])
    structure = synthetic.PairStructure.of(dev + test)
    config = replace(config, pairs_sha1=structure.sha1)
    folder = synthetic.materialize(config, structure)
    tag = f"synthetic seed={config.seed} config={synthetic.config_id(config)}, on the real pair files"
    return QuestionRetrievalData(
        domain="android", corpus=read_corpus(folder / "android" / ANDROID_FILES["corpus"]), train=None, dev=dev,
        test=test, heldout=[], vectors=None, synthetic=True, source_dir=found["dev.pos"].parent,
        provenance={**sources.provenance("android", list(pair_files.values())),
                    f"android/{ANDROID_FILES['corpus']}": tag})


def load_semeval_b(vectors: str = "glove.6B.50d", *, root: Path | None = None, n_random: int = 20
                   ) -> QuestionRetrievalData:
    """SemEval-2016 3B as the AskUbuntu family's bundle (:mod:`reproq.data.semeval_b`): the corpus of every split's
    queries and related questions (bodies cut at 100 words), the training queries with ``n_random`` random negatives
    each beside their labelled ones (:func:`~reproq.data.semeval_b.training_queries`), dev and test with the related
    questions in the search engine's order, the ``vectors`` source (:func:`reproq.data.word_vectors.load`) cut to the
    corpus's words, and the scorer's convention (a query without a positive counts 0); the training threads'
    questions and comments as the pre-training texts, 5 % of their questions held out
    (:func:`~reproq.data.semeval_b.pretraining_corpus`)."""
    b = semeval_b.load_subtask_b(root=root)
    pretraining = semeval_b.pretraining_corpus(b, root=root)
    corpus = semeval_b.corpus_of(b)
    source = word_vectors.load(vectors)
    words = sorted({w for q in corpus.values() for w in (*q.title, *q.body) if source.row(w) is not None})
    matrix = np.asarray(source.vectors[[source.row(w) for w in words]], dtype=np.float32)
    return QuestionRetrievalData(
        domain="semeval2016b", corpus=corpus, train=semeval_b.training_queries(b.train, n_random=n_random),
        dev=[q.as_eval_query() for q in b.dev], test=[q.as_eval_query() for q in b.test],
        heldout=list(pretraining.heldout),
        vectors=(words, matrix), synthetic=False, source_dir=sources.local_path(
            sources.lookup(semeval_b.DATASET, semeval_b.FILES["dev"][0]), root).parent,
        provenance={**b.provenance, **sources.provenance(semeval_b.DATASET, list(semeval_b.PRETRAINING_FILES)),
                    "word_vectors": f"{source.name} sha1={source.provenance['sha1']}"},
        no_positive="zero", pretraining=pretraining.corpus)
