"""What the report says of one item of a paper (a table or a result figure) on the papers' pages
(:mod:`reproq.report.pages`, on GitHub and in the book): the sentence that counts
its rows and verdicts, the notes on rows not on real data, the paper-shaped tables its notebooks wrote, and which
figure shows a PNG that draws several.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from reproq.papers import PAPERS
from reproq.report import verdicts
from reproq.results.records import KEYS


def tally(rows: pd.DataFrame, paper_rows: int) -> str:
    """The sentence that opens an item: the paper's rows as the scope table counts them (``paper_rows``:
    :func:`reproq.report.scope.scope_table`), its numbers, and the verdicts of ours (a line per number and variant of
    ours, :func:`reproq.report.verdicts.table_rows`): ``"The paper's 8 rows, 16 numbers: 16 not built."``"""
    numbers = len(rows.drop_duplicates(KEYS))
    variants = f" ({len(rows)} with our variants)" if len(rows) > numbers else ""
    verdict_counts = ", ".join(f"{n} {v}" for v, n in rows.verdict.value_counts().items())
    return f"The paper's {_count(paper_rows, 'row')}, {_count(numbers, 'number')}{variants}: {verdict_counts}."


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def notes(rows: pd.DataFrame) -> list[str]:
    """Sentences on an item's rows beside the verdicts: those that print another table's runs again (counted there),
    and why rows are not on real data or not comparable (:func:`reproq.report.verdicts.why`, the paper's
    ``not_comparable``): ``"Not on real data: ours on qatarliving dev, the paper's on qatarliving test."``"""
    said = []
    again = sorted({PAPERS[p].same_as[(t, m)][0] for p, t, m in zip(rows.paper, rows.table, rows.method)
                    if (t, m) in PAPERS[p].same_as})
    if again:
        said.append(f"Rows that print {', '.join(again)}'s runs again count there, not here.")
    under = sorted({PAPERS[p].counted_under[(t, m)] for p, t, m in zip(rows.paper, rows.table, rows.method)
                    if (t, m) in PAPERS[p].counted_under})
    if under:
        said.append(f"Rows whose numbers of ours are {', '.join(under)}'s count there, not here.")
    for label, part in (("Not on real data", rows[rows.data != "real"]),
                        ("Not comparable", rows[rows.verdict == "not comparable"])):
        reasons = [r for r in dict.fromkeys(part.why) if r]
        if reasons:
            said.append(f"{label}: " + "; ".join(reasons) + ".")
    return said


def shaped_table(results_dir: Path, where: str, file: str) -> Path | None:
    """The paper-shaped Markdown table notebook ``where`` wrote beside its records ``file`` (``<file>.md``, or
    ``<file>__synthetic.md`` on the stand-in), or None where it wrote none."""
    found = [Path(results_dir) / where / f"{file}{suffix}.md" for suffix in ("", "__synthetic")]
    return next((path for path in found if where and path.is_file()), None)


def shaped_tables(built: verdicts.Report, paper: str, item: str) -> list[Path]:
    """Every paper-shaped table (:func:`shaped_table`) of the files that hold ``paper``'s ``item``'s records, in the
    notebooks' order: also those whose records join none of the paper's rows (Tay et al.'s Table 5 on QatarLiving
    dev), which the verdicts cannot show."""
    files = dict.fromkeys((r.config["where"], r.config["file"]) for r in built.records
                          if r.paper == paper and r.table == item)
    return [table for where, file in sorted(files) if (table := shaped_table(built.results_dir, where, file))]


def first_shown(figures: pd.DataFrame) -> dict[str, str]:
    """Each PNG of :func:`reproq.report.verdicts.figure_rows` -> the first figure of its paper that it draws: it is
    shown there, and the others point to it (Smolyakov & Srikant's Figures 12–14 are one file)."""
    first: dict[str, str] = {}
    for figure in figures.itertuples():
        for png in figure.files:
            first.setdefault(png, figure.figure)
    return first
