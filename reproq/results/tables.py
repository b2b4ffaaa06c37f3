"""The papers' numbers, and tables that put ours beside them.

:func:`compare` joins records (:class:`~reproq.results.records.Record`) with ``paper_numbers.csv`` in long form (one
row per number: the CSV in ``results/``); :func:`paper_layout` pivots that into the shape of the paper's
table (one row per method, one column per split and metric, the paper's number beside ours: the Markdown
in ``results/``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from reproq import paths
from reproq.results.records import KEYS, Record, summarize

RATIO_METRIC = re.compile(r"^(MAP|MRR|P@\d+|Accuracy@\d+|AUC.*)$")
REPRODUCED, SYNTHETIC = "reproduced", "synthetic (not a reproduction)"


SCALE = {"K": 1e3, "M": 1e6}  # a number printed in thousands or millions: 4.8K, 1.05M


def paper_value(raw: str) -> float:
    """A paper's printed number as a float: ``'423K'`` → 423000.0, ``'1.05M'`` → 1050000.0, ``'N/A'`` → nan."""
    text = str(raw).strip()
    scale = SCALE.get(text[-1:], 1.0)
    try:
        return float(text[:-1] if scale != 1.0 else text) * scale
    except ValueError:
        return float("nan")


def paper_numbers(paper: str | None = None, table: str | None = None) -> pd.DataFrame:
    """The papers' tables (the project's copy of ``paper_numbers.csv``), with a numeric ``value``.

    ``printed`` keeps the text as printed; ``value`` is a float, ratio metrics as fractions.
    """
    df = printed_numbers()
    df["printed"] = df["value"]
    df["value"] = df["printed"].map(paper_value)
    percent = df["paper"].isin(percent_papers()) & df["metric"].str.match(RATIO_METRIC)
    df.loc[percent, "value"] = df.loc[percent, "value"] / 100.0
    if paper is not None:
        df = df[df["paper"] == paper]
    if table is not None:
        df = df[df["table"] == table]
    return df.drop(columns=["seed_file"]).reset_index(drop=True)


def numbers_files() -> tuple[Path, ...]:
    """Where the papers' numbers are: the source papers' table (``reproq/paper_numbers.csv``) and, for any other
    paper, the table beside its module (``reproq/papers/<key>_numbers.csv``, the same columns)."""
    return (paths.PAPER_NUMBERS_CSV, *sorted((paths.PAPER_NUMBERS_CSV.parent / "papers").glob("*_numbers.csv")))


def printed_numbers() -> pd.DataFrame:
    """Every paper's numbers as printed (text), from :func:`numbers_files`."""
    return _printed_numbers(numbers_files()).copy()


@functools.cache
def _printed_numbers(files: tuple[Path, ...]) -> pd.DataFrame:
    return pd.concat([pd.read_csv(f, dtype=str, keep_default_na=False) for f in files], ignore_index=True)


def percent_papers() -> frozenset[str]:
    """The papers that print ratio metrics (MAP, MRR, P@k, AUC) as percentages: those with a printed one above 1
    (Lei et al.'s MAP 56.0; Tay et al. print 0.838), read from the numbers, so that a new paper needs no list."""
    return _percent_papers(numbers_files())


@functools.cache  # asked for every number the report prints
def _percent_papers(files: tuple[Path, ...]) -> frozenset[str]:
    ratios = _printed_numbers(files)
    ratios = ratios[ratios["metric"].str.match(RATIO_METRIC)]
    return frozenset(ratios.loc[ratios["value"].map(paper_value) > 1, "paper"])


def compare(records: Sequence[Record], *, scale: float = 1.0) -> pd.DataFrame:
    """The reproduced numbers next to the papers' numbers, with the gap.

    One row per record group; ``in paper`` is NaN where the paper has no such number. The reproduced
    column is headed ``reproduced`` for real data and ``synthetic (not a reproduction)`` otherwise, so a
    synthetic number never sits under a heading that calls it a reproduction. ``scale=100`` shows
    ratio metrics as percentages, the way Lei et al. print them.
    """
    ours = summarize(records)
    theirs = paper_numbers()[KEYS + ["value"]].rename(columns={"value": "paper_value"})
    table = ours.merge(theirs, on=KEYS, how="left")
    ratio = table["metric"].str.match(RATIO_METRIC)
    for column in ("mean", "std", "paper_value"):
        table[column] = table[column].where(~ratio, table[column] * scale)
    table["delta"] = table["mean"] - table["paper_value"]
    synthetic = bool(table["synthetic"].any())
    label = SYNTHETIC if synthetic else REPRODUCED
    table = table.rename(columns={"mean": label, "paper_value": "in paper"})
    if synthetic:  # a gap to the paper means nothing on synthetic data
        table = table.drop(columns=["delta", "in paper"])
    return table.drop(columns=["synthetic"])


def format_table(table: pd.DataFrame, *, decimals: int = 1) -> pd.DataFrame:
    """Round numbers for display and print ``mean ± std`` where several seeds stand behind a number."""
    shown = table.copy()
    value_col = REPRODUCED if REPRODUCED in shown else SYNTHETIC
    if value_col in shown:
        shown[value_col] = [
            f"{m:.{decimals}f}" + (f" ± {s:.{decimals}f}" if n > 1 and s == s else "")
            for m, s, n in zip(shown[value_col], shown["std"], shown["n"])
        ]
        shown = shown.drop(columns=["std"])
    return shown.round(decimals)


def seeds_note(records: Sequence[Record]) -> str:
    """What a table's ``±`` means, from its records: one seed per row, the same number of seeds everywhere, or each
    row's own (its ``n``).

    >>> rs = [Record("p", "T", "d", "s", m, "-", "MAP", 0.5, seeds=(s,)) for m, s in (("A", 1), ("A", 2), ("B", 1))]
    >>> seeds_note(rs[2:]), seeds_note(rs[:2]), seeds_note(rs)
    ('One seed per row: no spread.', 'Mean ± std over 2 seeds.', 'Mean ± std over the seeds of each row (n); a row of one seed has no spread.')
    """
    counts = set(summarize(records)["n"]) if records else set()
    if counts <= {1}:
        return "One seed per row: no spread."
    if len(counts) == 1:
        return f"Mean ± std over {counts.pop()} seeds."
    return "Mean ± std over the seeds of each row (n); a row of one seed has no spread."


def side_by_side(table: pd.DataFrame) -> pd.DataFrame:
    """A compact view of a :func:`compare` table for reading: one row per method (and whatever else varies),
    one column per (split, metric), the paper's number under the reproduced one. Key columns that are the
    same on every row are left out."""
    value = REPRODUCED if REPRODUCED in table else SYNTHETIC
    shown = [value] + (["in paper"] if "in paper" in table else [])
    rows = [c for c in KEYS + ["variant"] if c not in ("split", "metric") and table[c].nunique() > 1]
    columns = [c for c in ("split", "metric") if table[c].nunique() > 1] or ["metric"]
    return table.pivot_table(index=rows or ["method"], columns=columns, values=shown, aggfunc="first", sort=False)


def paper_layout(table: pd.DataFrame) -> pd.DataFrame:
    """:func:`side_by_side` flattened for Markdown: columns ``"<split> <metric>"`` with the paper's number in
    ``"<split> <metric> (paper)"`` right after ours, key columns first."""
    value = REPRODUCED if REPRODUCED in table else SYNTHETIC
    wide = side_by_side(table)
    levels = wide.columns.nlevels
    keys = list(dict.fromkeys(c[1:] for c in wide.columns))  # (split, metric) or (metric,), in table order
    ordered = [(v, *k) for k in keys for v in (value, "in paper") if (v, *k) in wide.columns]
    wide = wide[ordered]
    wide.columns = [" ".join(str(p) for p in c[1:levels]) + ("" if c[0] == value else " (paper)") for c in ordered]
    return wide.astype(object).where(wide.notna(), "").reset_index()  # no "nan" where a paper has no number


def inert(text: str) -> str:
    """``text`` (from a record, a results table, a file name) as Markdown that opens no HTML tag on GitHub or in the
    book: every ``<`` written as ``&lt;``, which both show as ``<``.

    >>> inert('<a href="javascript:alert(1)">x</a> < 5')
    '&lt;a href="javascript:alert(1)">x&lt;/a> &lt; 5'
    """
    return text.replace("<", "&lt;")


def markdown(table: pd.DataFrame) -> str:
    """``table`` as a Markdown table (tabulate's, numbers aligned right) the way a reader reads it: a missing value
    blank, never ``nan`` or ``None``; a truth value yes or no; no minus sign on a zero; no HTML tag (:func:`inert`).

    >>> print(markdown(pd.DataFrame({"MAP": [0.5, float("nan"), -0.0], "tied": [True, False, None]})))
    |   MAP | tied   |
    |------:|:-------|
    |   0.5 | yes    |
    |       | no     |
    |   0   |        |
    """
    shown = table.copy()
    for column in shown.columns:
        given = shown[column].dropna()
        if len(given) and given.map(lambda v: isinstance(v, bool)).all():  # a bool column, with gaps or without
            shown[column] = shown[column].map({True: "yes", False: "no"})
        elif pd.api.types.is_float_dtype(shown[column]):
            shown[column] = shown[column] + 0.0  # -0.0 is 0
        else:  # text from a record or a configuration opens no HTML tag where the table is shown
            shown[column] = shown[column].map(lambda v: inert(v) if isinstance(v, str) else v)
    return shown.astype(object).where(shown.notna(), None).to_markdown(index=False, missingval="")
