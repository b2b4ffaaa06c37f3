"""WikiQA answer selection (Yang, Yih & Meek 2015), as castorini/data ships it.

Each split ``WikiQA/{train,dev,test}/`` holds four line-aligned files, one question-answer pair per line:
``a.toks`` (question tokens), ``b.toks`` (answer sentence tokens), ``id.txt`` (question id) and
``sim.txt`` (1: the sentence answers the question, 0: it does not). Line 1 of each::

    a.toks  how are glacier caves formed ?
    b.toks  a partly submerged glacier cave on perito moreno glacier .
    id.txt  1
    sim.txt 0

The text is lowercased and space-separated. castorini keeps only the questions with at least one correct
answer (Yang et al.'s own filtered setting): train 873 questions / 8,672 pairs, dev 126 / 1,130, test
243 / 2,351, of the 2,118 / 296 / 633 questions of the full release.

castorini's copy also cuts every answer sentence at 40 tokens: 1,094 of the 8,672 train, 125 of the 1,130 dev and
279 of the 2,351 test answers end there, often mid-sentence. The tables of notebook 06 are on this copy; nothing
here restores the full sentences.
"""

from __future__ import annotations

from pathlib import Path

from reproq.data.errors import FormatError
from reproq.data.qa import Candidate, QAQuestion, shuffle_and_number
from reproq.data.sources import require
from reproq.data.text import at_least_one, numbered_lines

SPLITS = ("train", "dev", "test")
FILE_NAMES = ("a.toks", "b.toks", "id.txt", "sim.txt")


def _lines(path: Path) -> list[str]:
    return [text for _, text in numbered_lines(path)]


def read_wikiqa(split_dir: str | Path) -> list[QAQuestion]:
    """The questions of one castorini WikiQA split folder, in order of first appearance.

    Candidates are shuffled and then named ``<question id>-<position>``, so that neither their order nor
    their id tells the label (in WikiQA the file order is the order of the sentences in the article).
    """
    split_dir = Path(split_dir)
    paths = [split_dir / name for name in FILE_NAMES]
    columns = [_lines(path) for path in paths]
    n_pairs = len(columns[0])
    for path, column in zip(paths[1:], columns[1:]):
        if len(column) != n_pairs:
            # Name the first line that has no partner: the end of the shorter file, plus one.
            line = min(len(column), n_pairs) + 1
            raise FormatError(path, line, f"{n_pairs} lines, as many as {paths[0].name}", f"{len(column)} lines")
    questions: dict[str, tuple[tuple[str, ...], list[Candidate]]] = {}
    for n, (question, answer, qid, sim) in enumerate(zip(*columns), 1):
        if sim not in ("0", "1"):
            raise FormatError(paths[3], n, "0 or 1", repr(sim[:40]))
        if not qid.strip():
            raise FormatError(paths[2], n, "a question id", "an empty line")
        tokens = tuple(question.split())
        if qid not in questions:
            questions[qid] = (tokens, [])
        elif questions[qid][0] != tokens:
            raise FormatError(paths[0], n, f"the text of question {qid} as on its first line", "another text")
        questions[qid][1].append(Candidate("", tuple(answer.split()), int(sim)))
    at_least_one(questions, paths[0], "question-answer pair")
    return shuffle_and_number(QAQuestion(qid, tokens, tuple(candidates))
                              for qid, (tokens, candidates) in questions.items())


def load_wikiqa(split: str, *, root: Path | None = None) -> list[QAQuestion]:
    """One WikiQA split (``train``, ``dev`` or ``test``), fetched and verified through ``require``."""
    if split not in SPLITS:
        raise ValueError(f"unknown WikiQA split {split!r}; known: {', '.join(SPLITS)}")
    paths = [require("wikiqa", f"WikiQA/{split}/{name}", root=root) for name in FILE_NAMES]
    return read_wikiqa(paths[0].parent)
