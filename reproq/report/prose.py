"""Numbers in prose: every decimal a reader reads in the README, the guide or a notebook's Markdown is one the records
hold.

A number typed into prose drifts from the records it describes when a notebook is run again; nothing else would
notice. :func:`check` finds every typed decimal (:func:`typed_numbers`) and looks it up among the numbers of its
*scope* (:func:`pool`): for a notebook, the files of its own ``results/<notebook>/`` folder; for a paragraph of the
README or of a guide page (:func:`reproq.report.guide.reader_pages`), the folders it names, or every file under ``results/``; for both, the papers' numbers (``paper_numbers.csv``) and the report's computed rows
(gaps to the paper, the claims' paired differences and intervals). A typed number is *found* when a number of its
scope, printed at the typed number's decimals, reads the same — directly or, a fraction (within ±1), as a percentage,
with its sign. A typed number below 1 reads as a percentage only with a percent sign after it (``0.9 %``): a cell printed
as 0.0091 is not a fraction that ``0.91357 MAP`` quotes.

What counts as a number of a results file:

- a record (``*.jsonl``): its value and the numbers of its configuration, and per group of records that differ
  only in the seed, their mean and standard deviation (what the tables print as ``mean ± std``);
- a table (``*.csv``): every numeric cell, ``mean ± std`` cells as two numbers. A cell is printed at some
  precision: ``0.7485`` stands for 0.74845 to 0.74855, so ``0.748`` and ``0.749`` are both consistent with it,
  and only the record can tell them apart (the README once said 0.749 for a record of 0.74848);
- ``settings.json``: the parameters each output was made with; any other JSON file (benchmarks, costs): every
  number in it, and a number of seconds also in minutes.

A number in thousands or millions (``1.7M``, ``450K``) is a typed number too, standing for what its last digit allows
(``1.7M``: 1.65 to 1.75 million). A number given as a paper's (right after *paper*, *et al.*, *prints*, *quotes*,
*his*, *their*: :data:`PAPERS_OWN`) is held by the papers' printed numbers alone — the paper the sentence names, where
it names one — not by whatever record of the scope happens to read the same at two decimals.

Generated blocks (``<!-- name:start -->`` … ``<!-- name:end -->``, written by ``reproq scope``/``report --write``),
code (fenced or inline), section numbers (§4.2) and the few decimals that are names, not results
(:data:`NOT_RESULTS`: software versions, the course number 6.864) are not typed numbers.

The check has limits, and says so: a short number (``0.7``) is found by chance in a folder of hundreds of numbers,
so the check catches a number that is in no record, not one that quotes the wrong record of the same precision.
The generated blocks and each notebook's computed reading cells are exact.
"""

from __future__ import annotations

import json
import math
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from reproq import paths
from reproq.report import guide, readings, verdicts
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
    """The decimals of ``markdown`` that a test must find in the records (module docstring: what is left out).

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
    """The numbers of one scope, each as the interval it stands for: a record's full value is a point, a printed
    table cell the interval its last digit allows (``0.7485``: 0.74845 to 0.74855)."""

    def __init__(self, intervals: Iterable[tuple[float, float]] = ()):
        kept = sorted({(lo, hi) for lo, hi in intervals if math.isfinite(lo) and math.isfinite(hi)})
        self._low = np.array([lo for lo, _ in kept], dtype=float)
        self._high = np.array([hi for _, hi in kept], dtype=float)

    def __len__(self) -> int:
        return len(self._low)

    def __or__(self, other: Pool) -> Pool:
        return Pool([*zip(self._low, self._high), *zip(other._low, other._high)])

    def holds(self, typed: Typed) -> bool:
        """Whether a number of the pool, rounded to ``typed``'s decimals, can read ``typed`` — directly or, for a
        fraction (a number within ±1), as a percentage (×100) where ``typed`` is at least 1 or says ``%``. A full value exactly halfway (0.7485 for 0.748 or
        0.749) holds neither; a printed cell holds both of the numbers its interval can round to."""
        x, half = typed.value, typed.half
        direct = np.any((self._low < x + half) & (self._high > x - half))
        if typed.suffix or (abs(x) < 1 and not typed.percent):  # thousands or millions, or a fraction: not a percentage
            return bool(direct)
        low, high = np.maximum(self._low, -1.0), np.minimum(self._high, 1.0)  # the part of each number within ±1
        return bool(direct or np.any((low <= high) & (low * 100 < x + half) & (high * 100 > x - half)))


def _point(value) -> list[tuple[float, float]]:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return []
    return [(float(value), float(value))]


def _printed(cell: str) -> list[tuple[float, float]]:
    """The numbers of a printed table cell (``"0.7566 ± 0.0017"`` is two), each as the interval its last digit
    allows (a hair wider, so that a number on its edge rounds to either side); an integer is a point."""
    out = []
    for match in re.finditer(r"[-−]?\d+(?:\.(\d+))?(?:e[-+]?\d+)?", cell.replace(",", "")):
        value = float(match.group().replace("−", "-"))
        # an integer cell is a count, exact; a decimal one was rounded at its last digit
        half = 0.0 if "e" in match.group() or not match[1] else 0.5 * 10.0 ** -len(match[1]) * (1 + 1e-9)
        out.append((value - half, value + half))
    return out


def _numbers(obj) -> Iterator[tuple[float, float]]:
    if isinstance(obj, dict):
        for key, value in obj.items():
            yield from _numbers(value)
            if str(key).endswith("seconds") and isinstance(value, (int, float)) and not isinstance(value, bool):
                yield from _point(value / 60)  # in minutes, as the README's cost block prints it
    elif isinstance(obj, list):
        for value in obj:
            yield from _numbers(value)
    else:
        yield from _point(obj)


def file_numbers(path: Path) -> list[tuple[float, float]]:
    """The numbers of one results file (module docstring)."""
    if path.suffix == ".jsonl":
        groups: dict[tuple, list[float]] = defaultdict(list)
        out = []
        for line in path.read_text().splitlines():
            if line.strip():
                record = json.loads(line)
                key = tuple(record.get(k) for k in ("paper", "table", "dataset", "split", "method", "setting",
                                                    "metric", "variant"))
                groups[key].append(record["value"])
                out += _numbers(record.get("config", {}))
        for values in groups.values():
            out += [p for v in values for p in _point(v)] + _point(float(np.mean(values)))
            if len(values) > 1:
                out += _point(float(np.std(values, ddof=1)))
        return out
    if path.suffix == ".csv":
        import csv

        with path.open(newline="") as handle:
            return [p for row in csv.reader(handle) for cell in row for p in _printed(cell)]
    if path.name == "settings.json":  # the parameters each output was made with
        return [v for entry in json.loads(path.read_text()).values() for v in _numbers(entry.get("parameters", {}))]
    if path.suffix == ".json":
        return list(_numbers(json.loads(path.read_text())))
    return []


def paper_pool(papers: Iterable[str] | None = None) -> Pool:
    """The numbers of ``papers`` (default: all), as printed (``52.0``, ``4.8`` of ``4.8K``) and as values (0.52)."""
    from reproq.results.tables import paper_numbers

    numbers = paper_numbers()
    if papers is not None:
        numbers = numbers[numbers["paper"].isin(list(papers))]
    # a paper's number is quoted as printed: exact, not the interval its rounding allows
    printed = [float(m.replace(",", "")) for text in numbers["printed"] for m in re.findall(r"-?[\d,]*\.?\d+", text)]
    return Pool([p for v in [*numbers["value"], *printed] for p in _point(v)])


def report_pools(results_dir: Path) -> dict[str, Pool]:
    """What the report computes from the records, per notebook folder: its rows' gaps to the paper; under ``""``,
    the claims' differences and intervals, which every scope holds (:mod:`reproq.report.verdicts`)."""
    built = verdicts.build(results_dir)
    pools = {where: Pool(p for v in rows[["gap", "gap low", "gap high"]].to_numpy().ravel() for p in _point(float(v)))
             for where, rows in built.rows.groupby("where")}
    pools[""] = Pool(p for v in built.claims[["delta", "low", "high"]].to_numpy().ravel() for p in _point(float(v)))
    return pools


def papers_of(folder: Path) -> set[str]:
    """The papers whose records a results folder holds."""
    return {json.loads(line)["paper"] for path in Path(folder).glob("*.jsonl")
            for line in path.read_text().splitlines() if line.strip()}


def pool(folders: Iterable[Path]) -> Pool:
    """The numbers of every results file in ``folders`` (recursively), the executed notebooks kept there aside (their
    outputs are the runs' words, not records)."""
    return Pool(p for folder in folders for path in sorted(Path(folder).rglob("*"))
                if path.is_file() and path.suffix != ".ipynb" for p in file_numbers(path))


def notebook_markdown(path: Path) -> Iterator[tuple[str, str]]:
    """``(where, text)`` of each typed Markdown cell of a notebook (its reading cells are generated and checked
    whole: :mod:`reproq.report.readings`)."""
    cells = json.loads(Path(path).read_text())["cells"]
    for number, cell in enumerate(cells):
        if cell["cell_type"] == "markdown" and not readings.reading_of(cell):
            yield f"{Path(path).name}, cell {number}", "".join(cell["source"])


MENTION = re.compile(r"notebooks?\s+(\d\d(?:\s*(?:,|and|–|-|to)\s*\d\d)*)|(?:results|notebooks|figures)/(\d\d)_"
                     r"|`(\d\d)_\w+`|results/(bench)/")


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


def mentioned(text: str, folders: Iterable[str]) -> list[str]:
    """The results folders a paragraph names (``notebook 04``, ``notebooks 07 and 01``, ``notebooks 01–03``,
    ``results/04_trecqa_ctrn/…``, ``results/bench/``), by name."""
    numbers: set[str] = set()
    for match in MENTION.finditer(text):
        if match[1]:
            found = re.findall(r"\d\d", match[1])
            numbers.update(found)
            if re.search(r"\d\d\s*(?:–|-|to)\s*\d\d", match[1]):  # a range: 01–03
                numbers.update(f"{n:02d}" for n in range(int(found[0]), int(found[-1]) + 1))
        numbers.update(g for g in match.groups()[1:] if g)
    return sorted(f for f in folders if f.split("_")[0] in numbers)


def check(root: Path | None = None) -> list[Typed]:
    """Every typed decimal of the reader pages (the README, the guide's pages) and of the notebooks' Markdown that
    its scope does not hold (module docstring); empty when all are found."""
    root = Path(root or paths.ROOT)
    results = root / "results"
    computed = report_pools(results)
    folders = sorted(p.name for p in results.iterdir() if p.is_dir())
    papers, everything = paper_pool(), pool([results])
    for extra in computed.values():
        everything = everything | extra
    missing = []
    for page in guide.reader_pages(root):
        name = page.relative_to(root)
        for first, text in paragraphs(_outside_generated(page)):
            named = mentioned(text, folders)
            scope = everything if not named else pool([results / f for f in named]) | papers | computed[""]
            for file in re.findall(r"results/([\w.-]+\.json)\b", text):  # a study-wide file (pipeline_wall.json)
                if (results / file).is_file():
                    scope = scope | Pool(file_numbers(results / file))
            for f in named:
                scope = scope | computed.get(f, Pool())
            missing += [replace(t, where=f"{name}:{first + int(t.where) - 1}") for t in typed_numbers(text)
                        if not _theirs(t, papers, scope).holds(t)]
    for notebook in sorted((root / "notebooks").glob("*.ipynb")):
        folder = results / notebook.stem
        theirs = paper_pool(papers_of(folder))
        own = pool([folder]) | theirs | computed[""] | computed.get(notebook.stem, Pool())
        missing += [t for where, text in notebook_markdown(notebook) for t in typed_numbers(text, where)
                    if not _theirs(t, theirs, own).holds(t)]
    return missing


def _theirs(typed: Typed, papers: Pool, scope: Pool) -> Pool:
    """What can hold ``typed``: the numbers of the paper its sentence names where it is given as a paper's, else
    ``papers`` (the papers of its scope) for a paper's number, else its whole ``scope``."""
    if not typed.papers_own:
        return scope
    return paper_pool([typed.named]) if typed.named else papers

def _outside_generated(page: Path) -> str:
    """A reader page's text with its generated blocks blanked (their lines kept, so line numbers hold)."""
    return GENERATED.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), page.read_text())


def typed_results(root: Path | None = None) -> list[Typed]:
    """Every typed decimal of the reader pages (outside their generated blocks) and of the notebooks' typed Markdown
    that is not a number the papers print (exactly as printed, or as a percentage of one): a number that would describe
    this study's own results by hand. The study has none: its results are generated (reading cells, the pages' blocks),
    so that a changed digit fails a test; ``tests/test_prose.py`` prints the count."""
    root = Path(root or paths.ROOT)
    papers = paper_pool()
    typed = [replace(t, where=f"{page.relative_to(root)}:{t.where}") for page in guide.reader_pages(root)
             for t in typed_numbers(_outside_generated(page))]
    typed += [t for notebook in sorted((root / "notebooks").glob("*.ipynb"))
              for where, text in notebook_markdown(notebook) for t in typed_numbers(text, where)]
    return [t for t in typed if not papers.holds(t)]

