"""The study's own comparative sentences, held to the test it applies to the papers.

A sentence in the README, a guide page or a notebook's typed Markdown that compares two methods — *beats*, *outperforms*,
*above/below all*, *turns the sign*, *hardly differ*, *the largest gap* (:data:`COMPARATIVE`) — states what a paired
test must show. :func:`check` finds each such sentence (outside generated blocks, code and the notebooks' generated
reading cells, whose words come from the tests themselves) and accepts it when

- it carries an interval (``(+0.001 to +0.048)``, ``[+0.001, +0.048]``) that excludes 0 on the side its word says
  (*below*: under 0; any other: above 0) — an interval that holds 0 never supports a comparison, whatever else the
  sentence says;
- or, without an interval, it says what the paired test found in the study's words (*shown*, *not shown*,
  *confirmed*, *contradicted*: the readings it points to carry the numbers), reports what a paper says (*the
  paper*, *et al.*, *claims*, its authors' names), which the report tests apart, or asks (*whether*).

Each clause a semicolon parts is judged on its own, but in a sentence that opens on a paper's claim. A method that
*beats its start* (a trained model against its own untrained state) compares no two methods.

Its limits, said plainly: it reads words, not meaning. A comparison made without any of these words (*CTRN is
better*) passes unseen, and a sentence that says *shown* of another comparison than its own passes too; what it
catches is the sentence that states a direction its own interval does not support, or states one with no test at all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from reproq import paths
from reproq.report import guide
from reproq.report.prose import CODE, GENERATED, notebook_markdown, paragraphs

COMPARATIVE = re.compile(
    r"\b(?:beats?(?! (?:it|its)\b)|beating|outperform(?:s|ed|ing)?|turns? the sign|hardly differ|(?:largest|widest) gap|"
    r"(?:far )?(?:above|below) (?:them all|all of them|every|both|all)|(?:higher|lower) than every)\b", re.I)
DOWN = re.compile(r"\b(?:below|lower)\b", re.I)
SIGNED = r"([-−+]?\d*\.\d+)"
INTERVAL = re.compile(rf"[(\[]?\s*{SIGNED}\s*(?:to|,|…)\s*{SIGNED}\s*[)\]]")
TESTED = re.compile(r"\b(?:shown|confirmed|contradicted)\b", re.I)
ATTRIBUTED = re.compile(r"\bthe paper\b|\bpaper's\b|\bet al\.|\bclaims?\b|\b(?:Lei|Tay|dos Santos|Smolyakov|Rankine)\b"
                        r"|\bwhether\b", re.I)  # what a paper says (the report tests it), or a question asked
SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z*(])")
CLAUSE = re.compile(r";\s+")
CLAIM = re.compile(r"\bclaims?\b", re.I)  # a sentence that opens on a paper's claim lists it, clause by clause


@dataclass(frozen=True)
class Unsupported:
    """A comparative sentence the study's own test does not support: where it is and why."""

    where: str  # "README.md:191" or "04_trecqa_ctrn.ipynb, cell 32"
    sentence: str
    why: str


def _value(text: str) -> float:
    return float(text.replace("−", "-"))


def judge(sentence: str) -> str:
    """Why ``sentence`` is unsupported, or ``""`` where it is supported or compares nothing (module docstring).

    >>> judge("CTRN beats QRNN (+0.009, -0.007 to +0.025).")
    'its interval [-0.007, +0.025] holds 0'
    >>> judge("QRNN beats the floor (+0.024, +0.001 to +0.048)."), judge("The anchor is below both, not shown.")
    ('', '')
    >>> judge("An off-the-shelf encoder is above them all.")
    'no paired test: no interval, and it does not say what one showed'
    """
    if not COMPARATIVE.search(sentence):
        return ""
    intervals = [(_value(a), _value(b)) for a, b in INTERVAL.findall(sentence)]
    if intervals:
        down = bool(DOWN.search(COMPARATIVE.search(sentence)[0]))
        for low, high in intervals:
            if (high >= 0) if down else (low <= 0):
                return f"its interval [{low:+.3f}, {high:+.3f}] holds 0" if low <= 0 <= high else \
                    f"its interval [{low:+.3f}, {high:+.3f}] points the other way"
        return ""
    if TESTED.search(sentence) or ATTRIBUTED.search(sentence):
        return ""
    return "no paired test: no interval, and it does not say what one showed"


def sentences(markdown: str) -> list[tuple[int, str]]:
    """``(line, clause)`` of typed prose, each sentence's clauses apart (but those of a sentence that opens on a
    paper's claim, which all report it): generated blocks and code blanked, paragraph by paragraph."""
    text = CODE.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), GENERATED.sub(
        lambda m: re.sub(r"[^\n]", " ", m.group()), markdown))
    out = []
    for first, paragraph in paragraphs(text):
        for sentence in SENTENCE.split(paragraph):
            sentence = " ".join(sentence.split())
            clauses = CLAUSE.split(sentence)
            out += [(first, sentence)] if CLAIM.search(clauses[0]) else [(first, c) for c in clauses if c.strip()]
    return out


def check(root: Path | None = None) -> list[Unsupported]:
    """Every comparative sentence of the reader pages (the README, the guide's pages) and of the notebooks' typed
    Markdown that the study's own paired test does not support; empty when none."""
    root = Path(root or paths.ROOT)
    found = [(f"{page.relative_to(root)}:{line}", s) for page in guide.reader_pages(root)
             for line, s in sentences(page.read_text())]
    for notebook in sorted((root / "notebooks").glob("*.ipynb")):
        found += [(where, s) for where, text in notebook_markdown(notebook) for _, s in sentences(text)]
    return [Unsupported(where, s, why) for where, s in found if (why := judge(s))]
