"""What this study covers: every table and result figure of the five papers, generated from data.

Tables and their rows come from ``paper_numbers.csv``; coverage and status come from the records
under ``results/<notebook>/*.jsonl``. The only hand-written lists are the papers' result figures
(:mod:`reproq.papers`). Whether a number *reproduces* the paper is not decided here; what kind of number it is (a
result of training, a data count, a configuration: each paper's ``kinds``) decides what covering it means.

Longer than most modules here: the scope table and the tables made from the same rows (the papers', the costs', the
threads') are generated together with the blocks of the README and the guide they replace.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd

from reproq import notebook_schedule, paths
from reproq.atomic import write_text
from reproq.papers import PAPERS
from reproq.papers.paper import DATA, GIVEN, QUOTED, RESULT
from reproq.peak_memory import KEPT_PEAK
from reproq.report import guide
from reproq.results import records
from reproq.results.tables import printed_numbers

ROW_KEYS = ["dataset", "split", "method", "setting"]
# What covers a number of a paper, by its kind and our records (:func:`coverage`); an item's status is the first of
# these that one of its numbers has
TRAINED, EVALUATED, SETTINGS = "trained or run on real data", "evaluated on real data", "sizes and settings"
STAND_IN, NOT_BUILT = "synthetic stand-in only", "not built"
STATUSES = (TRAINED, EVALUATED, SETTINGS, STAND_IN, NOT_BUILT, "quoted only")
# Figures that show a result: all but architecture diagrams and worked examples (each paper's ``figures``).
# Dataset-statistics and training-setting plots stay, like their table counterparts in paper_numbers.csv (Lei Tables
# 1 and 3, Smolyakov Table 2).
FIGURES = tuple((paper.key, item, what) for paper in PAPERS.values() for item, what in paper.figures)


def read_records(results_dir: Path) -> pd.DataFrame:
    """All records under ``results_dir/<notebook>/*.jsonl``, with the notebook folder as ``where``, read as every
    reader reads them (:func:`reproq.results.records.read_records`: a malformed record or a file that is not a
    regular one is one line naming it)."""
    columns = ["paper", "table", *ROW_KEYS, "metric", "synthetic"]
    rows = [{**{k: getattr(r, k) for k in columns}, "where": path.parent.name}
            for path in sorted(results_dir.glob("*/*.jsonl")) for r in records.read_records(path)]
    return pd.DataFrame(rows, columns=[*columns, "where"])


def coverage(kind: str, synthetic: pd.Series) -> str:
    """What covers one number of a paper of ``kind``, from the ``synthetic`` flags of our records of it: a quoted
    baseline is *quoted* whatever we ran; without a record it is *not built*, with synthetic ones only *synthetic
    stand-in only*; on real data a result is *trained or run on real data*, a re-scoring of shipped scores or a data
    count *evaluated on real data*, a model size or a configuration *sizes and settings* (no data in it).

    >>> coverage(RESULT, pd.Series([True, False])), coverage(DATA, pd.Series([False])), coverage(RESULT, pd.Series([True]))
    ('trained or run on real data', 'evaluated on real data', 'synthetic stand-in only')
    """
    if kind == QUOTED:
        return "quoted"
    if synthetic.empty:
        return NOT_BUILT
    if synthetic.astype(bool).all():
        return STAND_IN
    return TRAINED if kind == RESULT else EVALUATED if kind in (GIVEN, DATA) else SETTINGS


def status(covered: pd.Series) -> str:
    """An item's one status: the first of :data:`STATUSES` that one of its numbers' :func:`coverage` has (for a
    figure, which has no numbers, its records' coverage as a result)."""
    said = set(covered)
    return next((s for s in STATUSES if s in said), "quoted only" if "quoted" in said else NOT_BUILT)


def elsewhere(wanted: pd.DataFrame, mine: pd.DataFrame) -> str:
    """Where an item's records are when none of them joins one of the paper's rows (``wanted``), as one phrase that
    the scope table and the report both print: ``"ours on qatarliving dev, the paper's on qatarliving test"`` (Tay et
    al.'s Table 5: the test threads cannot be had); blank where a record joins, or where there is none."""
    if mine.empty or wanted.empty or len(wanted.merge(mine[ROW_KEYS], on=ROW_KEYS)):
        return ""

    def on(frame: pd.DataFrame) -> str:
        splits = frame.groupby("dataset", sort=True)["split"].agg(lambda s: " and ".join(sorted(set(s))))
        return "; ".join(f"{dataset} {split}" for dataset, split in splits.items())

    return f"ours on {on(mine)}, the paper's on {on(wanted)}"


def item_order(paper: str, item: str) -> tuple[int, int, int]:
    """Where ``paper``'s ``item`` ("Table 2", "Figure 3") comes: papers in :data:`PAPERS` order, then tables before
    figures, by number."""
    kind, number = re.fullmatch(r"(Table|Figure) (\d+)", item).groups()
    return list(PAPERS).index(paper), kind == "Figure", int(number)


def scope_table(results_dir: Path | None = None, numbers_csv: Path | None = None) -> pd.DataFrame:
    """One row per (paper, table or result figure), in the papers' order.

    Parameters
    ----------
    results_dir : Path, optional
        Folder of notebook result folders (default ``paths.ROOT / "results"``).
    numbers_csv : Path, optional
        The papers' numbers (default: every paper's, :func:`reproq.results.tables.printed_numbers`).

    Returns
    -------
    pandas.DataFrame
        Columns ``paper``, ``item``, ``paper rows`` (distinct dataset/split/method/setting rows of
        the item in the CSV, blank where it has none), ``rows covered`` (those with a record with
        the same keys), ``real rows`` (those with a non-synthetic one), ``status`` (:func:`status` of the
        :func:`coverage` of each of the paper's numbers by the records that join it, of all the item's records where
        it has none: the report's verdicts count the same rows), ``covered by`` (how many of its numbers each
        coverage has), ``elsewhere`` (:func:`elsewhere`) and ``where`` (the results/ folders holding the item's
        records).
    """
    from reproq.papers.real_substitute import TABLE as SUBSTITUTE  # a paper's networks on SemEval-2016 3B: no item of it

    records = read_records(results_dir or paths.ROOT / "results")
    records = records[records.table != SUBSTITUTE]
    numbers = pd.read_csv(numbers_csv, dtype=str, keep_default_na=False) if numbers_csv else printed_numbers()
    found = [*zip(numbers.paper, numbers.table), *zip(records.paper, records.table)]
    items = {(paper, item) for paper, item in found + [f[:2] for f in FIGURES] if paper in PAPERS}
    rows = []
    for paper, item in sorted(items, key=lambda pi: item_order(*pi)):
        mine = records[(records.paper == paper) & (records.table == item)]
        theirs = numbers[(numbers.paper == paper) & (numbers.table == item)][ROW_KEYS + ["metric"]].drop_duplicates()
        wanted = theirs[ROW_KEYS].drop_duplicates()
        hits = wanted.merge(mine[ROW_KEYS + ["synthetic"]], on=ROW_KEYS)
        counts = [len(wanted), len(hits[ROW_KEYS].drop_duplicates()),
                  len(hits[~hits.synthetic.astype(bool)][ROW_KEYS].drop_duplicates())]
        keys = ROW_KEYS + ["metric"]
        covered = pd.Series([coverage(PAPERS[paper].kind(item, number.method, number.metric),
                                      mine.synthetic[(mine[keys] == number[keys]).all(axis=1)])
                             for _, number in theirs.iterrows()] if len(theirs) else
                            [coverage(RESULT, mine.synthetic)], dtype=object)
        # a figure that draws the paper's own settings (the report: "as specified") is a setting, not a result
        said = SETTINGS if item in PAPERS[paper].as_specified and len(mine) else status(covered)
        rows.append([paper, item, *(counts if len(wanted) else [None] * 3), said,
                     covered.value_counts().to_dict() if len(theirs) else {}, elsewhere(wanted, mine),
                     ", ".join(sorted(set(mine["where"])))])
    counted = ["paper rows", "rows covered", "real rows"]
    return pd.DataFrame(rows, columns=["paper", "item", *counted, "status", "covered by", "elsewhere", "where"]).astype(
        {c: "Int64" for c in counted})


def beyond_the_papers(results_dir: Path | None = None) -> dict[str, list[str]]:
    """Tables of records that are beyond the papers (paper ``"reproq"``) -> their notebook folders."""
    records = read_records(results_dir or paths.ROOT / "results")
    beyond = records[~records.paper.isin(list(PAPERS))]
    return {table: sorted(set(group["where"])) for table, group in beyond.groupby("table")}


def scope_markdown(table: pd.DataFrame, beyond: dict[str, list[str]] | None = None) -> str:
    """The scope table as Markdown for a README, headed by a line on how it is made.

    ``beyond`` (from :func:`beyond_the_papers`) adds one line under the table.
    """
    header = ("Generated by `reproq scope --write` (`reproq/report/scope.py`) from the records in `results/`. Status, "
              "the first that one of the item's numbers has, by what kind of number it is (each paper's module says): "
              f"*{TRAINED}* (a result of ours on real data), *{EVALUATED}* (the authors' shipped scores re-scored, "
              f"a data count), *{SETTINGS}* (a parameter count or a configuration: no data in it), *{STAND_IN}*, "
              f"*{NOT_BUILT}*; a baseline the paper quotes from another paper covers nothing. Only the records that "
              "join one of the paper's numbers count (where none joins, the status says where ours are instead); "
              "*covered* counts the paper's rows with at least one record, *real* those with a non-synthetic one. "
              "Whether a number reproduces is not judged here.")
    names = {"paper rows": "rows", "rows covered": "covered", "real rows": "real"}
    shown = table.assign(status=[_said(s, e) for s, e in zip(table.status, table.elsewhere)])
    shown = shown.drop(columns=["elsewhere", "covered by"]).rename(columns=names)
    cells = [[("" if pd.isna(v) else str(v)) for v in row] for row in shown.itertuples(index=False)]
    lines = [header, "", "| " + " | ".join(shown.columns) + " |", "|" + "---|" * len(shown.columns)]
    lines += ["| " + " | ".join(row) + " |" for row in cells]
    if beyond:
        listed = "; ".join(f"{table} ({', '.join(where)})" for table, where in beyond.items())
        lines += ["", f"Beyond the papers: {listed}"]
    return "\n".join(lines) + "\n"


def _said(status: str, elsewhere: str) -> str:
    """A status with :func:`elsewhere`'s phrase, where it has one: ``"not built (ours on qatarliving dev, …)"``."""
    return f"{status} ({elsewhere})" if elsewhere else status


def _items(items: list[tuple[str, str]]) -> str:
    """``[("Table 1", ""), ("Table 2", " (8 of 88)"), ("Figure 3", "")]`` -> ``"Tables 1, 2 (8 of 88), Figure 3"``."""
    parts = []
    for kind in ("Table", "Figure"):
        numbers = [i.split()[1] + said for i, said in items if i.startswith(kind)]
        if numbers:
            parts.append(f"{kind}{'s' if len(numbers) > 1 else ''} {', '.join(numbers)}")
    return ", ".join(parts)


PAPERS_COLUMNS = {TRAINED: "trained or run here on real data", EVALUATED: "evaluated on real data (shipped scores, "
                  "data counts)", SETTINGS: "sizes and settings", STAND_IN: "on the synthetic stand-in only",
                  NOT_BUILT: "not built"}


SUBSTITUTE_COLUMN = "tested on a real substitute (SemEval-2016 3B; never a reproduction)"


def papers_markdown(table: pd.DataFrame, results_dir: Path | None = None) -> str:
    """The README's opening table: per paper, its citation, what it has (:mod:`reproq.papers`), and what the study
    built of it: each item under every coverage that some of its numbers have (the scope table's ``covered by``,
    ``"Table 2 (8 of 88)"`` where not all of them), a figure under its status; and what of its networks and claims
    was tested on the real substitute (:func:`reproq.papers.real_substitute.coverage` of the records in
    ``results_dir``)."""
    from reproq.papers import real_substitute
    from reproq.results.records import read_records as records_of

    report = notebook_schedule.report_notebook().stem  # the folder of the papers' pages
    substitute = real_substitute.coverage([r for path in sorted((results_dir or paths.ROOT / "results").glob("*/*.jsonl"))
                                           for r in records_of(path)])
    lines = ["Generated by `reproq scope --write` from the records in `results/` (the scope table below, item by "
             "item): each table under every coverage some of its numbers have, with how many where not all (a "
             "baseline the paper quotes from another paper counts in none); each paper's page has its every table "
             "and figure beside ours, with a verdict per row.", "",
             "| paper | what it has | " + " | ".join(PAPERS_COLUMNS.values()) + f" | {SUBSTITUTE_COLUMN} | page |",
             "|---|---|" + "---|" * len(PAPERS_COLUMNS) + "---|---|"]
    for key, paper in PAPERS.items():
        mine = table[table.paper == key]
        cells = [_said(_covered(mine, column), "; ".join(f"{i}: {e}" for i, e, s in zip(mine.item, mine.elsewhere,
                                                                                         mine.status)
                                                         if e and s == column)) or "—"
                 for column in PAPERS_COLUMNS]
        page = f"[{key}](results/{report}/{key}.md)"
        lines.append(f"| {paper.citation} | {paper.has} | " + " | ".join(cells)
                     + f" | {substitute.get(key, '—')} | {page} |")
    return "\n".join(lines) + "\n"


def _covered(items: pd.DataFrame, coverage: str) -> str:
    """The items of one paper (scope table rows) that ``coverage`` covers in part or whole, as the papers' table lists
    them: ``"Tables 1 (6 of 11), 3, Figure 3"``."""
    parts = []
    for item, status, covered in zip(items.item, items.status, items["covered by"]):
        numbers = {c: n for c, n in covered.items() if c != "quoted"}
        if numbers.get(coverage) or (not numbers and status == coverage):
            n, of = numbers.get(coverage, 0), sum(numbers.values())
            parts.append((item, f" ({n} of {of})" if numbers and n < of else ""))
    return _items(parts)


def cost_markdown(cost_path: Path | None = None) -> str:
    """The cost of each notebook's last ``reproq run`` (``results/pipeline_cost.json``, which the runner writes) as
    Markdown for a README: wall minutes, peak memory of the kernel, threads, the load around it, the machine."""
    path = Path(cost_path or paths.ROOT / "results" / "pipeline_cost.json")
    entries = json.loads(path.read_text()) if path.is_file() else {}
    lines = [f"Generated by `reproq scope --write` from `{path.name}`, which `reproq run` updates for every notebook it "
             "runs (`cpu` profile); a notebook not listed has not been run by a runner that records its cost yet.",
             "", "| notebook | minutes | peak memory (GB) | threads | load before → after (1 min) | CPU | code |",
             "|---|---|---|---|---|---|---|"]
    sampled = [name for name, c in entries.items() if c.get("peak_memory_read") != KEPT_PEAK]
    for name, c in entries.items():
        peak = f"{c['peak_memory_mb'] / 1024:.1f}" + ("*" if name in sampled else "")
        lines.append(f"| `{name}` | {c['seconds'] / 60:.1f} | {peak} | {c['threads']} | "
                     f"{c['load_average_before'][0]:.1f} → {c['load_average_after'][0]:.1f} | {c['cpu']} "
                     f"({c['cores']} cores) | {c['code_version']} |")
    if len(entries) > 1:  # memory is not summed: the largest kernel
        lines.append(f"| all {len(entries)}, summed | {sum(c['seconds'] for c in entries.values()) / 60:.1f} | "
                     f"{max(c['peak_memory_mb'] for c in entries.values()) / 1024:.1f} (largest) | | | | |")
    if sampled:
        lines += ["", "\\* the kernel's memory sampled every half second (a runner before the peak kept by the "
                  "system was read): a shorter peak between two looks is missed."]
    wall_path = path.with_name("pipeline_wall.json")
    walls = json.loads(wall_path.read_text()) if wall_path.is_file() else {}
    lines += ["", f"Whole runs of every notebook, start to end (`{wall_path.name}`, written by `reproq run` when it "
              "ran them all)" + (":" if walls else ": none recorded yet.")]
    lines += [f"- {_whole_run(w)}" for w in walls.values()]
    return "\n".join(lines) + "\n"


def threads_markdown(bench_path: Path | None = None) -> str:
    """What a second thread costs and buys (``reproq bench threads``'s file) as Markdown for a README: each setting's
    time per training step relative to one thread alone, and the machine it was measured on."""
    path = Path(bench_path or paths.ROOT / "results" / "bench" / "threads_1thread.json")
    if not path.is_file():
        return f"No `{path.name}` yet: `reproq bench threads` measures it.\n"
    bench = json.loads(path.read_text())
    rows = pd.DataFrame(bench["rows"])
    alone = rows.query("threads == 1 and competitor == 'none'")["seconds_per_step"].iat[0]
    beside = {"none": "alone", "a busy core": "beside a busy core", "a twin": "beside its twin"}
    said = "; ".join(f"{t} thread{'s' if t > 1 else ''} {beside.get(c, c)}: {sec / alone:.2f}×"
                     for t, c, sec in rows[["threads", "competitor", "seconds_per_step"]].itertuples(index=False))
    return (f"Generated by `reproq scope --write` from `results/bench/{path.name}` ({bench['what']}; {bench['cpu']}, "
            f"{bench['cores']} cores, code {bench['code_version']}; a twin is the same step at one thread in another "
            f"process, as two notebooks side by side): the time of a step relative to one thread alone — {said}.\n")


def _whole_run(wall: dict) -> str:
    """One whole run's line: how many notebooks at a time, the minutes, the machine, the load, the code."""
    how = "one after another" if wall["jobs"] == 1 else f"{wall['jobs']} at a time"
    summed = f" (their own times summed: {wall['notebook_seconds'] / 60:.1f} min)" if "notebook_seconds" in wall else ""
    return (f"{how}: {wall['seconds'] / 60:.1f} min for {wall['notebooks']} notebooks{summed}, {wall['threads']} "
            f"thread(s) each, {wall['cpu']} ({wall['cores']} cores), load {wall['load_average_before'][0]:.1f} before, "
            f"code {wall['code_version']}, finished {wall['finished']}")


def summary(table: pd.DataFrame) -> str:
    """One line per paper: how many of its tables and figures have each status, and where its page is (what
    ``reproq scope`` prints; the tables themselves go to a file).

    >>> print(summary(pd.DataFrame({"paper": ["p", "p", "q"], "status": [TRAINED, STAND_IN, STAND_IN]})))
    p: 2 tables and figures: 1 trained or run on real data, 1 synthetic stand-in only (results/13_report/p.md)
    q: 1 table or figure: 1 synthetic stand-in only (results/13_report/q.md)
    """
    lines = []
    for paper, items in table.groupby("paper", sort=False):
        counts = items["status"].value_counts()
        said = ", ".join(f"{counts[s]} {s}" for s in STATUSES if s in counts)
        what = "table or figure" if len(items) == 1 else "tables and figures"
        lines.append(f"{paper}: {len(items)} {what}: {said} (results/13_report/{paper}.md)")
    return "\n".join(lines)


def update_block(markdown: str, *, block: str, pages: list[Path] | None = None) -> Path | None:
    """Replace the text between the ``<!-- <block>:start -->`` and ``<!-- <block>:end -->`` lines of the one reader
    page that holds them (``pages``, default :func:`reproq.report.guide.reader_pages`: the README and the guide's pages), so
    a block can move between pages without its writer knowing (``scope``: the coverage table, ``cost``:
    :func:`cost_markdown`'s, ``verdicts``, ``findings``, ...).

    Written atomically (a temporary file renamed over it), and only if the text changes.

    Returns
    -------
    Path or None
        The page, if it changed.

    Raises
    ------
    ValueError
        If no page, or more than one, has the start line; or the page lacks the end line after it (the message names
        the page).
    """
    first, last = f"<!-- {block}:start -->", f"<!-- {block}:end -->"
    pages = guide.reader_pages() if pages is None else [Path(p) for p in pages]
    holding = [p for p in pages if first in (line.strip() for line in p.read_text().splitlines())]
    if len(holding) != 1:
        where = ", ".join(str(p) for p in holding) or ", ".join(str(p) for p in pages)
        raise ValueError(f"{where}: needs one page with a '{first}' line followed by a '{last}' line "
                         f"({len(holding)} pages have it)")
    (page,) = holding
    text = page.read_text()
    lines = text.splitlines(keepends=True)
    marks = [line.strip() for line in lines]
    if last not in marks or marks.index(last) < marks.index(first):
        raise ValueError(f"{page}: needs a '{first}' line followed by a '{last}' line")
    start, end = marks.index(first), marks.index(last)
    body = markdown if markdown.endswith("\n") or not markdown else markdown + "\n"
    new = "".join(lines[: start + 1]) + body + "".join(lines[end:])
    if new == text:
        return None
    write_text(page, new)
    return page
