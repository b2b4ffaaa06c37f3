"""Readers of the AskUbuntu files (Lei et al. 2016) and the Android files (Smolyakov & Srikant 2017's
target domain), and the bundle one dataset is read into (:class:`QuestionRetrievalData`; :mod:`reproq.corpora` loads
it, real or synthetic).

The two datasets are one family: a corpus of tokenized questions (id, title, body) and query lines
that name similar and non-similar questions by id. Formats (taolei87/askubuntu README,
jiangfeng1124/Android README):

- ``text_tokenized.txt.gz`` / ``corpus.tsv.gz``: ``id \\t title tokens \\t body tokens``;
- ``train_random.txt``: ``query id \\t similar ids \\t 100 random ids``;
- ``dev.txt`` / ``test.txt``: ``query id \\t similar ids \\t 20 candidate ids \\t their 20 BM25 scores``,
  candidates in descending score; the similar ids are a subset of the candidates and can be empty
  (11 dev and 14 test queries; the metrics leave those out);
- ``heldout.txt``: one question id a line;
- ``vector/vectors_pruned.200.txt.gz``: ``word v_1 ... v_200``, space-separated;
- Android ``{dev,test}.{pos,neg}.txt``: ``query id candidate id`` a line.

Every reader accepts gzip (``.gz`` suffix) or plain text (through :func:`reproq.data.text.numbered_lines`)
and raises :class:`FormatError` naming the file and line of the first malformed line; a file with no
record at all is a FormatError too.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from reproq.data.errors import FormatError
from reproq.data.qa import SHUFFLE_SEED
from reproq.data.text import at_least_one, numbered_lines

# Lei et al. 2016, footnote 5: "We truncate the body section at a maximum of 100 words."
MAX_BODY_LEN = 100

ASKUBUNTU_FILES = {  # bundle field -> path in taolei87/askubuntu
    "corpus": "text_tokenized.txt.gz", "train": "train_random.txt", "dev": "dev.txt",
    "test": "test.txt", "heldout": "heldout.txt", "vectors": "vector/vectors_pruned.200.txt.gz",
}
ANDROID_FILES = {  # bundle field -> path in jiangfeng1124/Android
    "corpus": "corpus.tsv.gz", "dev.pos": "dev.pos.txt", "dev.neg": "dev.neg.txt",
    "test.pos": "test.pos.txt", "test.neg": "test.neg.txt",
}


@dataclass(frozen=True)
class Question:
    id: str
    title: tuple[str, ...]
    body: tuple[str, ...]


@dataclass(frozen=True)
class TrainQuery:
    id: str
    similar_ids: tuple[str, ...]  # user-marked duplicates
    random_ids: tuple[str, ...]  # drawn at random from the corpus: negatives (a few may be unmarked duplicates)


@dataclass(frozen=True)
class EvalQuery:
    id: str
    similar_ids: tuple[str, ...]
    candidate_ids: tuple[str, ...]
    bm25_scores: tuple[float, ...] | None  # one per candidate (AskUbuntu's Lucene scores); None for Android

    @property
    def labels(self) -> np.ndarray:
        """1 where the candidate is among the similar ids, else 0 (int64, one per candidate).

        >>> EvalQuery("7", similar_ids=("3",), candidate_ids=("2", "3"), bm25_scores=(2.5, 1.0)).labels
        array([0, 1])
        """
        similar = set(self.similar_ids)
        return np.array([c in similar for c in self.candidate_ids], dtype=np.int64)


def _lines(path: str | Path) -> Iterator[tuple[int, str]]:
    """``(line number, text)`` for every non-blank line (these files have no meaningful blank lines)."""
    return ((number, text) for number, text in numbered_lines(path) if text.strip())


def _check(path, number: int, fields: list[str], n: int, what: str) -> list[str]:
    """``fields`` if there are ``n`` of them and the first is one id; FormatError otherwise."""
    if len(fields) != n:
        raise FormatError(path, number, f"{n} fields ({what})", f"{len(fields)} field{'s' * (len(fields) != 1)}")
    if len(fields[0].split()) != 1:
        raise FormatError(path, number, "one question id in the first field", repr(fields[0]))
    return [fields[0].strip(), *fields[1:]]


def read_corpus(path: str | Path, *, max_body_len: int | None = MAX_BODY_LEN) -> dict[str, Question]:
    """Questions by id from ``text_tokenized.txt.gz`` (AskUbuntu) or ``corpus.tsv.gz`` (Android).

    The body keeps its first ``max_body_len`` tokens (None keeps all; the default is Lei et al.'s, see
    :data:`MAX_BODY_LEN`). Their ``myio.map_corpus`` cuts after dropping the words that have no vector,
    so their 100 tokens can reach a little further into a body; we cut the tokens, which keeps the
    reader independent of any vector file. As in their ``read_corpus``, a line with an empty title is
    left out and a repeated id keeps its last line; a line with no body field reads as an empty body.
    """
    if max_body_len is not None and max_body_len < 1:
        raise ValueError(f"max_body_len must be positive or None, got {max_body_len}")
    corpus = {}
    for number, text in _lines(path):
        fields = text.split("\t")
        if len(fields) == 2:  # a question without a body field
            fields.append("")
        qid, title, body = _check(path, number, fields, 3, "id, title, body separated by tabs")
        if title.split():
            corpus[qid] = Question(qid, tuple(title.split()), tuple(body.split()[:max_body_len]))
    return at_least_one(corpus, path, "question")


def read_train(path: str | Path) -> list[TrainQuery]:
    """Training queries from ``train_random.txt``."""
    queries = []
    for number, text in _lines(path):
        qid, similar, randoms = _check(
            path, number, text.split("\t"), 3, "query id, similar ids, random ids separated by tabs")
        queries.append(TrainQuery(qid, tuple(similar.split()), tuple(randoms.split())))
    return at_least_one(queries, path, "training query")


def read_eval(path: str | Path) -> list[EvalQuery]:
    """Annotated queries from AskUbuntu's ``dev.txt`` / ``test.txt``, candidates in file order."""
    queries = []
    for number, text in _lines(path):
        qid, similar, candidates, scores = _check(path, number, text.split("\t"), 4,
            "query id, similar ids, candidate ids, BM25 scores separated by tabs")
        candidates, similar = tuple(candidates.split()), tuple(similar.split())
        try:
            bm25 = tuple(float(s) for s in scores.split())
        except ValueError:
            raise FormatError(path, number, "BM25 scores as numbers", repr(scores[:60])) from None
        if not_finite := [s for s, value in zip(scores.split(), bm25) if not math.isfinite(value)]:
            raise FormatError(path, number, "finite BM25 scores", repr(not_finite[0]))  # "nan", "inf"
        if len(bm25) != len(candidates):
            raise FormatError(path, number, f"one BM25 score per candidate ({len(candidates)} candidates)",
                              f"{len(bm25)} scores")
        if missing := set(similar) - set(candidates):
            raise FormatError(path, number, "similar ids among the candidates",
                              f"similar id {min(missing)} not among them")
        queries.append(EvalQuery(qid, similar, candidates, bm25))
    return at_least_one(queries, path, "query")


def read_heldout(path: str | Path) -> list[str]:
    """Question ids held out from training (for the language model's perplexity), one a line."""
    ids = []
    for number, text in _lines(path):
        if len(text.split()) != 1:
            raise FormatError(path, number, "one question id", f"{len(text.split())} fields")
        ids.append(text.strip())
    return at_least_one(ids, path, "question id")


def read_vectors(path: str | Path) -> tuple[list[str], np.ndarray]:
    """``(words, vectors)`` from a ``word v_1 ... v_d`` text file; vectors float32 ``[V, d]``.

    The dimension is the first line's; every line must have the same, and every value must be finite.
    """
    words, rows, dim = [], [], None
    for number, text in _lines(path):
        word, *values = text.split()
        dim = dim or len(values)
        if len(values) != dim or not values:
            raise FormatError(path, number, f"a word and {dim or 'some'} numbers", f"{len(values)} numbers")
        try:
            row = np.array(values, dtype=np.float32)
        except ValueError:
            raise FormatError(path, number, "numbers after the word", repr(" ".join(values)[:60])) from None
        if not np.isfinite(row).all():  # "nan", "inf", or a number beyond float32's range (1e39)
            raise FormatError(path, number, "finite numbers after the word", repr(" ".join(values)[:60]))
        words.append(word)
        rows.append(row)
    at_least_one(words, path, "word vector")
    return words, np.stack(rows)


def read_android_eval(pos_path: str | Path, neg_path: str | Path, *, seed: int = SHUFFLE_SEED) -> list[EvalQuery]:
    """Android queries from ``{dev,test}.pos.txt`` and ``.neg.txt``, one per query id.

    The files list 100 negatives per positive pair, so a query with two positives lists 200, a few
    repeated (dev: 6 pairs, test: 5); a candidate is kept once, and a pair found in both files
    (dev: 3, test: 4) counts as positive. The pos file lists positives apart from negatives, so the
    candidates are shuffled with ``random.Random(f"{seed}:{query_id}")``: their order carries no label.
    """
    similar: dict[str, list[str]] = {}
    candidates: dict[str, dict[str, None]] = {}  # an ordered set per query
    for path, is_positive in ((pos_path, True), (neg_path, False)):
        pairs = [_check(path, number, text.split(), 2, "query id and candidate id") for number, text in _lines(path)]
        for query, candidate in at_least_one(pairs, path, "query-candidate pair"):
            if is_positive:
                similar.setdefault(query, []).append(candidate)
            candidates.setdefault(query, {})[candidate] = None
    queries = []
    for query, ids in candidates.items():
        order = list(ids)
        random.Random(f"{seed}:{query}").shuffle(order)
        queries.append(EvalQuery(query, tuple(dict.fromkeys(similar.get(query, ()))), tuple(order), None))
    return queries


@dataclass(frozen=True)
class PretrainingCorpus:
    """Texts to pre-train an encoder on where they are not the retrieval corpus (SemEval-2016 3B: the training
    threads' questions and comments, never a dev or test text): questions by id (a comment is a question with an
    empty title and the comment as its body), and (context, title) pairs beyond each question with itself (a comment
    and its thread's question)."""

    questions: dict[str, Question]
    pairs: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class QuestionRetrievalData:
    """One dataset of the family, real or synthetic, as the notebooks use it.

    Android has no training queries (it is the unlabelled target domain; its corpus serves adversarial
    adaptation), no held-out list and no vectors of its own: ``train`` is None, ``heldout`` empty and
    ``vectors`` None (use AskUbuntu's, which the synthetic stand-in writes for both domains' words). SemEval-2016
    3B (:mod:`reproq.data.semeval_b`) is read into the same bundle; its scorer counts a query without a positive as 0
    (``no_positive="zero"``), where Lei et al.'s evaluation leaves it out (``"skip"``).
    """

    domain: str  # "askubuntu" | "android" | "semeval2016b"
    corpus: dict[str, Question]
    train: list[TrainQuery] | None
    dev: list[EvalQuery]
    test: list[EvalQuery]
    heldout: list[str]
    vectors: tuple[list[str], np.ndarray] | None  # (words, float32 [V, d])
    synthetic: bool
    source_dir: Path  # the folder holding the dataset's files
    provenance: dict[str, str]  # "<dataset>/<path>" -> git blob SHA-1, or "synthetic seed=… config=…"
    no_positive: str = "skip"  # the official metrics' convention (reproq.metrics.question_retrieval_scores)
    pretraining: PretrainingCorpus | None = None  # None: pre-training reads the corpus (Lei et al. §4.2)
