"""SemEval-2016 Task 3, subtask A (QatarLiving): rank a forum thread's comments for its question.

The threads come as xml (Nakov et al. 2016; copies in whiskeyromeo/CommunityQuestionAnswering),
``<Thread>`` > ``<RelQuestion RELQ_ID>`` (``<RelQSubject>``, ``<RelQBody>``) and ten ``<RelComment>``::

    <RelQuestion RELQ_ID="Q268_R16" ...><RelQSubject>Best Bank.</RelQSubject><RelQBody>Hi ti all ...
    <RelComment RELC_ID="Q268_R16_C1" ... RELC_RELEVANCE2RELQ="Bad"><RelCText>banks are using us ...

Following Zhang et al. 2017, as Tay et al. 2018 do, ``Good`` is the positive label and ``PotentiallyUseful``
and ``Bad`` are negative. A question's text is its subject followed by its body, both through
:func:`tokenize`. Candidate ids are the official ``RELC_ID`` (the scorer and the gold files use them);
they number the comments in thread order, so break score ties at random, never by id.

Here: dev (244 questions, 2,440 comments) and train part 2 (379 / 3,790). Train part 1 and the test
threads cannot be had here; the test gold labels can (see :func:`read_relevancy`). Tay et al.'s Table 3
gives 224 dev and 327 test questions: the test gold file has 327, the dev file here 244.
"""

from __future__ import annotations

import re
import warnings
import xml.etree.ElementTree as ET
from pathlib import Path

from reproq.data.errors import FormatError, MissingDataError
from reproq.data.qa import Candidate, QAQuestion, shuffle_candidates
from reproq.data.sources import fetch_command, require
from reproq.data.text import at_least_one, numbered_lines

SPLITS = ("train", "dev", "test")
DEV_XML = "Data/dev/SemEval2016-Task3-CQA-QL-dev-subtaskA.xml"
TRAIN_XMLS = (  # part 1 first, as released; part 1 is optional (see load_semeval)
    "Data/train/SemEval2016-Task3-CQA-QL-train-part1-subtaskA.xml",
    "Data/train/SemEval2016-Task3-CQA-QL-train-part2-subtaskA.xml",
)
DEV_RELEVANCY = ("Data/english_scorer_and_random_baselines_v2.2/"
                 "SemEval2016-Task3-CQA-QL-dev-subtaskA.xml.subtaskA.relevancy")
TEST_RELEVANCY = "files/SemEval2016-Task3-CQA-QL-test-subtaskA.xml.subtaskA.relevancy"
LABELS = {"Good": 1, "PotentiallyUseful": 0, "Bad": 0}
ROOT = "xml"  # the root element of every thread file: <xml> > <Thread> ...

# A word (letters, digits, underscore), with one inner apostrophe kept ("ql's", "don't"), or one
# symbol. The forum text is noisy (urls, smileys, ";" for ","); this keeps every character visible.
TOKEN = re.compile(r"\w+(?:'\w+)?|[^\w\s]")


def tokenize(text: str) -> tuple[str, ...]:
    """Lowercase, then split into words and single symbols.

    >>> tokenize("Hi ti all QL's; What bank?")
    ('hi', 'ti', 'all', "ql's", ';', 'what', 'bank', '?')
    """
    return tuple(TOKEN.findall(text.lower()))


def _line_of(path: Path, needle: str) -> int:
    """The first line of ``path`` containing ``needle`` (ElementTree keeps no line numbers), else 1."""
    # errors="replace": the parser has read the file, which may declare an encoding other than UTF-8
    with open(path, encoding="utf-8", errors="replace") as fh:
        return next((n for n, line in enumerate(fh, 1) if needle in line), 1)


def _text(parent: ET.Element, tag: str) -> str:
    child = parent.find(tag)
    return "" if child is None or child.text is None else child.text


def _required(path: Path, element: ET.Element, attribute: str, where: str) -> str:
    value = element.get(attribute)
    if not value:
        raise FormatError(path, _line_of(path, where), f"a {attribute} attribute on <{element.tag}>", "none")
    return value


def read_semeval(path: str | Path) -> list[QAQuestion]:
    """The threads of a subtask A xml file as questions, in file order, candidates shuffled."""
    path = Path(path)
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as exc:
        raise FormatError(path, exc.position[0], "well-formed xml", str(exc)) from None
    if root.tag != ROOT:  # well-formed, but another document: an XHTML error page, say
        raise FormatError(path, _line_of(path, f"<{root.tag}"),
                          f"<{ROOT}> as the root element (a SemEval thread file)", f"<{root.tag}>")
    questions = []
    for thread in root.iter("Thread"):
        where = f'THREAD_SEQUENCE="{thread.get("THREAD_SEQUENCE")}"'
        relq = thread.find("RelQuestion")
        if relq is None:
            raise FormatError(path, _line_of(path, where), "a <RelQuestion> in <Thread>", "none")
        qid = _required(path, relq, "RELQ_ID", where)
        candidates = []
        for comment in thread.iter("RelComment"):
            cid = _required(path, comment, "RELC_ID", f'RELQ_ID="{qid}"')
            relevance = comment.get("RELC_RELEVANCE2RELQ")
            if relevance not in LABELS:
                raise FormatError(path, _line_of(path, f'RELC_ID="{cid}"'),
                                  f"RELC_RELEVANCE2RELQ in {', '.join(LABELS)}", repr(relevance))
            candidates.append(Candidate(cid, tokenize(_text(comment, "RelCText")), LABELS[relevance]))
        tokens = tokenize(_text(relq, "RelQSubject")) + tokenize(_text(relq, "RelQBody"))
        questions.append(QAQuestion(qid, tokens, tuple(candidates)))
    return shuffle_candidates(at_least_one(questions, path, "<Thread>"))


def read_relevancy(path: str | Path) -> dict[tuple[str, str], int]:
    """Gold labels of a scorer ``.relevancy`` file: ``{(question id, comment id): 1 if Good else 0}``.

    Five tab-separated fields a line: question id, comment id, rank, score, and ``true`` for Good::

        Q268_R16	Q268_R16_C1	1	1	false
        Q268_R16	Q268_R16_C4	4	0.25	true
    """
    path = Path(path)
    gold = {}
    for n, line in numbered_lines(path):
        fields = line.split("\t")
        if len(fields) != 5 or fields[4] not in ("true", "false"):
            raise FormatError(path, n, "5 tab-separated fields ending in true or false", repr(line[:80]))
        gold[fields[0], fields[1]] = int(fields[4] == "true")
    return at_least_one(gold, path, "gold label")


def load_semeval(split: str, *, root: Path | None = None) -> list[QAQuestion]:
    """One split of SemEval-2016 3A (``train``, ``dev``); ``test`` raises :class:`MissingDataError`.

    ``train`` is part 1 followed by part 2; without part 1 it warns (naming the file and the command that
    fetches it) and returns part 2 alone.
    """
    if split not in SPLITS:
        raise ValueError(f"unknown SemEval split {split!r}; known: {', '.join(SPLITS)}")
    if split == "test":
        raise MissingDataError(
            "the SemEval-2016 3A test threads (SemEval2016-Task3-CQA-QL-test-subtaskA.xml) have no public copy "
            "in the registry, so the test split cannot be read; only its gold labels can, with "
            f"read_relevancy(require('semeval2016', {TEST_RELEVANCY!r})).")
    if split == "dev":
        return read_semeval(require("semeval2016", DEV_XML, root=root))
    questions = []
    for path in TRAIN_XMLS:
        try:
            questions += read_semeval(require("semeval2016", path, root=root))
        except MissingDataError as exc:
            if path != TRAIN_XMLS[0]:
                raise
            warnings.warn(f"semeval2016/{path} is missing, so 'train' is part 2 only; fetch part 1 with "
                          f"`{fetch_command('semeval2016')}` ({exc})", stacklevel=2)
    return questions
