"""The floors of answer selection: zero- or few-parameter scorers that a real-data table shows beside the networks.

Each returns one score array per question, aligned with its candidates (what
:func:`~reproq.answer_selection.evaluate.ranking_scores` takes). Counts tie a lot, so they only mean something
with ties broken at random, as ``ranking_scores`` does (DESIGN "Ties leak labels": TrecQA lists positives first,
so ties broken in file order hand the count floor the labels).

- :func:`bm25_scores`: Lucene's BM25 over the evaluated split's answers (:mod:`reproq.baselines.bm25`).
- :func:`overlap_count_scores`, :func:`idf_overlap_count_scores`: |Q ∩ A| and Σ_{w ∈ Q ∩ A} idf(w) on
  lower-cased word sets, the raw counts of :class:`~reproq.baselines.overlap.OverlapFeatures`
  (``normalize=False``; Yu et al. 2014's "word count" and "weighted word count"); :func:`feature_scores` gives
  any one column of a fitted ``OverlapFeatures``.
- :func:`fit_features_only` / :func:`features_only_scores`: a logistic regression on the four overlap features
  alone, Severyn & Moschitti 2015's "features only" idea: P(y = 1 | x) = σ(w·x + b), fitted on a training
  split's pairs, each candidate scored by w·x + b (the decision function: the same order as σ of it, no
  saturation ties). :func:`choose_c` picks the inverse regularisation C by DEV MAP.
- QatarLiving (SemEval-2016 3A): :func:`chronological_scores`, the task's baseline (comments in forum order),
  and :func:`random_scores`.

:func:`floor_scores` gives the usual set on one split; :func:`floor_records` turns floors into the records a table
shows beside the networks; :func:`beside_records` does both for one evaluation, the external anchor with them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace

import numpy as np
from sklearn.linear_model import LogisticRegression

from reproq.answer_selection.evaluate import TIE_ORDERS, expected_ranking_scores, ranking_scores
from reproq.baselines.bm25 import BM25
from reproq.baselines.lexical import lexical_answer_scores
from reproq.baselines.overlap import OverlapFeatures, question_texts
from reproq.data.qa import QAQuestion

C_GRID = (0.01, 0.1, 1.0, 10.0, 100.0)  # ours: powers of ten around scikit-learn's default C = 1
RANDOM_STATE = 0  # lbfgs is deterministic; fixed anyway, so a solver change cannot make the floor vary
# SemEval's RELC_ID numbers a thread's comments in forum order: "Q268_R16_C3" is the third comment
_COMMENT_POSITION = re.compile(r"_C(\d+)$")


def bm25_scores(questions: Sequence[QAQuestion]) -> list[np.ndarray]:
    """Lucene BM25 (k1 = 1.2, b = 0.75), its statistics from the answers of ``questions``."""
    return lexical_answer_scores(BM25(), questions)


def feature_scores(questions: Sequence[QAQuestion], features: OverlapFeatures, name: str) -> list[np.ndarray]:
    """Column ``name`` (one of ``features.feature_names``) of a fitted ``features``, per question."""
    if name not in features.feature_names:
        raise ValueError(f"name must be one of {features.feature_names}, got {name!r}")
    column = features.feature_names.index(name)
    return [x[:, column] for x in features.transform_questions(questions)]


def overlap_count_scores(questions: Sequence[QAQuestion]) -> list[np.ndarray]:
    """|Q ∩ A| on lower-cased word sets, stop words kept; no training (the count needs no IDF, so the IDF is
    fitted on ``questions`` only because ``OverlapFeatures`` asks for one)."""
    features = OverlapFeatures(normalize=False).fit(question_texts(questions))
    return feature_scores(questions, features, "overlap_count")


def idf_overlap_count_scores(questions: Sequence[QAQuestion], idf_texts: Iterable[Sequence[str]], *,
                             nostop: bool = False) -> list[np.ndarray]:
    """Σ_{w ∈ Q ∩ A} idf(w), the IDF fitted on ``idf_texts`` as :meth:`OverlapFeatures.fit` does (the distinct
    texts of every split: :func:`~reproq.baselines.overlap.question_texts`); ``nostop=True`` drops NLTK's stop
    words from Q and A first."""
    features = OverlapFeatures(normalize=False).fit(idf_texts)
    return feature_scores(questions, features, "idf_overlap_count_nostop" if nostop else "idf_overlap_count")


def _pairs(questions: Sequence[QAQuestion], features: OverlapFeatures) -> tuple[np.ndarray, np.ndarray]:
    x = np.concatenate(features.transform_questions(questions))  # (pairs, 4)
    y = np.concatenate([q.labels for q in questions])  # (pairs,)
    return x, y


def fit_features_only(train: Sequence[QAQuestion], features: OverlapFeatures, *, C: float = 1.0) -> LogisticRegression:
    """L2 logistic regression (lbfgs, scikit-learn's defaults but ``C``) on the overlap features of every
    training pair and its label. ``features``, fitted, picks the variant: ``OverlapFeatures()`` the four
    normalised features the networks get, ``OverlapFeatures(normalize=False)`` the raw counts."""
    x, y = _pairs(train, features)
    return LogisticRegression(C=C, solver="lbfgs", max_iter=1000, random_state=RANDOM_STATE).fit(x, y)


def features_only_scores(model: LogisticRegression, questions: Sequence[QAQuestion],
                         features: OverlapFeatures) -> list[np.ndarray]:
    """w·x + b of every candidate of ``questions`` (a question without candidates gets an empty array)."""
    return [model.decision_function(x) if len(x) else np.zeros(0) for x in features.transform_questions(questions)]


def choose_c(train: Sequence[QAQuestion], dev: Sequence[QAQuestion], features: OverlapFeatures, *,
             grid: Sequence[float] = C_GRID, seed: int = 0) -> float:
    """The C of ``grid`` with the best DEV MAP (random ties with ``seed``); the first on a tie."""
    maps = [ranking_scores(dev, features_only_scores(fit_features_only(train, features, C=c), dev, features),
                           seed=seed)["MAP"] for c in grid]
    return grid[int(np.argmax(maps))]


def chronological_scores(questions: Sequence[QAQuestion]) -> list[np.ndarray]:
    """SemEval-2016 3A's baseline: the comments in forum order, scored -position.

    The reader shuffles the candidates, but each keeps its official ``RELC_ID`` (``<question>_C<position>``),
    which is where the order is read from.
    """
    scores = []
    for q in questions:
        matches = [_COMMENT_POSITION.search(c.id) for c in q.candidates]
        bad = next((c.id for c, m in zip(q.candidates, matches) if m is None), None)
        if bad is not None:
            raise ValueError(f"candidate id {bad!r} of question {q.id!r} carries no comment position "
                             "(expected a SemEval RELC_ID ending in _C<n>)")
        scores.append(-np.array([int(m.group(1)) for m in matches], dtype=np.float64))
    return scores


def random_scores(questions: Sequence[QAQuestion], seed: int = 0) -> list[np.ndarray]:
    """Uniform random scores from ``numpy.random.default_rng(seed)``, question after question."""
    rng = np.random.default_rng(seed)
    return [rng.random(len(q.candidates)) for q in questions]


def floor_scores(train: Sequence[QAQuestion], questions: Sequence[QAQuestion],
                 idf_texts: Sequence[Sequence[str]]) -> dict[str, list[np.ndarray]]:
    """Every floor of ``questions`` by name: BM25, the two overlap counts, and the features-only logistic
    regression fitted on ``train`` with the four normalised features the networks get and with the raw counts
    (C = 1: scikit-learn's default; nothing is tuned, so TEST can be read at once)."""
    normalised, raw = OverlapFeatures().fit(idf_texts), OverlapFeatures(normalize=False).fit(idf_texts)
    return {"BM25": bm25_scores(questions),
            "overlap count": overlap_count_scores(questions),
            "IDF-weighted overlap count": feature_scores(questions, raw, "idf_overlap_count"),
            "LR on the 4 normalised overlap features": features_only_scores(fit_features_only(train, normalised),
                                                                              questions, normalised),
            "LR on the 4 raw overlap counts": features_only_scores(fit_features_only(train, raw), questions, raw)}


def floor_records(provenance, scores: dict[str, list[np.ndarray]], questions: Sequence[QAQuestion], *, seed: int,
                  metrics: Sequence[str], ks: Sequence[int] = (), prefix: str = "floor: ", **keys) -> list:
    """One record per floor of ``scores`` (name -> one score array per question of ``questions``, e.g.
    :func:`floor_scores`) and metric, method ``prefix + name``: its expectation over :data:`TIE_ORDERS` random orders
    of the ties (from ``seed`` on; :func:`expected_ranking_scores`), per question too, with the spread across orders
    in the config. A floor has no training seed (``seeds=()``), so a claim pairs it with every seed of a model.
    ``keys`` are the records' paper, table, dataset, split and setting (:meth:`reproq.results.Provenance.records`).
    The external anchor (:mod:`reproq.baselines.anchor`) is written the same way, without the prefix."""
    records = []
    for name, floor in scores.items():
        expected = expected_ranking_scores(questions, floor, seed=seed, ks=ks)
        config = {"tie orders": TIE_ORDERS, "first tie seed": seed,
                  "sd over tie orders": {m: expected["sd over tie orders"][m] for m in metrics}}
        records += provenance.records(expected, metrics=metrics, method=f"{prefix}{name}", config=config, **keys)
    return records


def beside_records(train: Sequence[QAQuestion], questions: Sequence[QAQuestion], idf_texts: Sequence[Sequence[str]],
                   provenance, *, seed: int, metrics: Sequence[str], ks: Sequence[int] = (),
                   extra: dict[str, list[np.ndarray]] | None = None, anchor_model=None, **keys) -> list:
    """What a real-data table shows beside the networks on ``questions``: the floors of :func:`floor_scores`
    (fitted on ``train``, IDF over ``idf_texts``) and ``extra`` (name -> scores, e.g. a task's own baselines) as
    :func:`floor_records`, and, with ``anchor_model``, the external anchor (:mod:`reproq.baselines.anchor`, zero-shot)
    without the floors' prefix, its provenance naming its package and weights instead of word vectors. ``keys`` as
    for :func:`floor_records`."""
    scores = floor_scores(train, questions, idf_texts) | (extra or {})
    records = floor_records(provenance, scores, questions, seed=seed, metrics=metrics, ks=ks, **keys)
    if anchor_model is not None:
        from reproq.baselines import anchor

        anchored = replace(provenance, data={**provenance.data, **anchor.provenance()}, word_vectors=None)
        records += floor_records(anchored, {anchor.METHOD: anchor.answer_scores(anchor_model, questions)}, questions,
                                 seed=seed, metrics=metrics, ks=ks, prefix="", **keys)
    return records
