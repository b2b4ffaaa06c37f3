"""The study's own comparative sentences, held to the test it applies to the papers.

A sentence in the README, a guide page or a notebook's typed Markdown that compares two results — *better*, *worse*,
*above*/*below*/*ahead of* a method, *falls behind*, *beats*, *outperforms*, *clears*, *improves*, *helps*, *hurts*,
*matches* the paper, *the largest gap*, *best*, *worst*, *higher*, *lower*, *confirms*, *turns the sign*, a *lead
over* (:data:`COMPARATIVE`) — or that states a verdict (*not shown*, *is shown to*, *confirmed*, *contradicted*:
:data:`VERDICT`) says what a paired test must show. :func:`check` finds each such sentence (outside generated blocks,
code and the notebooks' generated reading cells, whose words come from the tests themselves; a paper's own words in
quotation marks aside) and accepts it when

- it carries an interval (``(+0.001 to +0.048)``, ``[+0.001, +0.048]``) on the side its words say: excluding 0
  upwards (*below*, *lower*, *worse*, …: downwards) where it asserts a difference, holding 0 where it says there is
  none (*not shown*, *no difference*, *neither*);
- or it reports a paper, the reporting said before the comparison: a paper's claim (*the paper's claim is …*), its
  authors with a verb of saying (*Tay et al. report …*, *he prints …*), *the paper:* — naming a paper is not enough
  (*like Tay et al., our CTRN beats QRNN* is a sentence about our runs); or it asks (*whether*, a question) or cites a
  section of a paper (§6.3).

Each clause a semicolon parts is judged on its own, but in a sentence that opens on a paper's claim. Words that
compare nothing are left alone: *above*/*below* that point at a place (*the table above*, *the reading below sets*),
*best*/*better* that name a selection (*the best epoch*, *a better DEV MAP*), *lower-cased*, a model against its own
start (*beats its start*).

Since a typed decimal that describes this study's results fails :mod:`reproq.report.prose`, the typed prose carries
no comparison of its own: it points at the generated readings, which carry each test. Its limits, said plainly: it
reads words, not meaning. A comparison in words it does not list (*CTRN wins*) passes unseen, and an interval it is
given is not checked to be that comparison's; what it catches is a sentence in the listed words that states a
direction with no test or against its own interval.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from reproq import paths
from reproq.report import guide
from reproq.report.prose import CODE, GENERATED, SENTENCE, notebook_markdown, paragraphs

# the words that compare two results (module docstring), each but in its uses that compare nothing: "above" and
# "below" that point at a place ("the table above", "the reading below sets …", "below:"), "behind" but in "falls
# behind", "best" and "better" that name a selection ("the best epoch", "a better DEV MAP"), "lower-cased", a model
# against its own start ("beats its start")
PLACE = r"(?:reading|cell|table|list|line|banner|figure|result|row|summary|guide|block|number|verdict|picture|" \
        r"docstring|interval|count|disclosure)s?\b"
TARGET = rf"(?:(?:the|a|an|their|every|each|all|both|them|those|what|notebooks?)\b(?! (?:[\w-]+ )?{PLACE})|" \
         r"(?-i:[A-Z0-9][\w@.-]*\w))"
SELECTION = r"(?:\*\*)?(?:floor|floors|epoch|epochs|dev|DEV|state|weights|checkpoint|configuration|row|trained|" \
            r"training|validation|mean dev|of several|possible)\b"
COMPARATIVE = re.compile(
    rf"\b(?:better(?! (?:DEV|dev)\b)|worse|(?:above|below|ahead of) {TARGET}|(?:falls?|fell|lags?) behind|"
    r"beats?(?! (?:it|its)\b)|beating|outperform(?:s|ed|ing)?|improve(?:s|d)?|helps?|hurts?|"
    r"(?:lead|gain|edge|advantage) (?:over|on)|clears(?! (?:it|its)\b)|cleared|clear (?:the|every|all)|"
    r"match(?:es|ed)? (?:the paper\b|the paper's|(?-i:[A-Z][\w-]*))|"
    r"(?:largest|smallest|widest) (?:gap|difference|gain|drop|lead)|"
    rf"(?:best|worst)(?!-|[,.;:)]| {SELECTION})|higher|lower(?!-cased| values)|turns? the sign|hardly differ|"
    r"confirms?)\b", re.I)
# the words of a verdict: a sentence that says a test showed something carries that test's interval
VERDICT = re.compile(r"\bnot shown\b|\bnone (?:is|are) shown\b|\b(?:is|are|be|was|were|been) shown (?:to|above|below|"
                     r"against|over|either)\b|(?<![*\w])(?:confirmed|contradicted)(?!\*)\b", re.I)
DOWN = re.compile(r"\b(?:below|lower|worse|behind|hurts?|worst|smallest)\b", re.I)
NEGATED = re.compile(r"\bnot shown\b|\bno difference\b|\bneither\b|\bnot (?:\w+ )?(?:above|below|better|worse)\b",
                     re.I)
SIGNED = r"([-−+]?\d*\.\d+)"
INTERVAL = re.compile(rf"[(\[]?\s*{SIGNED}\s*(?:to|,|…)\s*{SIGNED}\s*[)\]]")
QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”")  # a paper's own words: its comparison, tested apart
# what a paper says: its claim, a section of it, or its authors with a reporting verb (the report tests it apart);
# naming a paper is not enough ("like Tay et al., CTRN beats QRNN here" says it of our runs)
AUTHORS = r"(?:the paper|the papers|Lei et al\.|Tay et al\.|dos Santos et al\.|Smolyakov(?: & Srikant)?|Rankine|he|they)"
ATTRIBUTED = re.compile(rf"(?<!\bwe )\bclaims?\b|\bthe paper:|{AUTHORS}(?:'s? \w+)? "
                        r"(?:says?|claims?|reports?|prints?|quotes?|argues?|writes?|finds?|found|ran|tried|gives?)\b",
                        re.I)  # before the comparison it reports
ASKED = re.compile(r"\bwhether\b|\?\s*$|§\s?\d", re.I)  # a question, or a sentence citing a section of a paper
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
    >>> judge("QRNN beats the floor (+0.024, +0.001 to +0.048)."), judge("CTRN above QRNN is not shown [-0.01, +0.02].")
    ('', '')
    >>> judge("An off-the-shelf encoder is above them all."), judge("CTRN is better than QRNN.")[:14]
    ('no paired test: no interval, and it reports no paper', 'no paired test')
    >>> judge("CTRN above QRNN is shown."), judge("The paper says CTRN beats QRNN."), judge("See the table above.")
    ('no paired test: no interval, and it reports no paper', '', '')
    """
    bare = QUOTED.sub(" ", sentence)
    if not (COMPARATIVE.search(bare) or VERDICT.search(bare)):
        return ""
    intervals = [(_value(a), _value(b)) for a, b in INTERVAL.findall(bare)]
    if intervals:
        negated = bool(NEGATED.search(bare))
        word = COMPARATIVE.search(bare)
        down = bool(word and DOWN.search(word[0]))
        for low, high in intervals:
            holds = low <= 0 <= high
            if negated and not holds:
                return f"its interval [{low:+.3f}, {high:+.3f}] excludes 0, and the sentence says no difference"
            if not negated and ((high >= 0) if down else (low <= 0)):
                return f"its interval [{low:+.3f}, {high:+.3f}] holds 0" if holds else \
                    f"its interval [{low:+.3f}, {high:+.3f}] points the other way"
        return ""
    said = ATTRIBUTED.search(bare)
    first = min(m.start() for m in (COMPARATIVE.search(bare), VERDICT.search(bare)) if m)
    if ASKED.search(bare) or (said and said.start() < first):
        return ""
    return "no paired test: no interval, and it reports no paper"


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
