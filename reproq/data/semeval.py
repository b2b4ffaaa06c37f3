"""SemEval-2016 Task 3, subtask A (QatarLiving): rank a forum thread's comments for its question; and the scorer's files
that subtask B shares (gold ``.relevancy`` files, the teams' runs and their ``.score`` files).

The threads come as xml (Nakov et al. 2016; copies in whiskeyromeo/CommunityQuestionAnswering),
``<Thread>`` > ``<RelQuestion RELQ_ID>`` (``<RelQSubject>``, ``<RelQBody>``) and ten ``<RelComment>``::

    <RelQuestion RELQ_ID="Q268_R16" ...><RelQSubject>Best Bank.</RelQSubject><RelQBody>Hi ti all ...
    <RelComment RELC_ID="Q268_R16_C1" ... RELC_RELEVANCE2RELQ="Bad"><RelCText>banks are using us ...

Following Zhang et al. 2017, as Tay et al. 2018 do, ``Good`` is the positive label and ``PotentiallyUseful``
and ``Bad`` are negative. A question's text is its subject followed by its body, both through
:func:`tokenize`. Candidate ids are the official ``RELC_ID`` (the scorer and the gold files use them);
they number the comments in thread order, so break score ties at random, never by id.

Here: dev (244 questions, 2,440 comments), train part 2 (379 / 3,790), the organisers' extra training threads from
SemEval-2015 (:data:`EXTRA_2015_XMLS`, 2016's questions taken out by them), and the test threads (327 / 3,270), whose
labels are "?" in the input and come from the official gold file (:func:`read_semeval` with ``gold=``). Train part 1
cannot be had here. Tay et al.'s Table 3 gives 224 dev and 327 test questions: the test gold file has 327, the dev
file here 244.

The official scorer (``ev.py`` of the task) reads a run and the gold file line by line, ranks each question's
candidates by the run's score with a stable sort, so that ties keep the gold file's order (the search engine's in
subtask B, the thread's in subtask A), and averages AP over *every* question, one without a positive counting 0.
:func:`read_run` reads a team's run (one score per pair), :func:`read_official_score` the scorer's printout of it.
"""

from __future__ import annotations

import math
import re
import warnings
import xml.etree.ElementTree as ET
from pathlib import Path

from reproq.data.errors import FormatError, MissingDataError
from reproq.data.qa import Candidate, QAQuestion, shuffle_candidates
from reproq.data.sources import fetch_command, require
from reproq.data.text import at_least_one, numbered_lines

DATASET = "semeval2016"  # its folder and registry name: both subtasks, the scorer's files, the teams' runs
SPLITS = ("train", "train-2015", "dev", "test")
DEV_XML = "Data/dev/SemEval2016-Task3-CQA-QL-dev-subtaskA.xml"
TRAIN_XMLS = (  # part 1 first, as released; part 1 is optional (see load_semeval)
    "Data/train/SemEval2016-Task3-CQA-QL-train-part1-subtaskA.xml",
    "Data/train/SemEval2016-Task3-CQA-QL-train-part2-subtaskA.xml",
)
EXTRA_2015_XMLS = (  # "train-more-for-subtaskA-from-2015": SemEval-2015's dev and test threads, reformatted
    "Data/train-more-for-subtaskA-from-2015/"
    "SemEval2015-Task3-CQA-QL-dev-reformatted-excluding-2016-questions-cleansed.xml",
    "Data/train-more-for-subtaskA-from-2015/"
    "SemEval2015-Task3-CQA-QL-test-reformatted-excluding-2016-questions-multiline.xml",
)
TEST_XML = "SemEval2016_task3_test_input/English/SemEval2016-Task3-CQA-QL-test-subtaskA-input.xml"
DEV_RELEVANCY = ("Data/english_scorer_and_random_baselines_v2.2/"
                 "SemEval2016-Task3-CQA-QL-dev-subtaskA.xml.subtaskA.relevancy")
TEST_RELEVANCY = "files/SemEval2016-Task3-CQA-QL-test-subtaskA.xml.subtaskA.relevancy"
SUBMISSIONS = "SemEval2016_task3_submissions_and_scores"  # every team's runs and scores, the gold, the leaderboards
LABELS = {"Good": 1, "PotentiallyUseful": 0, "Bad": 0}
UNLABELLED = "?"  # the label of every pair in a test input file (the gold file has them)
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


def line_of(path: Path, needle: str) -> int:
    """The first line of ``path`` containing ``needle`` (ElementTree keeps no line numbers), else 1."""
    # errors="replace": the parser has read the file, which may declare an encoding other than UTF-8
    with open(path, encoding="utf-8", errors="replace") as fh:
        return next((n for n, line in enumerate(fh, 1) if needle in line), 1)


def text_of(parent: ET.Element, tag: str) -> str:
    child = parent.find(tag)
    return "" if child is None or child.text is None else child.text


def required_attribute(path: Path, element: ET.Element, attribute: str, where: str) -> str:
    value = element.get(attribute)
    if not value:
        raise FormatError(path, line_of(path, where), f"a {attribute} attribute on <{element.tag}>", "none")
    return value


def parse_xml(path: Path, root_tag: str = ROOT) -> ET.Element:
    """The root of a SemEval xml file; FormatError at the line where it stops being well-formed xml (a truncated
    download), or where another document's root stands."""
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as exc:
        raise FormatError(path, exc.position[0], "well-formed xml", str(exc)) from None
    if root.tag != root_tag:  # well-formed, but another document: an XHTML error page, say
        raise FormatError(path, line_of(path, f"<{root.tag}"),
                          f"<{root_tag}> as the root element (a SemEval thread file)", f"<{root.tag}>")
    return root


def join_gold(path: Path, pairs: dict[tuple[str, str], str], gold_path: Path, kind: str = "pair") -> dict:
    """The gold label of every ``(question id, candidate id)`` of ``path`` (``pairs``: the pair -> a string that finds
    its line there), from the ``.relevancy`` file ``gold_path``; FormatError naming the line of a gold pair the input
    does not have, or of an input pair the gold file does not label."""
    gold = relevancy_lines(gold_path)
    if extra := [pair for pair in gold if pair not in pairs]:
        raise FormatError(gold_path, gold[extra[0]][1], f"only {kind}s of {path.name}",
                          f"{extra[0][0]} {extra[0][1]}, which it does not have")
    if unlabelled := [pair for pair in pairs if pair not in gold]:
        raise FormatError(path, line_of(path, pairs[unlabelled[0]]), f"a gold label in {gold_path.name} for every {kind}",
                          f"none for {unlabelled[0][0]} {unlabelled[0][1]}")
    return {pair: label for pair, (label, _) in gold.items()}


def read_semeval(path: str | Path, *, gold: str | Path | None = None) -> list[QAQuestion]:
    """The threads of a subtask A xml file as questions, in file order, candidates shuffled. A test input (labels "?")
    needs its ``gold`` ``.relevancy`` file, joined pair by pair (:func:`join_gold`)."""
    path = Path(path)
    root = parse_xml(path)
    threads = []
    for thread in root.iter("Thread"):
        where = f'THREAD_SEQUENCE="{thread.get("THREAD_SEQUENCE")}"'
        relq = thread.find("RelQuestion")
        if relq is None:
            raise FormatError(path, line_of(path, where), "a <RelQuestion> in <Thread>", "none")
        qid = required_attribute(path, relq, "RELQ_ID", where)
        comments = []
        for comment in thread.iter("RelComment"):
            cid = required_attribute(path, comment, "RELC_ID", f'RELQ_ID="{qid}"')
            relevance = comment.get("RELC_RELEVANCE2RELQ")
            if relevance not in LABELS and not (gold is not None and relevance == UNLABELLED):
                raise FormatError(path, line_of(path, f'RELC_ID="{cid}"'),
                                  f"RELC_RELEVANCE2RELQ in {', '.join(LABELS)}", repr(relevance))
            comments.append((cid, tokenize(text_of(comment, "RelCText")), relevance))
        tokens = tokenize(text_of(relq, "RelQSubject")) + tokenize(text_of(relq, "RelQBody"))
        threads.append((qid, tokens, comments))
    pairs = {}
    for qid, _, comments in threads:
        for cid, _, _ in comments:
            if (qid, cid) in pairs:
                raise FormatError(path, line_of(path, f'RELC_ID="{cid}"'), "each comment once", f"{cid} twice")
            pairs[qid, cid] = f'RELC_ID="{cid}"'
    labels = {} if gold is None else join_gold(path, pairs, Path(gold), "comment")
    questions = [QAQuestion(qid, tokens, tuple(Candidate(cid, text, labels.get((qid, cid), LABELS.get(relevance, 0)))
                                               for cid, text, relevance in comments))
                 for qid, tokens, comments in threads]
    return shuffle_candidates(at_least_one(questions, path, "<Thread>"))


def relevancy_lines(path: str | Path) -> dict[tuple[str, str], tuple[int, int]]:
    """``{(question id, candidate id): (label, line)}`` of a scorer ``.relevancy`` file, in file order (the order the
    official scorer breaks ties by); FormatError naming a malformed line or a pair listed twice."""
    path = Path(path)
    gold: dict[tuple[str, str], tuple[int, int]] = {}
    for n, line in numbered_lines(path):
        fields = line.split("\t")
        if len(fields) != 5 or fields[4] not in ("true", "false"):
            raise FormatError(path, n, "5 tab-separated fields ending in true or false", repr(line[:80]))
        if (fields[0], fields[1]) in gold:
            raise FormatError(path, n, "each pair once", f"{fields[0]} {fields[1]} again (line {gold[fields[0], fields[1]][1]})")
        gold[fields[0], fields[1]] = (int(fields[4] == "true"), n)
    return at_least_one(gold, path, "gold label")


def read_relevancy(path: str | Path) -> dict[tuple[str, str], int]:
    """Gold labels of a scorer ``.relevancy`` file: ``{(question id, candidate id): 1 if true else 0}``, in file order.

    Five tab-separated fields a line: question id, candidate id, rank, score, and ``true`` for a positive (subtask A:
    Good; subtask B: PerfectMatch or Relevant)::

        Q268_R16	Q268_R16_C1	1	1	false
        Q268_R16	Q268_R16_C4	4	0.25	true
    """
    return {pair: label for pair, (label, _) in relevancy_lines(path).items()}


def read_run(path: str | Path) -> dict[tuple[str, str], float]:
    """A team's run in the scorer's format, ``{(question id, candidate id): score}``: five whitespace-separated fields a
    line (question id, candidate id, rank, score, ``true``/``false``); the score ranks, the rest is not read."""
    path = Path(path)
    run: dict[tuple[str, str], float] = {}
    for n, line in numbered_lines(path):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 5:
            raise FormatError(path, n, "5 fields (question id, candidate id, rank, score, true or false)",
                              f"{len(fields)} field{'s' * (len(fields) != 1)}")
        try:
            score = float(fields[3])
        except ValueError:
            raise FormatError(path, n, "a number as the fourth field (the score)", repr(fields[3])) from None
        if not math.isfinite(score):
            raise FormatError(path, n, "a finite score", repr(fields[3]))
        if (fields[0], fields[1]) in run:
            raise FormatError(path, n, "each pair once", f"{fields[0]} {fields[1]} again")
        run[fields[0], fields[1]] = score
    return at_least_one(run, path, "scored pair")


OFFICIAL = re.compile(r"^\*\*\* Official score \(MAP for SYS\): ([0-9.]+)\s*$")
DETAILED = re.compile(r"^(MAP|MRR)\s*:\s*([0-9.]+)\s+([0-9.]+)\s*$")


def read_official_score(path: str | Path) -> dict[str, float]:
    """What the official scorer printed for a run: ``{"MAP", "MRR"}`` of the run (MRR as a fraction; the printout has
    percent) and ``{"search engine MAP", "search engine MRR"}``, the gold order's, each as printed (4 decimals for
    MAP, 2 for MRR in percent)."""
    path = Path(path)
    found: dict[str, float] = {}
    for n, line in numbered_lines(path):
        if match := OFFICIAL.match(line):
            found["official MAP"] = float(match.group(1))
        elif match := DETAILED.match(line):
            scale = 100 if match.group(1) == "MRR" else 1
            found[f"search engine {match.group(1)}"] = float(match.group(2)) / scale
            found[match.group(1)] = float(match.group(3)) / scale
    missing = [k for k in ("official MAP", "MAP", "MRR") if k not in found]
    if missing:
        raise FormatError(path, 1, "the official scorer's printout (its 'Official score' and 'MAP :' / 'MRR :' lines)",
                          f"no {', '.join(missing)}")
    if found.pop("official MAP") != found["MAP"]:
        raise FormatError(path, line_of(path, "MAP   :"), "the official MAP again on the MAP line", str(found["MAP"]))
    return found


def load_semeval(split: str, *, root: Path | None = None) -> list[QAQuestion]:
    """One split of SemEval-2016 3A: ``train`` (part 1 then part 2), ``train-2015`` (the 2015 extras), ``dev`` or
    ``test`` (the test threads joined to the official gold labels).

    ``train`` without part 1 warns (naming the file and the command that fetches it) and returns part 2 alone.
    """
    if split not in SPLITS:
        raise ValueError(f"unknown SemEval split {split!r}; known: {', '.join(SPLITS)}")
    if split == "test":
        return read_semeval(require(DATASET, TEST_XML, root=root),
                            gold=require(DATASET, TEST_RELEVANCY, root=root))
    if split == "dev":
        return read_semeval(require(DATASET, DEV_XML, root=root))
    if split == "train-2015":
        return [q for path in EXTRA_2015_XMLS for q in read_semeval(require(DATASET, path, root=root))]
    questions = []
    for path in TRAIN_XMLS:
        try:
            questions += read_semeval(require(DATASET, path, root=root))
        except MissingDataError as exc:
            if path != TRAIN_XMLS[0]:
                raise
            warnings.warn(f"semeval2016/{path} is missing, so 'train' is part 2 only; fetch part 1 with "
                          f"`{fetch_command('semeval2016')}` ({exc})", stacklevel=2)
    return questions
