"""The reproduction report: every table and figure of the five papers, in the papers' order, beside the papers'
numbers, with one verdict per row computed from the committed records (never typed).

The verdict rule (:func:`verdict`), for one number of a paper and our records of the same paper, table, dataset,
split, method, setting and metric (one row per variant of ours):

- **not built**: no record of ours;
- **pipeline only**: every record is on the synthetic stand-in (the code runs; the number means nothing about
  the paper; users with the real data get a reproduction);
- **reproduced**: on real data, |ours − paper| ≤ the largest of two seeds' standard deviations (n ≥ 2 seeds),
  half a unit of the last digit the paper prints (``5.8`` stands for 5.75–5.85, ``4.8K`` for 4,750–4,850), and a
  stated tolerance: 0.01 for ratio metrics (one point on the papers' 0–100 scales), 1 % of the paper's value for
  anything else (counts, sizes, seconds); a count printed in thousands may also be truncated (Tay et al. print
  3,270 test pairs as ``3.2K``): ``3.2K`` stands for 3,200–3,299 too;
- **not reproduced**: on real data, further than that (the notebook in ``where`` says why, with its ablation);
- **not comparable**: on real data, but measured so that it cannot meet the paper's number (the paper's
  ``not_comparable``: CPU time against a GPU's).

Rows of a variant the paper does not claim (its ``beside``: every trainable parameter where the paper counts some)
are shown *beside the paper*, without a verdict; rows that print the same runs as another table's (its ``same_as``:
Tay et al.'s Table 7 repeats Table 6's CTRN) keep their verdict and are counted once.

A result figure has no number to compare: it is *not built*, *pipeline only*, or *drawn on real data* (compare by
eye, the paper's value is marked on it). The summary counts the verdicts per paper, and tests the papers' claims
(each :class:`reproq.papers.Paper`'s) on real data, seed by seed (:func:`reproq.results.records.claim`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from reproq import paths
from reproq.results.records import KEYS, Record, claim, read_records, summarize
from reproq.papers import PAPERS
from reproq.report import scope
from reproq.report.scope import FIGURES, item_order
from reproq.results.tables import PERCENT_PAPERS, RATIO_METRIC, paper_numbers

VERDICTS = ("reproduced", "not reproduced", "not comparable", "pipeline only", "not built")
BESIDE = "beside the paper"  # a variant the paper does not claim: no verdict
FIGURE_VERDICTS = ("drawn on real data", "pipeline only", "not built")
RATIO_TOLERANCE = 0.01  # one point on a 0-100 scale
RELATIVE_TOLERANCE = 0.01  # of the paper's value, for counts, sizes and times
SPREAD = 2.0  # standard deviations of the seeds

def why(paper: str, data: str, dataset: str, elsewhere: str = "") -> str:
    """Why a row of ``paper`` is on the stand-in or not run (the paper's ``stand_in`` and ``unavailable``, facts about
    the data: README "Data"; else, for a row not run, where its item's records are when none joins the paper's rows,
    ``elsewhere``: :func:`reproq.report.scope.elsewhere`); blank for real data."""
    if data == "real":
        return ""
    known = PAPERS[paper].stand_in if data == "synthetic stand-in" else PAPERS[paper].unavailable
    return known.get(dataset, (elsewhere or "no notebook records this number yet") if data == "not run here" else "")


@dataclass(frozen=True)
class Report:
    """What the report shows, computed once (:func:`build`): the records, a row per number of the papers
    (:func:`table_rows`), a row per result figure (:func:`figure_rows`), the verdict counts and the claims."""

    results_dir: Path
    figures_dir: Path
    records: list[Record]
    rows: pd.DataFrame
    figures: pd.DataFrame
    counts: pd.DataFrame
    claims: pd.DataFrame


def build(results_dir: Path | None = None, figures_dir: Path | None = None) -> Report:
    """The report of the records in ``results_dir`` and the PNGs in ``figures_dir`` (default: the committed
    ``results/`` and ``figures/``)."""
    results_dir = Path(results_dir or paths.ROOT / "results")
    figures_dir = Path(figures_dir or paths.ROOT / "figures")
    records = load_records(results_dir)
    rows, figures = table_rows(records), figure_rows(records, figures_dir)
    return Report(results_dir, figures_dir, records, rows, figures, verdict_counts(rows, figures), claim_rows(records))


def load_records(results_dir: Path | None = None, folder: str = "*") -> list[Record]:
    """Every record under ``results_dir/<notebook>/*.jsonl`` (``folder``: one notebook's only), its notebook folder
    kept in ``config["where"]`` and its file's name (without ``__synthetic``) in ``config["file"]``."""
    root = Path(results_dir or paths.ROOT / "results")
    return [replace(record, config={"where": path.parent.name, "file": path.stem.removesuffix("__synthetic")})
            for path in sorted(root.glob(f"{folder}/*.jsonl")) for record in read_records(path)]


def tolerance(metric: str, paper_value: float, printed: str = "") -> float:
    """The stated tolerance of :func:`verdict` for ``metric``, or half a unit of the printed number's last digit
    if that is larger.

    >>> tolerance("MAP", 0.52, "52.0"), tolerance("train_pairs", 36000.0, "36K"), tolerance("avg", 1.2, "1.2")
    (0.01, 500.0, 0.05)
    """
    stated = RATIO_TOLERANCE if RATIO_METRIC.match(metric) else RELATIVE_TOLERANCE * abs(paper_value)
    match = re.fullmatch(r"-?\d+(?:\.(\d+))?([KM]?)", printed.strip())
    if not match or RATIO_METRIC.match(metric):  # ratio metrics: the stated point is coarser than any print
        return stated
    unit = 10.0 ** -len(match[1] or "") * {"K": 1e3, "M": 1e6}.get(match[2], 1.0)
    return max(stated, round(unit / 2, 12))


def verdict(paper_value: float, mean: float, std: float, n: int, *, synthetic: bool, metric: str,
            printed: str = "") -> str:
    """The one verdict rule (module docstring).

    >>> verdict(0.56, 0.565, float("nan"), 1, synthetic=False, metric="MAP")
    'reproduced'
    >>> verdict(0.56, 0.60, 0.03, 5, synthetic=False, metric="MAP")  # 0.04 within 2 sd = 0.06
    'reproduced'
    >>> verdict(0.56, 0.60, 0.01, 5, synthetic=False, metric="MAP")
    'not reproduced'
    >>> verdict(0.56, 0.56, 0.0, 5, synthetic=True, metric="MAP"), verdict(0.56, np.nan, np.nan, 0, synthetic=False,
    ...                                                                     metric="MAP")
    ('pipeline only', 'not built')
    >>> verdict(3200.0, 3270.0, np.nan, 1, synthetic=False, metric="test_pairs", printed="3.2K")  # truncated
    'reproduced'
    """
    if n == 0 or mean != mean:
        return "not built"
    if synthetic:
        return "pipeline only"
    allowed = max(tolerance(metric, paper_value, printed), SPREAD * std if n > 1 and std == std else 0.0)
    if abs(mean - paper_value) <= allowed + 1e-12 or _truncated(printed, paper_value, mean):
        return "reproduced"
    return "not reproduced"


def _truncated(printed: str, paper_value: float, mean: float) -> bool:
    """Whether ``mean`` printed in thousands (or millions) and truncated reads ``printed`` (``3,270`` -> ``3.2K``)."""
    match = re.fullmatch(r"\d+(?:\.(\d+))?([KM])", printed.strip())
    if not match:
        return False
    unit = 10.0 ** -len(match[1] or "") * {"K": 1e3, "M": 1e6}[match[2]]
    return paper_value - 1e-9 <= mean < paper_value + unit - 1e-9


def table_rows(records: list[Record]) -> pd.DataFrame:
    """One row per number of the papers (× each variant of ours): the paper's value, ours (mean, std, n seeds),
    the gap, the data (real / synthetic stand-in / not run here) and why, the verdict and the notebook folder that
    made it."""
    theirs = paper_numbers()
    theirs = theirs[theirs.paper.isin(list(PAPERS))][KEYS + ["printed", "value"]].rename(columns={"value": "paper value"})
    ours = summarize(records)
    where = pd.DataFrame([{**{k: getattr(r, k) for k in KEYS}, "variant": r.variant, "where": r.config["where"],
                           "file": r.config["file"]} for r in records],
                         columns=KEYS + ["variant", "where", "file"]).drop_duplicates(KEYS + ["variant"])
    ours = ours.merge(where, on=KEYS + ["variant"], how="left")
    rows = theirs.merge(ours, on=KEYS, how="left")
    rows["n"] = rows["n"].fillna(0).astype(int)
    rows["synthetic"] = rows["synthetic"].astype("boolean").fillna(False).astype(bool)
    rows["gap"] = (rows["mean"] - rows["paper value"]).where(~rows["synthetic"])
    rows["data"] = np.where(rows["n"] == 0, "not run here", np.where(rows["synthetic"], "synthetic stand-in", "real"))
    mine = pd.DataFrame([{k: getattr(r, k) for k in KEYS} for r in records], columns=KEYS)
    elsewhere = {(paper, table): scope.elsewhere(item, mine[(mine.paper == paper) & (mine.table == table)])
                 for (paper, table), item in theirs.groupby(["paper", "table"])}  # as the scope table says it
    rows["why"] = [why(paper, d, dataset, elsewhere[(paper, table)])
                   for paper, table, d, dataset in zip(rows["paper"], rows["table"], rows["data"], rows["dataset"])]
    rows["verdict"] = [verdict(p, m, s, n, synthetic=syn, metric=metric, printed=printed)
                       for p, m, s, n, syn, metric, printed in zip(rows["paper value"], rows["mean"], rows["std"],
                                                                   rows["n"], rows["synthetic"], rows["metric"],
                                                                   rows["printed"])]
    rows["variant"] = rows["variant"].fillna("")
    rows["where"], rows["file"] = rows["where"].fillna(""), rows["file"].fillna("")
    for i, r in enumerate(rows.itertuples()):  # the paper's own say on what compares (module docstring)
        paper = PAPERS[r.paper]
        if r.data == "real" and r.table in paper.not_comparable:
            rows.loc[rows.index[i], ["verdict", "why"]] = ["not comparable", paper.not_comparable[r.table]]
        if r.variant in paper.beside:
            rows.loc[rows.index[i], "verdict"] = BESIDE
    same = [(r.table, r.method) in PAPERS[r.paper].same_as for r in rows.itertuples()]
    rows["counted"] = [not s for s in same]  # one claim printed twice counts once
    order = sorted(range(len(rows)), key=lambda i: item_order(rows.paper.iat[i], rows.table.iat[i]))  # stable
    return rows.iloc[order].reset_index(drop=True)


def figure_rows(records: list[Record], figures_dir: Path | None = None) -> pd.DataFrame:
    """One row per result figure of the papers: its PNG(s) under ``figures/`` (found by the paper-named file name,
    ``<paper>_figure<N>[__synthetic].png`` or ``<paper>_figures<A>_<B>…``), the data, and its verdict."""
    pngs = sorted(Path(figures_dir or paths.ROOT / "figures").glob("*/*.png"))
    rows = []
    for paper, item, what in FIGURES:
        number = int(item.split()[1])
        files = [p for p in pngs if _shows(p.stem, paper, number)]
        mine = [r for r in records if r.paper == paper and r.table == item]
        real = any(not p.stem.endswith("__synthetic") for p in files) or any(not r.synthetic for r in mine)
        built = bool(files or mine)
        rows.append(dict(paper=paper, figure=item, shows=what, files=[str(p) for p in files],
                         data="real" if built and real else "synthetic stand-in" if built else "not run here",
                         verdict="drawn on real data" if built and real else "pipeline only" if built else "not built"))
    return pd.DataFrame(rows)


def _shows(stem: str, paper: str, number: int) -> bool:
    match = re.fullmatch(rf"{paper}_figures?(\d+)(?:_(\d+))?(?:__synthetic)?", stem)
    return bool(match) and int(match[1]) <= number <= int(match[2] or match[1])


def claim_rows(records: list[Record]) -> pd.DataFrame:
    """Each paper's claims (:attr:`reproq.papers.Paper.claims`) tested seed by seed on real data
    (:func:`reproq.results.records.claim`: Δ = a − b, its 95 % interval, *confirmed*, *contradicted* or *not shown*),
    *not testable here* without real records of both."""
    rows = []
    for paper in PAPERS.values():
        real = [r for r in records if r.paper == paper.key and not r.synthetic]
        for c in paper.claims:
            try:
                tested = claim(real, c.a, c.b, metric=c.metric, **c.where)
            except ValueError:
                tested = {"delta": np.nan, "low": np.nan, "high": np.nan, "seeds": 0, "interval over": "",
                          "verdict": "not testable here (no real-data records of both)"}
            rows.append(dict(paper=paper.key, claim=c.text, **tested))
    return pd.DataFrame(rows)


def verdict_counts(tables: pd.DataFrame, figures: pd.DataFrame) -> pd.DataFrame:
    """Per paper: how many table rows have each verdict (a row printing another table's runs counts once, a row beside
    the paper not at all), and how many figures each figure verdict."""
    tables = tables[tables["counted"]]
    counts = pd.crosstab(tables.paper, tables.verdict).reindex(index=list(PAPERS), columns=list(VERDICTS),
                                                                  fill_value=0)
    figure_counts = pd.crosstab(figures.paper, figures.verdict).reindex(index=list(PAPERS),
                                                                        columns=list(FIGURE_VERDICTS), fill_value=0)
    figure_counts.columns = [f"figures: {c}" for c in figure_counts.columns]
    return counts.join(figure_counts).rename_axis(index="paper", columns=None).reset_index()


def shown_value(paper: str, metric: str, value: float) -> str:
    """A number as the paper prints it: ratio metrics as percentages for the papers that print them so."""
    if value != value:
        return ""
    if RATIO_METRIC.match(metric):
        return f"{value * 100:.1f}" if paper in PERCENT_PAPERS else f"{value:.3f}"
    return f"{value:,.4g}" if abs(value) < 1e4 else f"{value:,.0f}"


def shown_rows(rows: pd.DataFrame) -> pd.DataFrame:
    """Rows of :func:`table_rows` as a reader sees them: numbers as each paper prints them, ours with ``± std`` over
    several seeds, and where they came from (``where``, ``file``), for the site and the papers' pages."""
    return pd.DataFrame({
        "dataset": rows.dataset, "split": rows.split, "method": rows.method, "setting": rows.setting,
        "metric": rows.metric, "variant": rows.variant, "paper": rows.printed,
        "ours": [shown_value(p, m, v) + (f" ± {shown_value(p, m, s)}" if n > 1 and s == s else "")
                 for p, m, v, s, n in zip(rows.paper, rows.metric, rows["mean"], rows["std"], rows.n)],
        "gap": [shown_value(p, m, g) for p, m, g in zip(rows.paper, rows.metric, rows.gap)],
        "seeds": rows.n, "data": rows.data, "why": rows.why, "verdict": rows.verdict, "where": rows["where"],
        "file": rows["file"]})


def counts_markdown(counts: pd.DataFrame, claims: pd.DataFrame, rows: pd.DataFrame | None = None) -> str:
    """The verdict counts, the claims and (with ``rows``, :func:`table_rows`) every real-data row that does not
    reproduce, as Markdown for the README (``reproq report --write``)."""
    header = ("Generated by `reproq report` (`reproq/report/verdicts.py`) from the committed records; the rule that "
              "gives each verdict is in that module's docstring. Rows are the papers' numbers (× each variant of "
              "ours); figures are counted apart.")
    lines = [header, "", "| " + " | ".join(counts.columns) + " |", "|" + "---|" * len(counts.columns)]
    lines += ["| " + " | ".join(str(v) for v in row) + " |" for row in counts.itertuples(index=False)]
    lines += ["", "The papers' claims on real data (Δ = a − b paired by seed, and by question where the records "
                  "keep each question's value; 95 % interval, what it resamples in brackets):", ""]
    lines += [f"- {c['paper']}: {c['claim']} — **{c['verdict']}**{claim_numbers(c)}"
              for c in claims.to_dict("records")]
    if rows is not None:
        lines += ["", not_reproduced_markdown(rows)]
    return "\n".join(lines) + "\n"


def claim_numbers(tested: dict) -> str:
    """A row of :func:`claim_rows` as the README and the papers' pages print it: ``": Δ = ±x [low, high] (what the
    interval resamples)"``, or nothing where the claim was not testable."""
    if tested["delta"] != tested["delta"]:
        return ""
    interval = f" [{tested['low']:+.3f}, {tested['high']:+.3f}]" if tested["low"] == tested["low"] else ""
    return f": Δ = {tested['delta']:+.3f}{interval} ({tested['interval over']})"


def not_reproduced_markdown(rows: pd.DataFrame) -> str:
    """Every real-data row that does not reproduce, per paper and table: ours against the paper's printed number
    (the notebook named beside each table says why)."""
    missed = rows[(rows.verdict == "not reproduced") & rows["counted"]]
    lines = [f"The rows that do not reproduce ({len(missed)}), ours (paper), each table's notebook saying why:", ""]
    for (paper, table), group in missed.groupby(["paper", "table"], sort=False):
        shown = []
        for r in group.itertuples(index=False):
            what = " ".join(v for v in (r.dataset, r.split, r.method, r.setting, r.metric, r.variant)
                            if v and v != "-")
            shown.append(f"{what} {shown_value(paper, r.metric, r.mean)} ({r.printed})")
        where = ", ".join(f"`{w}`" for w in dict.fromkeys(group["where"]) if w)
        lines.append(f"- {PAPERS[paper].short} {table} ({len(group)}; {where}): " + "; ".join(shown))
    return "\n".join(lines)
