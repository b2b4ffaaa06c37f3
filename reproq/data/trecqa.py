"""TrecQA answer selection (Wang et al. 2007; the splits of Yao et al. 2013, as castorini/data ships them).

TRAIN, DEV and TEST are castorini/data's ``TrecQA/data/{TRAIN,DEV,TEST}.xml``, pseudo-xml (html characters
are not escaped, so no xml parser reads it) in blocks ``<QApairs id='...'>`` > ``<question>``,
``<positive>``, ``<negative>``. The line after each opening tag is the tab-separated tokens; the lines
after it (POS tags, dependencies, named entities) are ignored::

    <question>
    What	do	practitioners	of	Wicca	worship	?

TRAIN-ALL (1,229 questions, 53,417 pairs, 6,410 positives: Yao et al.'s automatically judged set) is
rebuilt from three gzipped xuchen/jacana files of space-separated tokens, whose blocks align by number:
the question file holds one line per ``<Q n >`` block, the positive and negative files one sentence per
line in ``<A n >`` blocks (CRLF line ends)::

    <A 1697 >
    < P > New York 's 14-year-old red , white and blue `` Statue of Liberty `` license plates ...

A sentence may begin with ``<``, as this one does: only ``<A n >`` and ``</A>`` are tags. Tokens keep
the files' case (castorini's parse.py lowercases; the jacana "cleaned" positives already lowercase a
sentence's first letter, so lowercase downstream for TRAIN and TRAIN-ALL to agree).

Raw and clean evaluation
------------------------
DEV and TEST exist in two versions that papers seldom name (Rao, He & Lin, "Noise-contrastive estimation
for answer selection with deep neural networks", CIKM 2016, set out the difference; their code takes
``-version raw|clean``):

- ``raw``: every question in the file, DEV 82 / TEST 100. TEST has 89 questions with a positive (21 of
  them with only positives) and 11 without: trec_eval counts those 11 at AP = RR = 0 when they are in
  its qrels (see :func:`reproq.metrics.trec_scores`, ``no_relevant``), so say which a table does.
- ``clean``: only questions with both a positive and a negative, DEV 65 / TEST 68 (the ACL wiki's
  definition, quoted in castorini/data pull request #2; used by Wang & Ittycheriah 2015, Tan et al. 2015,
  dos Santos et al. 2016, Wang et al. 2016).

Severyn & Moschitti 2015 report **raw**: their code (aseveryn/deep-qa ``parse.py``) keeps every question
of dev.xml and test.xml and scores with trec_eval (it drops candidates longer than 60 tokens: none in
TRAIN, DEV or TEST, 1,221 in the rebuilt TRAIN-ALL). Tay et al. 2018 report **raw** too: their Table 3
counts 82 DEV and 100 TEST questions, and Table 7 sets CTRN beside Severyn & Moschitti 2015 and beside
the pointwise MP-CNN of Rao et al. 2016, which castorini/castor's MP-CNN README lists as a raw result.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from reproq.data.errors import FormatError
from reproq.data.qa import Candidate, QAQuestion, clean, shuffle_and_number
from reproq.data.sources import require
from reproq.data.text import at_least_one, numbered_lines

SPLITS = ("train", "train-all", "dev", "test")
EVALUATIONS = ("raw", "clean")
XML_FILES = {"train": "TrecQA/data/TRAIN.xml", "dev": "TrecQA/data/DEV.xml", "test": "TrecQA/data/TEST.xml"}
_JACANA = "tree-edit-data/answerSelectionExperiments/training/1-2393/Train1-2393."
TRAIN_ALL_FILES = (  # questions, positives, negatives
    _JACANA + "Question.POSInput.gz",
    _JACANA + "Positive-M.POSInput.cleaned.gz",
    _JACANA + "Negative-M.POSInput.gz",
)

_QAPAIRS = re.compile(r"<QApairs id='([^']+)'>")
_BLOCK_LABELS = {"question": None, "positive": 1, "negative": 0}
_OPENING = {f"<{tag}>": tag for tag in _BLOCK_LABELS}
_TAGS = set(_OPENING) | {f"</{tag}>" for tag in _BLOCK_LABELS} | {"</QApairs>"}


def _is_tag(line: str) -> bool:
    return line in _TAGS or _QAPAIRS.fullmatch(line) is not None


def _block_tokens(lines: Iterator[tuple[int, str]], path: Path, tag: str, start: int) -> tuple[str, ...]:
    """Consume a ``<tag>`` block up to its closing tag; its first line is the tab-separated tokens."""
    first = None
    for n, line in lines:
        if line == f"</{tag}>":
            if first is None:
                raise FormatError(path, n, f"a line of tokens after <{tag}>", f"</{tag}>")
            return tuple(first.split("\t"))
        if _is_tag(line):
            raise FormatError(path, n, f"</{tag}>", line)
        if first is None:
            if not line.strip():
                raise FormatError(path, n, f"a line of tokens after <{tag}>", "an empty line")
            first = line
    raise FormatError(path, start, f"</{tag}> closing the <{tag}> opened here", "end of file")


def read_trecqa_xml(path: str | Path) -> list[QAQuestion]:
    """Questions of a castorini TrecQA xml file, in file order, candidates shuffled and numbered
    (:func:`~reproq.data.qa.shuffle_and_number`)."""
    path = Path(path)
    questions: list[QAQuestion] = []
    lines = numbered_lines(path)
    qid = start = question = None
    candidates: list[Candidate] = []
    seen: set[str] = set()
    for n, line in lines:
        if qid is None:
            if not (match := _QAPAIRS.fullmatch(line)):
                raise FormatError(path, n, "<QApairs id='...'>", repr(line[:60]))
            if match.group(1) in seen:
                raise FormatError(path, n, "a question id not seen before", line)
            seen.add(match.group(1))
            qid, start, question, candidates = match.group(1), n, None, []
        elif line == "</QApairs>":
            if question is None:
                raise FormatError(path, n, f"a <question> in <QApairs id='{qid}'>", "</QApairs>")
            questions.append(QAQuestion(qid, question, tuple(candidates)))
            qid = None
        elif line in _OPENING:
            tag = _OPENING[line]
            if (tag == "question") != (question is None):
                expected = "<positive> or <negative>" if question is not None else "<question> first"
                raise FormatError(path, n, expected, line)
            tokens = _block_tokens(lines, path, tag, n)
            if tag == "question":
                question = tokens
            else:
                candidates.append(Candidate("", tokens, _BLOCK_LABELS[tag]))
        else:
            raise FormatError(path, n, "<question>, <positive>, <negative> or </QApairs>", repr(line[:60]))
    if qid is not None:
        raise FormatError(path, start, f"</QApairs> closing <QApairs id='{qid}'>", "end of file")
    return shuffle_and_number(at_least_one(questions, path, "<QApairs> block"))


def _jacana_blocks(path: Path, letter: str) -> list[tuple[str, int, list[str]]]:
    """``(n, line of <X n >, lines inside)`` for every ``<X n >`` ... ``</X>`` block of a jacana file.

    Gzipped (the published files) or not (the test fixtures), through :func:`numbered_lines`, which also
    drops the answer files' Windows line ends.
    """
    opening, closing = re.compile(rf"<{letter} (\d+) >"), f"</{letter}>"
    blocks = []
    key = start = None
    for n, line in numbered_lines(path):
        match = opening.fullmatch(line)
        if key is None:
            if not match:
                raise FormatError(path, n, f"<{letter} n >", repr(line[:60]))
            key, start, inside = match.group(1), n, []
        elif line == closing:
            blocks.append((key, start, inside))
            key = None
        elif match:
            raise FormatError(path, n, f"{closing} closing <{letter} {key} > of line {start}", line)
        elif not line.strip():
            raise FormatError(path, n, "a sentence", "an empty line")
        else:
            inside.append(line)  # even when it starts with "<" ("< P > New York 's ..."): a sentence
    if key is not None:
        raise FormatError(path, start, f"{closing} closing the <{letter} {key} > opened here", "end of file")
    return at_least_one(blocks, path, f"<{letter} n > block")


def read_jacana(questions_path: str | Path, positives_path: str | Path,
                negatives_path: str | Path) -> list[QAQuestion]:
    """TRAIN-ALL rebuilt from the jacana question, positive and negative files (gzipped or not).

    Questions keep the order of the question file. An answer block whose number names no question, or a
    number seen twice in one file, is a :class:`FormatError`; a question with no block in an answer file
    gets no candidates from it (an empty block, as 68 questions have in the negative file, reads the same).
    """
    questions_path = Path(questions_path)
    texts: dict[str, tuple[str, ...]] = {}
    for key, start, inside in _jacana_blocks(questions_path, "Q"):
        if key in texts:
            raise FormatError(questions_path, start, "a question number not seen before", f"<Q {key} > again")
        if len(inside) != 1:
            raise FormatError(questions_path, start + 1, "one line of question text", f"{len(inside)} lines")
        texts[key] = tuple(inside[0].split())
    candidates: dict[str, list[Candidate]] = {key: [] for key in texts}
    for path, label in ((Path(positives_path), 1), (Path(negatives_path), 0)):
        seen = set()
        for key, start, inside in _jacana_blocks(path, "A"):
            if key not in texts or key in seen:
                expected = f"a question number of {questions_path.name}, once"
                raise FormatError(path, start, expected, f"<A {key} >")
            seen.add(key)
            candidates[key].extend(Candidate("", tuple(s.split()), label) for s in inside)
    return shuffle_and_number([QAQuestion(key, texts[key], tuple(candidates[key])) for key in texts])


def load_trecqa(split: str, *, evaluation: str = "raw", root: Path | None = None) -> list[QAQuestion]:
    """One TrecQA split, fetched and verified through :func:`reproq.data.sources.require`.

    ``split`` is ``train``, ``train-all`` (rebuilt, see the module docstring), ``dev`` or ``test``;
    ``evaluation="clean"`` keeps only questions with both a positive and a negative candidate.
    """
    if split not in SPLITS:
        raise ValueError(f"unknown TrecQA split {split!r}; known: {', '.join(SPLITS)}")
    if evaluation not in EVALUATIONS:
        raise ValueError(f"unknown TrecQA evaluation {evaluation!r}; known: {', '.join(EVALUATIONS)}")
    if split == "train-all":
        questions = read_jacana(*(require("trecqa", p, root=root) for p in TRAIN_ALL_FILES))
    else:
        questions = read_trecqa_xml(require("trecqa", XML_FILES[split], root=root))
    return clean(questions) if evaluation == "clean" else questions
