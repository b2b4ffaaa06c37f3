"""Numbers in prose: every decimal a reader reads in the README, the guide or a notebook's typed Markdown is a number
the papers print, quoted as printed; the study's own numbers are never typed.

The study has one mechanism for its own numbers in prose: they are generated from the records it describes — each
notebook's reading cells (:mod:`reproq.report.readings`, rewritten by ``reproq run --commit`` and ``reproq report
--write``) and the generated blocks of the README and the guide (``<!-- name:start -->`` … ``<!-- name:end -->``) —
plain Markdown, which JupyterLab, GitHub and the book (:mod:`reproq.report.book`) all show as it is (a value glued
by MyST-NB would show in the book alone, and as a bare name on GitHub). So a test fails on a changed digit, and a
decimal typed by hand can only quote a paper: :func:`check` finds every typed decimal (:func:`typed_numbers`) that is
not one of the papers' printed numbers (``paper_numbers.csv`` and the papers' own files), exactly as printed or as a
percentage of one; a number given as a paper's (right after *paper*, *et al.*, *prints*, *quotes*, *his*, *their*:
:data:`PAPERS_OWN`) is held by the numbers of the paper its sentence names, where it names one.

A number in thousands or millions (``1.7M``, ``450K``) is a typed number too, standing for what its last digit allows
(``1.7M``: 1.65 to 1.75 million). Generated blocks, code (fenced or inline), section numbers (§4.2) and the few
decimals that are names, not results (:data:`NOT_RESULTS`: software versions, the course number 6.864) are not typed
numbers.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from reproq import notebook_json, paths
from reproq.report import guide, readings
from reproq.results.tables import SCALE, paper_value

# A decimal number as prose writes it: optional sign (ASCII or Unicode minus), thousands separators, a fraction; or
# any number in thousands or millions (``1.7M``, ``450K``)
NUMBER = re.compile(r"(?<![\w.,])([-−+]?)(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+)(?![\w]|\.\d)|(?:\.(\d+))?([KM])\b)")
# a number the prose gives as a paper's: after "paper", "et al.", "prints", "quotes", "his", "their" (up to four words
# between, a bracket or a quotation mark): checked against the papers' printed numbers alone
PAPERS_OWN = re.compile(r"(?:\bpapers?(?:'s|')?|\bet al\.(?:'s)?|\bprint(?:s|ed)?|\bquot(?:es?|ed)|\bhis|\btheir)"
                        r"[\s:(\"“]*(?:[\w@-]+[\s:(\"“]+){0,4}$", re.I)
# the paper a sentence names last before such a number: its numbers alone hold it
NAMED = {"lei2016": r"\bLei\b", "tay2018": r"\bTay\b", "dossantos2015": r"\bdos Santos\b",
         "smolyakov2017": r"\bSmolyakov\b|\bSrikant\b", "rankine2016": r"\bRankine\b"}
# Decimals that are names, not results: each pattern is matched against the text around the number.
NOT_RESULTS = (
    r"MIT 6\.864|6\.864 (?:project|student|course)",  # the course number of Smolyakov & Srikant's project
    r"Python ≥ 3\.11|python3\.11|Python 3\.11",  # the interpreter the project needs
    r"[Tt]orch(?:==| )\d+\.\d+",  # a torch version
    r"Lucene \d+\.\d+",  # a Lucene version
)
GENERATED = re.compile(r"<!-- (\w+):start -->.*?<!-- \1:end -->", re.S)
CODE = re.compile(r"```.*?```|`[^`\n]*`", re.S)
SECTION = re.compile(r"§\s?$")
SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z*(])")  # where one sentence of prose ends and the next begins


@dataclass(frozen=True)
class Typed:
    """A decimal typed into prose: as typed (sign normalised to ``-``), where, and the line around it."""

    text: str
    where: str
    line: str
    papers_own: bool = False  # given as a paper's number (:data:`PAPERS_OWN`): only the papers' numbers hold it
    named: str = ""  # the paper its sentence names last before it (:data:`NAMED`): only that paper's numbers hold it
    percent: bool = False  # a percent sign right after it

    @property
    def suffix(self) -> str:
        return self.text[-1] if self.text[-1] in "KM" else ""

    @property
    def decimals(self) -> int:
        digits = self.text.removesuffix(self.suffix)
        return len(digits.split(".")[1]) if "." in digits else 0

    @property
    def value(self) -> float:
        return paper_value(self.text)

    @property
    def half(self) -> float:
        """Half a unit of the last digit typed: what the typed number stands for either side."""
        return 0.5 * 10.0 ** -self.decimals * SCALE.get(self.suffix, 1.0)


def typed_numbers(markdown: str, where: str = "") -> list[Typed]:
    """The decimals of ``markdown`` that a test must find among the papers' (module docstring: what is left out).

    >>> [t.text for t in typed_numbers("QRNN 0.757 (paper 0.700), Δ = −0.009; §4.2; `x = 0.5`; MIT 6.864")]
    ['0.757', '0.700', '-0.009']
    >>> [(t.text, t.value, t.papers_own) for t in typed_numbers("1.7M words, the paper's 4.8K questions")]
    [('1.7M', 1700000.0, False), ('4.8K', 4800.0, True)]
    """
    blank = lambda m: re.sub(r"[^\n]", " ", m.group())  # noqa: E731 (keeps every offset and line number)
    text = CODE.sub(blank, GENERATED.sub(blank, markdown))
    found = []
    for match in NUMBER.finditer(text):
        start, end = match.span()
        if SECTION.search(text[max(0, start - 2):start]):
            continue
        around = markdown[max(0, start - 40):end + 40]
        if any(re.search(p, around) and _covers(p, around, match.group().lstrip("-−+")) for p in NOT_RESULTS):
            continue
        sign = "-" if match[1] in "-−" and match[1] else ""
        fraction = match[3] or match[4]
        number = f"{sign}{match[2].replace(',', '')}{'.' + fraction if fraction else ''}{match[5] or ''}"
        line_no = markdown.count("\n", 0, start) + 1
        line = markdown.splitlines()[line_no - 1].strip()
        own = bool(PAPERS_OWN.search(text[max(0, start - 60):start]))
        sentence = SENTENCE.split(text[max(0, start - 300):start])[-1]
        names = [(m.start(), key) for key, name in NAMED.items() for m in re.finditer(name, sentence)]
        named = max(names)[1] if own and names else ""
        percent = bool(re.match(r"\s?%", text[end:end + 2]))
        found.append(Typed(number, f"{where}:{line_no}" if where else str(line_no), line, own, named, percent))
    return found


def _covers(pattern: str, around: str, number: str) -> bool:
    return any(number in m.group() for m in re.finditer(pattern, around))


class Pool:
    """Numbers quoted as printed, each exact: the papers' (:func:`paper_pool`)."""

    def __init__(self, values: Iterable[float] = ()):
        self._values = np.array(sorted({float(v) for v in values if math.isfinite(v)}), dtype=float)

    def __len__(self) -> int:
        return len(self._values)

    def holds(self, typed: Typed) -> bool:
        """Whether a number of the pool, rounded to ``typed``'s decimals, reads ``typed`` — directly or, for a fraction
        (a number within ±1), as a percentage (×100) where ``typed`` is at least 1 or says ``%``. A value exactly
        halfway (0.7485 for 0.748 or 0.749) reads neither.

        >>> pool = Pool([0.5204, -0.02246, 0.0091])
        >>> [pool.holds(t) for t in typed_numbers("52.0, 52.04, 0.520, -0.022; 52.1, 0.022; 0.91 MAP; 0.91 %")]
        [True, True, True, True, False, False, False, True]
        """
        x, half, values = typed.value, typed.half, self._values
        if np.any(np.abs(values - x) < half):
            return True
        if typed.suffix or (abs(x) < 1 and not typed.percent):  # thousands or millions, or a fraction: not a percentage
            return False
        return bool(np.any(np.abs(values[np.abs(values) <= 1] * 100 - x) < half))


def paper_pool(papers: Iterable[str] | None = None) -> Pool:
    """The numbers of ``papers`` (default: all), as printed (``52.0``, ``4.8`` of ``4.8K``) and as values (0.52)."""
    from reproq.results.tables import paper_numbers

    numbers = paper_numbers()
    if papers is not None:
        numbers = numbers[numbers["paper"].isin(list(papers))]
    printed = [float(m.replace(",", "")) for text in numbers["printed"] for m in re.findall(r"-?[\d,]*\.?\d+", text)]
    return Pool([v for v in [*numbers["value"], *printed] if isinstance(v, (int, float)) and not isinstance(v, bool)])


def notebook_markdown(path: Path) -> Iterator[tuple[str, str]]:
    """``(where, text)`` of each typed Markdown cell of a notebook (its reading cells are generated and checked
    whole: :mod:`reproq.report.readings`)."""
    cells = notebook_json.read(path)["cells"]
    for number, cell in enumerate(cells):
        if cell["cell_type"] == "markdown" and not readings.reading_of(cell):
            yield f"{Path(path).name}, cell {number}", "".join(cell["source"])


def paragraphs(markdown: str) -> Iterator[tuple[int, str]]:
    """``(first line number, text)`` of each paragraph or list item of ``markdown``."""
    start, lines = 1, []
    for number, line in enumerate(markdown.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith(("- ", "* ", "| ")) or line.startswith("#"):
            if lines:
                yield start, "\n".join(lines)
            start, lines = number, ([line] if line.strip() else [])
        else:
            lines.append(line)
    if lines:
        yield start, "\n".join(lines)


def check(root: Path | None = None) -> list[Typed]:
    """Every typed decimal of the reader pages (the README outside its generated blocks, the guide's pages) and of the
    notebooks' typed Markdown that is not a paper's printed number (module docstring); empty when all are."""
    root = Path(root or paths.ROOT)
    papers = paper_pool()
    typed = [replace(t, where=f"{page.relative_to(root)}:{t.where}") for page in guide.reader_pages(root)
             for t in typed_numbers(_outside_generated(page))]
    typed += [t for notebook in sorted((root / "notebooks").glob("*.ipynb"))
              for where, text in notebook_markdown(notebook) for t in typed_numbers(text, where)]
    return [t for t in typed if not (paper_pool([t.named]) if t.papers_own and t.named else papers).holds(t)]


def _outside_generated(page: Path) -> str:
    """A reader page's text with its generated blocks blanked (their lines kept, so line numbers hold)."""
    return GENERATED.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), page.read_text())
