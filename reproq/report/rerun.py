"""A rerun of the study beside the committed one, record by record: every number the rerun wrote with the number the
study committed for it (pyserini's regressions are the model: each number with its expected value).

``reproq run`` writes into its run folder (:func:`reproq.paths.output_dirs`) and ends with :func:`compare` of the
notebooks it ran or found current there from a run before (a stopped run started again): per notebook, how many
records are **identical**, **within float rounding** (at most :data:`ROUNDING` apart, relative to the committed value:
another order of float sums), **moved** (with the largest moves beside the seeds' own spread, which says whether a
move matters), **missing** from the rerun, and **new** in it. A record is paired with the committed one of the same
notebook, file, keys, variant, seeds and data: a number on the synthetic stand-in is never paired with a real one.
What a verdict reads is compared, not the value alone: a record is identical only where its value and each question's
value (``per_question``, what the paired intervals resample) are, within float rounding only where both are within
:data:`ROUNDING` and finite (an infinity is never "within rounding" of a number), and moved otherwise (``per question
moved``: the largest |rerun − committed| of a question). :func:`page` writes it as a Markdown page and an HTML page in
the run folder.
"""

from __future__ import annotations

import html
import time
from pathlib import Path

import numpy as np
import pandas as pd

from reproq import atomic
from reproq.report.verdicts import load_records
from reproq.results import KEYS

ROUNDING = 1e-9  # relative: what another order of float sums moves, and nothing a printed digit shows
PAIRED = ["where", "file", *KEYS, "variant", "seeds", "synthetic"]
KINDS = ("identical", "within float rounding", "moved", "missing", "new")


def _frame(results_dir: Path, folders: list[str]) -> pd.DataFrame:
    records = [r for folder in folders for r in load_records(results_dir, folder)]
    frame = pd.DataFrame([{"where": r.config["where"], "file": r.config["file"], **{k: getattr(r, k) for k in KEYS},
                           "variant": r.variant, "seeds": tuple(r.seeds), "synthetic": r.synthetic, "value": r.value,
                           "per_question": tuple(r.per_question)} for r in records],
                         columns=[*PAIRED, "value", "per_question"])
    frame["nth"] = frame.groupby(PAIRED, dropna=False).cumcount()  # records that share every key pair in order
    return frame


def compare(committed_dir: Path, rerun_dir: Path, folders: list[str]) -> pd.DataFrame:
    """One row per record of the notebooks ``folders`` in either folder: its keys, the committed value, the rerun's,
    rerun − committed, and its kind (:data:`KINDS`)."""
    both = _frame(Path(committed_dir), folders).merge(_frame(Path(rerun_dir), folders), on=[*PAIRED, "nth"],
                                                      how="outer", suffixes=(" committed", " rerun"), indicator=True)
    both = both.rename(columns={"value committed": "committed", "value rerun": "rerun"})
    both["rerun - committed"] = both["rerun"] - both["committed"]
    gaps = [_question_gap(a, b) for a, b in zip(both["per_question committed"], both["per_question rerun"])]
    both["per question moved"] = [gap if gap else np.nan for gap in gaps]
    same = (both["rerun"].eq(both["committed"]) | (both["rerun"].isna() & both["committed"].isna())) & (
        np.array([gap == 0 for gap in gaps]))
    close = (both["rerun - committed"].abs() <= ROUNDING * np.maximum(1.0, both["committed"].abs())) & (
        np.array([gap <= ROUNDING for gap in gaps]))
    both["kind"] = np.select([both["_merge"] == "left_only", both["_merge"] == "right_only", same, close],
                             ["missing", "new", "identical", "within float rounding"], "moved")
    return both.drop(columns=["_merge", "nth", "per_question committed", "per_question rerun"])


def outputs(committed: tuple[Path, Path], rerun: tuple[Path, Path], folders: list[str]) -> pd.DataFrame:
    """Every table (``results/<notebook>/*.csv``) and figure (``figures/<notebook>/*.png``) of the notebooks
    ``folders`` in either study (each a ``(results_dir, figures_dir)``), and its kind: a table compared as data
    (identical, within float rounding: numbers at most :data:`ROUNDING` apart relatively and the rest equal, or moved),
    a figure by its bytes (identical or redrawn), else missing or new."""
    rows = []
    for folder in folders:
        for what, pattern, index in (("table", "*.csv", 0), ("figure", "*.png", 1)):
            here, there = Path(committed[index]) / folder, Path(rerun[index]) / folder
            names = sorted({p.name for side in (here, there) if side.is_dir() for p in side.glob(pattern)})
            for name in names:
                a, b = here / name, there / name
                kind = ("missing" if not b.is_file() else "new" if not a.is_file()
                        else _table_kind(a, b) if what == "table" else
                        "identical" if a.read_bytes() == b.read_bytes() else "redrawn")
                rows.append({"where": folder, "output": what, "file": name, "kind": kind})
    return pd.DataFrame(rows, columns=["where", "output", "file", "kind"])


def _table_kind(a: Path, b: Path) -> str:
    """Two CSV tables as data: identical, within float rounding, or moved (another shape, column or value)."""
    if a.read_bytes() == b.read_bytes():
        return "identical"
    x, y = pd.read_csv(a), pd.read_csv(b)
    if x.shape != y.shape or list(x.columns) != list(y.columns):
        return "moved"
    numbers = [c for c in x.columns if pd.api.types.is_numeric_dtype(x[c]) and pd.api.types.is_numeric_dtype(y[c])]
    others = [c for c in x.columns if c not in numbers]
    close = all(np.allclose(x[c].astype(float), y[c].astype(float), rtol=ROUNDING, atol=0, equal_nan=True)
                for c in numbers)
    return "within float rounding" if close and x[others].equals(y[others]) else "moved"


def _question_gap(committed, rerun) -> float:
    """The largest |rerun − committed| of one question's value (0 where both hold the same; inf where their questions
    differ in number or a value is not finite); 0 where a side is missing (the record is, which says so)."""
    if not isinstance(committed, tuple) or not isinstance(rerun, tuple) or committed == rerun:
        return 0.0
    a, b = np.asarray(committed, dtype=float), np.asarray(rerun, dtype=float)
    if a.shape != b.shape or not (np.isfinite(a).all() and np.isfinite(b).all()):
        return float("inf")
    return float(np.abs(b - a).max())


def counts(pairs: pd.DataFrame) -> pd.DataFrame:
    """Per notebook: how many records of each kind, and the largest |rerun − committed| of a moved one."""
    table = pd.crosstab(pairs["where"], pairs["kind"]).reindex(columns=list(KINDS), fill_value=0)
    moved = pairs[pairs["kind"] == "moved"]
    table["largest move"] = moved.groupby("where")["rerun - committed"].apply(lambda d: d.abs().max())
    return table.rename_axis(index="notebook", columns=None).reset_index()


def largest_moves(pairs: pd.DataFrame, n: int = 10) -> pd.DataFrame:
    """The ``n`` largest moves, each beside the committed seeds' own standard deviation for its keys (over the seeds
    of the same record with one seed each; empty where it has none): a move inside it is no finding."""
    committed = pairs[pairs["committed"].notna() & (pairs["seeds"].map(len) == 1)]
    keys = [k for k in PAIRED if k != "seeds"]
    sd = committed.groupby(keys, dropna=False)["committed"].std(ddof=1).rename("seeds' sd (committed)")
    moved = pairs[pairs["kind"] == "moved"].copy()
    moved["|move|"] = moved["rerun - committed"].astype(float).abs()  # float where none moved or none compared
    moved = moved.nlargest(n, "|move|").join(sd, on=keys)
    return moved[["where", "file", "method", "setting", "split", "metric", "seeds", "committed", "rerun",
                  "rerun - committed", "seeds' sd (committed)"]].rename(columns={"where": "notebook"})


def unwritten(pairs: pd.DataFrame) -> pd.DataFrame:
    """The committed files of which the rerun wrote no record, with their records' count: a whole file missing is
    one finding, not hundreds (a file that only an opt-in parameter writes, as notebook 04's ``PAPER_BUDGET``, is
    missing from a plain run: the notebook's Markdown names the parameter)."""
    by_file = pairs.assign(written=pairs["kind"] != "missing").groupby(["where", "file"])
    table = by_file.agg(records=("kind", "size"), written=("written", "any")).reset_index()
    return (table.loc[~table["written"], ["where", "file", "records"]].rename(columns={"where": "notebook"})
            .reset_index(drop=True))


def summary(pairs: pd.DataFrame) -> str:
    """One line: the records compared and how many of each kind."""
    total = pairs["kind"].value_counts()
    return (f"{len(pairs)} records compared with the committed study: "
            + ", ".join(f"{int(total.get(kind, 0))} {kind}" for kind in KINDS))


def _markdown(table: pd.DataFrame) -> str:
    """``table`` as Markdown, a number in 6 significant digits, a cell without one blank (tabulate blanks None only)."""
    return table.astype(object).where(table.notna(), None).to_markdown(index=False, floatfmt=".6g", missingval="")


def against(committed_dir: Path, folders: list[str], *, machine: str, commit: str) -> str:
    """What a comparison compares: the committed records (the commits and machines they ran at, and when their
    notebooks last finished, from ``pipeline_cost.json`` beside them) with this run (its commit and machine), and
    when."""
    records = [r for folder in folders for r in load_records(Path(committed_dir), folder)]
    commits = sorted({r.code_version for r in records if r.code_version})
    machines = sorted({r.machine for r in records if r.machine})
    cost = atomic.read_json(Path(committed_dir) / "pipeline_cost.json", otherwise="no time for the committed runs")
    finished = [str(entry.get("finished", "")) for name, entry in (cost.items() if isinstance(cost, dict) else ())
                if name in folders and isinstance(entry, dict)]
    return (f"The {len(records)} committed records of {Path(committed_dir).name}/ (run at {', '.join(commits) or '?'}"
            f" on {'; '.join(machines) or 'a machine not recorded'}"
            + (f", their notebooks last finished {max(finished)}" if any(finished) else "")
            + f") beside this run (at {commit} on {machine}), compared {time.strftime('%Y-%m-%d %H:%M %Z')}")


STYLE = ("body {font-family: system-ui, sans-serif; max-width: 110em; margin: 2em auto; padding: 0 1em; color: #222}"
         " table {border-collapse: collapse; margin: .5em 0 1.5em} td, th {padding: .2rem .45rem;"
         " border-bottom: 1px solid #ddd; text-align: right} th {background: #f3f3f3} tr:hover td {background: #fafafa}"
         " p.against {color: #555}")


def page(pairs: pd.DataFrame, run_dir: Path, *, title: str, said: str = "",
         written: pd.DataFrame | None = None) -> tuple[Path, Path]:
    """Write the comparison as ``comparison.md`` and ``comparison.html`` in ``run_dir``: what it compares
    (``said``: :func:`against`), the summary line, the counts per notebook, the files the rerun did not write, the
    largest moves, every record that moved, is missing or is new, and every table and figure (``written``:
    :func:`outputs`) that is not identical."""
    shown = {"per notebook": counts(pairs), "files the rerun did not write": unwritten(pairs),
             "largest moves": largest_moves(pairs),
             "every record not identical": pairs[pairs["kind"] != "identical"].drop(columns=["where"])}
    if written is not None:
        shown["every table and figure not identical"] = written[written["kind"] != "identical"]
    markdown = f"# {title}\n\n" + (f"{said}.\n\n" if said else "") + f"{summary(pairs)}.\n\n" + "".join(
        f"## {name}\n\n{_markdown(table) if len(table) else '(none)'}\n\n"
        for name, table in shown.items())
    body = "".join(f"<h2>{html.escape(name)}</h2>" + (
        table.to_html(index=False, na_rep="", float_format=lambda v: f"{v:.6g}") if len(table) else "<p>(none)</p>")
        for name, table in shown.items())
    page_html = (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
                 f"<style>{STYLE}</style></head><body><h1>{html.escape(title)}</h1>"
                 + (f"<p class='against'>{html.escape(said)}.</p>" if said else "")
                 + f"<p>{html.escape(summary(pairs))}.</p>{body}</body></html>\n")
    md, htm = Path(run_dir) / "comparison.md", Path(run_dir) / "comparison.html"
    atomic.write_text(md, markdown)
    atomic.write_text(htm, page_html)
    return md, htm
