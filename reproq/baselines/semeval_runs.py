"""The SemEval-2016 Task 3 teams' primary test runs, re-scored by the study's own metric code.

The organisers' distribution of submissions and scores (mirrored from bnsriram/NLPCommunityQuestionAnswering) holds
every team's primary run of subtask A (answer ranking on the QatarLiving test threads; Tay et al.'s Table 5 quotes
KeLP's and ConvKN's) and of subtask B (question retrieval), each with the official scorer's printout of it.
:func:`rescore` ranks every question's candidates by the run's scores as the scorer does (a stable sort, ties in the
gold file's order: the search engine's in B, the thread's in A) and scores them with
:func:`reproq.metrics.question_retrieval_scores` (a question without a positive counts 0); :func:`official` reads
the printout. That the two agree for every team to the 4 decimals printed is the check that the study's metrics and
its join of runs to gold labels are the scorer's (``tests/baselines/test_semeval_runs.py``). The leaderboards also
name ITNLP-AiKF (A and B) and ICRC-HIT (A), whose runs are not in the distribution.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from reproq import metrics
from reproq.data import semeval, semeval_b
from reproq.data.errors import FormatError
from reproq.data.registry import files_of
from reproq.data.sources import provenance, require

SUBTASKS = ("A", "B")
GOLD = {"A": semeval.TEST_RELEVANCY, "B": semeval_b.TEST_GOLD}  # the official test labels, in the scorer's order
KS = (1, 5)


def run_file(subtask: str, team: str) -> str:
    return f"{semeval.SUBMISSIONS}/{team}/subtask_{subtask}_primary.txt"


def teams(subtask: str) -> list[str]:
    """The teams whose primary run of ``subtask`` is registered (and so fetched and verified), by name."""
    if subtask not in SUBTASKS:
        raise ValueError(f"subtask must be one of {', '.join(SUBTASKS)}, got {subtask!r}")
    suffix = f"/subtask_{subtask}_primary.txt"
    return sorted(f.path.split("/")[1] for f in files_of(semeval.DATASET) if f.path.endswith(suffix))


def gold_order(subtask: str, *, root: Path | None = None) -> tuple[Path, dict[str, list[tuple[str, int]]]]:
    """The gold file and, per question in its order, ``(candidate id, label)`` in its order."""
    path = require(semeval.DATASET, GOLD[subtask], root=root)
    questions: dict[str, list[tuple[str, int]]] = {}
    for (qid, cid), label in semeval.read_relevancy(path).items():
        questions.setdefault(qid, []).append((cid, label))
    return path, questions


def ordered_scores(subtask: str, run: dict[tuple[str, str], float], run_path: Path, *, root: Path | None = None
                   ) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """``(labels, scores)`` per question of the gold file, candidates in its order, scores from ``run``; FormatError
    naming the run file where it scores a pair the gold file does not have, or leaves one of its pairs unscored."""
    gold_path, questions = gold_order(subtask, root=root)
    pairs = {(qid, cid) for qid, candidates in questions.items() for cid, _ in candidates}
    if extra := sorted(set(run) - pairs):
        raise FormatError(run_path, semeval.line_of(run_path, extra[0][1]), f"only pairs of {gold_path.name}",
                          f"{extra[0][0]} {extra[0][1]}")
    if missing := sorted(pairs - set(run)):
        raise FormatError(run_path, 1, f"a score for every pair of {gold_path.name}",
                          f"none for {missing[0][0]} {missing[0][1]} ({len(missing)} pairs unscored)")
    labels = [np.array([label for _, label in c]) for c in questions.values()]
    scores = [np.array([run[qid, cid] for cid, _ in c]) for qid, c in questions.items()]
    return labels, scores


def scored(labels, scores) -> dict:
    """MAP, MRR, P@1, P@5 as the official scorer counts them (every question; one without a positive counts 0),
    with each question's values."""
    return metrics.question_retrieval_scores(labels, scores, ks=KS, no_positive="zero", per_query=True)


def run_scores(subtask: str, team: str, *, root: Path | None = None) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """``team``'s primary run of ``subtask`` on the test set as :func:`ordered_scores` gives it."""
    path = require(semeval.DATASET, run_file(subtask, team), root=root)
    return ordered_scores(subtask, semeval.read_run(path), path, root=root)


def rescore(subtask: str, team: str, *, root: Path | None = None) -> dict:
    """``team``'s primary run of ``subtask`` on the test set, scored by :func:`scored`."""
    return scored(*run_scores(subtask, team, root=root))


def engine_order(subtask: str, *, root: Path | None = None) -> dict:
    """The gold file's own order scored the same way: the search engine's ranking of the related questions (B), the
    comments in thread order (A); the scorer's "IR" column."""
    _, questions = gold_order(subtask, root=root)
    labels = [np.array([label for _, label in c]) for c in questions.values()]
    return scored(labels, [np.zeros(len(y)) for y in labels])


def official(subtask: str, team: str, *, root: Path | None = None) -> dict[str, float]:
    """What the official scorer printed for ``team``'s run (:func:`reproq.data.semeval.read_official_score`)."""
    return semeval.read_official_score(require(semeval.DATASET, run_file(subtask, team) + ".score", root=root))


def files(subtask: str) -> dict[str, str]:
    """The provenance of a table of re-scored runs: the gold file, every team's run and printout."""
    paths = [GOLD[subtask], *(p for team in teams(subtask) for p in (run_file(subtask, team), run_file(subtask, team)
                                                                     + ".score"))]
    return provenance(semeval.DATASET, paths)
