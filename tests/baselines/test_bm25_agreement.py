"""reproq.baselines.bm25 against an independent implementation, the ``bm25s`` library (``method="lucene"``).

Which side has the (k1 + 1) factor (read in bm25s 0.3.16's source, ``bm25s/scoring.py``, not assumed):

- bm25s's ``method="lucene"`` scores a term as ``idf · tfc`` with ``_score_idf_lucene`` =
  ``log(1 + (N − df + 0.5) / (df + 0.5))`` and ``_score_tfc_lucene``, which returns
  ``_score_tfc_robertson`` = ``tf / (k1 · ((1 − b) + b · dl / avgdl) + tf)``: **no (k1 + 1)** in the
  numerator. That is Lucene ≥ 8's BM25Similarity (LUCENE-8563 dropped the factor). Only bm25s's
  ``atire``, ``bm25l`` and ``bm25+`` variants multiply by (k1 + 1).
- ours keeps the factor, as Lucene 4.x-7.x (the Lucene of Lei et al. 2016) had it.

So for every document d and query q, with the same k1 and b::

    ours.scores(q)[d] == (k1 + 1) · bm25s.get_scores(q)[d]

Everything else agrees by construction in both: dl is the exact token count (neither copies Lucene's
lossy one-byte norm), avgdl is the mean over all documents (empty ones included), a term repeated in the
query is added once per occurrence (bm25s's ``get_tokens_ids`` keeps duplicates and
``_compute_relevance_from_scores`` adds each id's postings), and a term no document has adds nothing.
bm25s computes in its ``dtype`` (float32 by default); we ask it for float64, so the two agree to rounding
and RTOL can be far tighter than float32's ~1e-6. bm25s's own defaults are k1 = 1.5, b = 0.75 (ours:
k1 = 1.2, b = 0.75), so k1 and b are always passed explicitly.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from reproq.baselines.bm25 import BM25, BM25Config

bm25s = pytest.importorskip("bm25s")

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
RTOL = 1e-9  # both sides in float64; observed disagreement is ~1e-15
PARAMS = [(1.2, 0.75), (1.5, 0.75), (0.9, 0.4), (2.0, 1.0), (1.2, 0.0)]


def lucene_factor(k1: float) -> float:
    """ours / bm25s: Lucene 4.x-7.x's numerator factor that Lucene 8 (and bm25s's "lucene") dropped."""
    return k1 + 1


def bm25s_scores(docs, queries, k1: float, b: float) -> list[np.ndarray]:
    """bm25s's score of every document for each query (float64, "lucene" tf and idf)."""
    retriever = bm25s.BM25(k1=k1, b=b, method="lucene", idf_method="lucene", dtype="float64")
    retriever.index([list(d) for d in docs], create_empty_token=False, show_progress=False)
    return [retriever.get_scores(list(q)) for q in queries]


def assert_agree(docs, queries, k1: float, b: float) -> None:
    ours = BM25(BM25Config(k1=k1, b=b)).fit(docs)
    theirs = bm25s_scores(docs, queries, k1, b)
    for query, expected in zip(queries, theirs):
        np.testing.assert_allclose(ours.scores(query), lucene_factor(k1) * expected, rtol=RTOL, atol=0,
                                   err_msg=f"query {query!r}, k1={k1}, b={b}")


# ----------------------------------------------------------------------------- a hand-made corpus

_WORDS = ("install update ubuntu flash player driver wifi sound boot grub kernel error package apt "
          "desktop screen battery network").split()


def hand_corpus() -> list[tuple[str, ...]]:
    """36 deterministic documents: lengths 0 to 31, terms repeated inside a document (tf up to 5), some
    terms in most documents and some in one, one empty document, one very long one."""
    docs = []
    for i in range(35):
        length = (i * 7) % 19 + 1
        docs.append(tuple(_WORDS[(i * j + j * j) % (3 + i % (len(_WORDS) - 2))] for j in range(length)))
    docs[4] = ()  # an empty document: dl = 0, still counted in N and avgdl
    docs[9] = ("grub",) * 5 + ("boot", "network")  # tf 5 in a short document
    docs.append(("zebra",) + ("apt", "install") * 15)  # 31 tokens; "zebra" only here (df = 1)
    return docs


HAND_QUERIES = [
    ("install",),  # in many documents
    ("zebra",),  # in one document
    ("grub", "boot"),
    ("install", "install", "update"),  # a repeated query term counts twice
    ("wifi", "missingterm"),  # a term no document has adds nothing
    ("missingterm",),  # nothing matches: all zeros on both sides
    tuple(_WORDS),  # every term at once
]


def test_hand_corpus_covers_the_cases():
    docs = hand_corpus()
    assert len(docs) == 36 and () in docs
    assert len({len(d) for d in docs}) > 10
    assert max(max((d.count(t) for t in set(d)), default=0) for d in docs) >= 5
    vocabulary = {t for d in docs for t in d}
    assert "missingterm" not in vocabulary and set(_WORDS) <= vocabulary


@pytest.mark.parametrize("k1, b", PARAMS)
def test_every_document_score_is_bm25s_times_k1_plus_1(k1, b):
    assert_agree(hand_corpus(), HAND_QUERIES, k1, b)


def test_repeated_query_term_counts_twice_on_both_sides():
    docs = hand_corpus()
    ours = BM25().fit(docs)
    once, twice = ours.scores(("install", "update")), ours.scores(("install", "install", "update"))
    assert np.any(twice > once)
    theirs_once, theirs_twice = bm25s_scores(docs, [("install", "update"), ("install", "install", "update")],
                                             1.2, 0.75)
    np.testing.assert_allclose(twice - once, lucene_factor(1.2) * (theirs_twice - theirs_once), rtol=RTOL)


# ----------------------------------------------------------------------------- the tiny fixtures


def _tsv_questions(path: Path) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """(title, body) token tuples of every line of an AskUbuntu/Android ``id \\t title \\t body`` file
    (read here with str.split, not with reproq's reader, so only BM25 is under test)."""
    questions = []
    for line in path.read_text(encoding="utf-8").splitlines():
        fields = line.split("\t") + [""]
        questions.append((tuple(fields[1].split()), tuple(fields[2].split())))
    return questions


@pytest.mark.parametrize("path", ["askubuntu/text_tokenized.txt", "android/corpus.tsv"])
@pytest.mark.parametrize("k1, b", [(1.2, 0.75), (0.9, 0.4)])
def test_question_fixture_every_title_against_every_question(path, k1, b):
    questions = _tsv_questions(FIXTURES / path)
    docs = [title + body for title, body in questions]  # as reproq.synthetic builds its BM25 documents
    queries = [title for title, _ in questions if title] + [title + body for title, body in questions]
    assert_agree(docs, queries, k1, b)


@pytest.mark.parametrize("k1, b", [(1.2, 0.75), (0.9, 0.4)])
def test_wikiqa_fixture_every_question_against_every_answer(k1, b):
    questions = [tuple(line.split()) for line in (FIXTURES / "wikiqa/a.toks").read_text().splitlines()]
    answers = [tuple(line.split()) for line in (FIXTURES / "wikiqa/b.toks").read_text().splitlines()]
    assert_agree(answers, list(dict.fromkeys(questions)), k1, b)
