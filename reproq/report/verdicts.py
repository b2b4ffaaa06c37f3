"""The reproduction report: every table and figure of the five papers, in the papers' order, beside the papers'
numbers, with one verdict per row computed from the committed records (never typed).

The verdict rule, for one number of a paper and our records of the same paper, table, dataset, split, method,
setting and metric (one row per variant of ours):

- **not built**: no record of ours;
- **pipeline only**: every record is on the synthetic stand-in (the code runs; the number means nothing about
  the paper; users with the real data get a reproduction);
- a **result of training or fitting** on real data is judged by an equivalence test (:func:`equivalence`, two
  one-sided tests at 2.5 % each) of ours − the paper's number against a **margin declared per metric kind before any
  run** (:func:`margin`): the 95 % interval of ours − paper (:func:`reproq.results.paired.against`: a t interval over
  the seeds, which needs three distinct values; the paper's number is of the same test questions) inside ±margin is
  **reproduced**, wholly outside it **not reproduced**, across a margin's
  edge (or with no interval: "n seeds, no interval") **inconclusive**. The interval is on the row, and a verdict whose
  interval edge lies within the cross-machine spread of its notebook's records (``reproq machines``,
  :func:`reproq.results.spread.cross_machine_spread`) of a margin's edge is marked *machine-sensitive*;
- any other number on real data is one number, no seeds (a count, a size, a re-scored shipped run): it **reproduces**
  where |ours − paper| ≤ the margin, or, a count printed in thousands (Tay et al. print 3,270 test pairs as
  ``3.2K``), where ours truncated reads the printed number; else it does **not**;
- **not comparable**: on real data, but measured so that it cannot meet the paper's number (the paper's
  ``not_comparable``: CPU time against a GPU's).

The margins (:data:`MARGINS`): 0.01 for ratio metrics (MAP, MRR, P@k, accuracy, AUC: one point on the 0–100 scale
Lei et al. and dos Santos et al. print, ten units of Tay et al.'s third decimal, and the low end of the gap Tay et al.
argue from, "1 % – 5 %"), 1 % of the paper's value for anything else (counts, sizes, seconds); never
less than half a unit of the last digit the paper prints (``5.8`` stands for 5.75–5.85, ``4.8K`` for 4,750–4,850).

What that rule may say depends on what kind of number it judges (:data:`reproq.papers.paper.KINDS`, declared by
each paper's ``kinds``; :func:`as_kind`): a *result of training or fitting* is *reproduced*, *not reproduced* or
*inconclusive*, an *evaluation of given outputs* (the authors' shipped scores re-scored) *reproduced* or *not
reproduced*; a *data statistic* or a *model size*
*matches* or *differs* (*partial data* where only part of the paper's data can be had, *fitted* where a width was
chosen to land on the paper's count); a *configuration* the paper states and ours copies is shown *as the paper* (or
*set otherwise*), never judged; a baseline *quoted from another paper* is *quoted*, or *not comparable* beside a
number of ours (the other system's configuration is not ours), one row per number of the paper.

A cell the paper prints as ``-`` is no number and has no row; a row of the authors' shipped outputs computed on the
synthetic stand-in is our own method's run there (a result of training or fitting, *pipeline only*).

Rows of a variant the paper does not claim (its ``beside``: every trainable parameter where the paper counts some)
are shown *beside the paper*, without a verdict; rows that print the same runs as another table's (its ``same_as``:
Tay et al.'s Table 7 repeats Table 6's CTRN) or another paper's (its ``counted_under``: Smolyakov & Srikant re-score
Lei et al.'s BM25 scores) keep their verdict and are counted once.

A result figure has no number to compare: it is *not built*, *pipeline only*, *drawn on real data* (compare by
eye, the paper's value is marked on it), or *as specified* where it draws the paper's own settings. The summary
counts the verdicts by kind and paper (:func:`verdict_counts`), results of training first, and tests the papers'
claims (each :class:`reproq.papers.Paper`'s) on real data, seed by seed (:func:`reproq.results.paired.claim`).

Longer than most modules here, on purpose: the rule, what each kind of number may be called, the counts and the
sentences that print them (README, site, pages) are one decision, read in one place.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from reproq import paths
from reproq.results.spread import cross_machine_spread, machine_sensitive, marked
from reproq.results.paired import against, claim, claim_numbers, said, size_verdict
from reproq.results.records import KEYS, Record, read_records, summarize
from reproq.papers import PAPERS
from reproq.papers.paper import CONFIGURATION, DATA, GIVEN, KINDS, QUOTED, RESULT, SIZE
from reproq.report import scope
from reproq.report.scope import FIGURES, item_order
from reproq.results.tables import RATIO_METRIC, SCALE, paper_numbers, percent_papers

VERDICTS = ("reproduced", "not reproduced", "inconclusive", "matches", "differs", "partial data", "fitted", "as the paper",
            "set otherwise", "not comparable", "quoted", "pipeline only", "not built")
BESIDE = "beside the paper"  # a variant the paper does not claim: no verdict
FIGURE = "result figure"  # the kind the counts give the papers' result figures
FIGURE_VERDICTS = ("drawn on real data", "as specified", "pipeline only", "not built")
# the margins of the verdict rule, declared before any run (module docstring, which says why)
MARGINS = {"ratio": 0.01,  # one point on the papers' 0-100 scales (MAP, MRR, P@k, accuracy, AUC)
           "other": 0.01}  # a share of the paper's value (counts, sizes, seconds)

def why(paper: str, data: str, dataset: str, elsewhere: str = "") -> str:
    """Why a row of ``paper`` is on the stand-in or not run (the paper's ``stand_in`` and ``unavailable``, facts about
    the data: docs/guide/data.md; else, for a row not run, where its item's records are when none joins the paper's rows,
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
    spreads = {folder: cross_machine_spread(results_dir, folder) for folder in {r.config["where"] for r in records}}
    rows, figures = table_rows(records, spreads), figure_rows(records, figures_dir)
    return Report(results_dir, figures_dir, records, rows, figures, verdict_counts(rows, figures),
                  claim_rows(records, spreads))


def load_records(results_dir: Path | None = None, folder: str = "*") -> list[Record]:
    """Every record under ``results_dir/<notebook>/*.jsonl`` (``folder``: one notebook's only), its notebook folder
    added to its ``config`` as ``where`` and its file's name (without ``__synthetic``) as ``file``."""
    root = Path(results_dir or paths.ROOT / "results")
    return [replace(record, config={**record.config, "where": path.parent.name,
                                    "file": path.stem.removesuffix("__synthetic")})
            for path in sorted(root.glob(f"{folder}/*.jsonl")) for record in read_records(path)]


def margin(metric: str, paper_value: float, printed: str = "") -> float:
    """The declared margin of :data:`MARGINS` for ``metric``, or half a unit of the printed number's last digit
    if that is larger.

    >>> margin("MAP", 0.52, "52.0"), margin("train_pairs", 36000.0, "36K"), margin("avg", 1.2, "1.2")
    (0.01, 500.0, 0.05)
    """
    stated = MARGINS["ratio"] if RATIO_METRIC.match(metric) else MARGINS["other"] * abs(paper_value)
    match = re.fullmatch(r"-?\d+(?:\.(\d+))?([KM]?)", printed.strip())
    if not match or RATIO_METRIC.match(metric):  # ratio metrics: the stated point is coarser than any print
        return stated
    unit = 10.0 ** -len(match[1] or "") * SCALE.get(match[2], 1.0)
    return max(stated, round(unit / 2, 12))


def verdict(paper_value: float, mean: float, n: int, *, synthetic: bool, metric: str, printed: str = "") -> str:
    """The rule for one number (module docstring): not built, pipeline only, or ours against the paper's within the
    margin (a result of training is judged by :func:`equivalence` instead, in :func:`table_rows`).

    >>> verdict(0.56, 0.565, 1, synthetic=False, metric="MAP"), verdict(0.56, 0.60, 1, synthetic=False, metric="MAP")
    ('reproduced', 'not reproduced')
    >>> verdict(0.56, 0.56, 5, synthetic=True, metric="MAP"), verdict(0.56, np.nan, 0, synthetic=False, metric="MAP")
    ('pipeline only', 'not built')
    >>> verdict(3200.0, 3270.0, 1, synthetic=False, metric="test_pairs", printed="3.2K")  # truncated
    'reproduced'
    """
    if n == 0 or mean != mean:
        return "not built"
    if synthetic:
        return "pipeline only"
    if abs(mean - paper_value) <= margin(metric, paper_value, printed) + 1e-12 or \
            _truncated(printed, paper_value, mean):
        return "reproduced"
    return "not reproduced"


INCONCLUSIVE = "inconclusive"


def equivalence(low: float, high: float, within: float) -> str:
    """The equivalence test of ours − paper against ±``within`` (two one-sided tests, each at 2.5 %: the 95 %
    interval [``low``, ``high``]): *reproduced* inside, *not reproduced* wholly outside, *inconclusive* across an
    edge or without an interval.

    >>> equivalence(-0.004, 0.006, 0.01), equivalence(-0.03, -0.012, 0.01), equivalence(-0.015, -0.002, 0.01)
    ('reproduced', 'not reproduced', 'inconclusive')
    >>> equivalence(float("nan"), float("nan"), 0.01)
    'inconclusive'
    """
    if not (low == low and high == high):
        return INCONCLUSIVE
    if -within - 1e-12 <= low and high <= within + 1e-12:
        return "reproduced"
    return "not reproduced" if low > within or high < -within else INCONCLUSIVE


def as_kind(kind: str, verdict: str, *, real: bool, partial: bool = False, fitted: bool = False) -> str:
    """What :func:`verdict`'s word becomes for a number of ``kind`` (module docstring); ``real``: ours is on real
    data, ``partial``: on part of the paper's data, ``fitted``: a width chosen to land on the paper's count.

    >>> as_kind(CONFIGURATION, "reproduced", real=True), as_kind(DATA, "not reproduced", real=True, partial=True)
    ('as the paper', 'partial data')
    >>> as_kind(QUOTED, "not reproduced", real=True), as_kind(QUOTED, "not built", real=False)
    ('not comparable', 'quoted')
    """
    if kind == QUOTED:
        return "not comparable" if real else "quoted"
    if verdict in ("pipeline only", "not built"):
        return verdict
    if kind == CONFIGURATION:
        return "as the paper" if verdict == "reproduced" else "set otherwise"
    if kind in (DATA, SIZE):
        return "partial data" if partial else "fitted" if fitted else \
            {"reproduced": "matches", "not reproduced": "differs"}[verdict]
    return verdict


def _truncated(printed: str, paper_value: float, mean: float) -> bool:
    """Whether ``mean`` printed in thousands (or millions) and truncated reads ``printed`` (``3,270`` -> ``3.2K``)."""
    match = re.fullmatch(r"\d+(?:\.(\d+))?([KM])", printed.strip())
    if not match:
        return False
    unit = 10.0 ** -len(match[1] or "") * SCALE[match[2]]
    return paper_value - 1e-9 <= mean < paper_value + unit - 1e-9


def table_rows(records: list[Record], spreads: dict[str, float] | None = None) -> pd.DataFrame:
    """One row per number of the papers (× each variant of ours): the paper's value, ours (mean, std, n seeds),
    the gap (with its interval and the margin, for a result of training), the data (real / synthetic stand-in / not
    run here) and why, the verdict and the notebook folder that made it; ``spreads``: notebook folder -> its
    cross-machine spread (:func:`reproq.results.spread.cross_machine_spread`), which marks a verdict
    *machine-sensitive*."""
    theirs = paper_numbers()
    theirs = theirs[theirs.paper.isin(list(PAPERS))][KEYS + ["printed", "value"]].rename(columns={"value": "paper value"})
    theirs = theirs[theirs["paper value"].notna()]  # a cell the paper prints as "-" holds no number to compare
    records = [_as_printed(r) for r in records]
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
    rows["verdict"] = [verdict(p, m, n, synthetic=syn, metric=metric, printed=printed)
                       for p, m, n, syn, metric, printed in zip(rows["paper value"], rows["mean"], rows["n"],
                                                                rows["synthetic"], rows["metric"], rows["printed"])]
    rows["variant"] = rows["variant"].fillna("")
    rows["where"], rows["file"] = rows["where"].fillna(""), rows["file"].fillna("")
    rows["kind"] = [PAPERS[p].kind(t, m, metric) for p, t, m, metric in zip(rows.paper, rows.table, rows.method,
                                                                            rows.metric)]
    # the authors' shipped scores exist for the real data only: on the stand-in the same row is our own method's run
    rows.loc[(rows["kind"] == GIVEN) & rows["synthetic"], "kind"] = RESULT
    rows = _equivalence(rows, records, spreads or {})
    for i, r in enumerate(rows.itertuples()):  # the paper's own say on what compares (module docstring)
        paper = PAPERS[r.paper]
        judged = as_kind(r.kind, r.verdict, real=r.data == "real", partial=r.variant in paper.partial,
                         fitted=(r.table, r.method) in paper.fitted)
        said = paper.partial.get(r.variant) or (paper.fitted.get((r.table, r.method)) if judged == "fitted" else "")
        if judged == "not comparable":
            said = "the paper quotes it from another paper, whose configuration ours need not share"
        if r.data == "real" and r.table in paper.not_comparable:
            judged, said = "not comparable", paper.not_comparable[r.table]
        rows.loc[rows.index[i], ["verdict", "why"]] = [judged, said or r.why]
        if r.variant in paper.beside:
            rows.loc[rows.index[i], "verdict"] = BESIDE
    quoted_again = (rows["kind"] == QUOTED) & rows.duplicated(KEYS)  # a quoted number is one row, whatever we ran
    rows = rows[~quoted_again]
    rows["counted"] = [(r.table, r.method) not in PAPERS[r.paper].same_as  # one claim printed twice counts once
                       and (r.table, r.method) not in PAPERS[r.paper].counted_under for r in rows.itertuples()]
    order = sorted(range(len(rows)), key=lambda i: item_order(rows.paper.iat[i], rows.table.iat[i]))  # stable
    return rows.iloc[order].reset_index(drop=True)


def _equivalence(rows: pd.DataFrame, records: list[Record], spreads: dict[str, float]) -> pd.DataFrame:
    """``rows`` with each real-data result of training judged by :func:`equivalence`: the interval of ours − paper
    (``gap low``, ``gap high``, what it resamples in ``interval over``), the ``margin``, the verdict, and whether an
    interval edge lies within the notebook's cross-machine spread of a margin's edge (``machine-sensitive``)."""
    mine: dict[tuple, list[Record]] = {}
    for r in records:
        if not r.synthetic:
            mine.setdefault((*(getattr(r, k) for k in KEYS), r.variant), []).append(r)
    rows = rows.assign(**{"gap low": np.nan, "gap high": np.nan, "interval over": "", "margin": np.nan,
                          "machine-sensitive": False})
    for i in np.flatnonzero((rows["kind"] == RESULT) & (rows["data"] == "real")):
        r = rows.iloc[i]
        d = against(mine[(*(r[k] for k in KEYS), r["variant"])], r["paper value"])
        within = margin(r["metric"], r["paper value"], r["printed"])
        sensitive = machine_sensitive(d.low, d.high, (-within, within), spreads.get(r["where"], np.nan))
        rows.iloc[i, [rows.columns.get_loc(c) for c in ("gap low", "gap high", "interval over", "margin", "verdict",
                                                         "machine-sensitive")]] = \
            [d.low, d.high, d.over, within, equivalence(d.low, d.high, within), sensitive]
    return rows


def _as_printed(record: Record) -> Record:
    """``record`` under the paper's setting it is shown beside, with the variant that says how it differs (the paper's
    ``read_as``), or as it is."""
    said = PAPERS[record.paper].read_as.get(record.setting) if record.paper in PAPERS else None
    return replace(record, setting=said[0], variant=said[1]) if said else record


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
        said = "drawn on real data" if built and real else "pipeline only" if built else "not built"
        rows.append(dict(paper=paper, figure=item, shows=what, files=[str(p) for p in files],
                         data="real" if built and real else "synthetic stand-in" if built else "not run here",
                         verdict="as specified" if built and item in PAPERS[paper].as_specified else said))
    return pd.DataFrame(rows)


def _shows(stem: str, paper: str, number: int) -> bool:
    match = re.fullmatch(rf"{paper}_figures?(\d+)(?:_(\d+))?(?:__synthetic)?", stem)
    return bool(match) and int(match[1]) <= number <= int(match[2] or match[1])


NOT_TESTABLE = "not testable here (the paper's data: no real-data records of both)"


def claim_rows(records: list[Record], spreads: dict[str, float] | None = None) -> pd.DataFrame:
    """Each paper's claims (:attr:`reproq.papers.Paper.claims`) tested seed by seed on real data, on the metric the
    paper says it of (:func:`reproq.results.paired.claim`: Δ = a − b, its 95 % interval, *confirmed*,
    *contradicted* or *not shown*; *not testable here* without real records of both; against the paper's printed
    number where ``b`` is one, :attr:`reproq.papers.Claim.b_printed`), with the paper's sentence (``quote``), the
    claimed size tested as a size where the sentence states one (``size``: :func:`reproq.results.paired.size_verdict`),
    and the same test on the paper's other metrics for the pair (``beside``: one phrase); a verdict whose interval
    has an edge within ``spreads[notebook]`` (:func:`reproq.results.spread.cross_machine_spread`) of 0 or of the
    claimed size's ends says *machine-sensitive*. Then, for the papers whose data cannot be had, the same claims
    *tested on a real substitute*, SemEval-2016 3B (:func:`reproq.papers.real_substitute.claim_table`, Holm within a
    paper), which are findings about that set and never count as a reproduction. ``on`` says which data a row's test
    is on."""
    from reproq.papers import real_substitute

    spreads, rows = spreads or {}, []
    for paper in PAPERS.values():
        real = [r for r in records if r.paper == paper.key and not r.synthetic]
        for c in paper.claims:
            tested = _tested(paper.key, real, c, c.metric)
            beside = [(metric, _tested(paper.key, real, c, metric)) for metric in c.beside]
            spread = max((spreads.get(r.config.get("where"), np.nan) for r in _matching(real, c.a, c.metric, c.where)),
                         default=np.nan)
            tested["verdict"] = marked(tested["verdict"], tested["low"], tested["high"], (0.0, *c.size), spread)
            size = f"{c.size_said} ({c.size[0]:+.3f} to {c.size[1]:+.3f})" if c.size else ""
            if c.size and tested["seeds"]:
                size += f": {size_verdict(tested['low'], tested['high'], c.size)}"
            rows.append(dict(paper=paper.key, claim=c.text, quote=c.quote, metric=c.metric, **tested, size=size,
                             beside="; ".join(f"{metric} {t['verdict']}{claim_numbers(t)}" for metric, t in beside
                                              if t["delta"] == t["delta"]), on="the paper's data"))
    substitute = real_substitute.claim_table(records)
    if len(substitute):
        substitute = substitute[substitute["seeds"] > 0]
        substitute = substitute.assign(verdict=[f"{real_substitute.SUBSTITUTE} — {v}" for v in substitute["verdict"]],
                                       on=real_substitute.TABLE, size="")
        rows += substitute.rename(columns={"over": "interval over"}).to_dict("records")
    return pd.DataFrame(rows)


def _matching(records: list[Record], method: str, metric: str, where: dict) -> list[Record]:
    return [r for r in records if r.method == method and r.metric == metric
            and all(getattr(r, k) == v for k, v in where.items())]


def _tested(paper: str, records: list[Record], c, metric: str) -> dict:
    """Claim ``c`` (:class:`reproq.papers.Claim`) tested on ``metric``: a − b paired by seed and question, or ours
    ``a`` − the paper's printed ``b`` over a's seeds where ``b`` is a number the paper quotes."""
    try:
        if not c.b_printed:
            return claim(records, c.a, c.b, metric=metric, **c.where)
        mine = _matching(records, c.a, metric, c.where)
        if not mine:
            raise ValueError(f"no records of {c.a!r}")
        theirs = paper_numbers(paper)
        where = {**c.where, **c.paper_where, "method": c.b, "metric": metric}
        (value,) = theirs[theirs[list(where)].eq(pd.Series(where)).all(axis=1)]["value"]
        return said(against(mine, value))
    except ValueError:
        return {"delta": np.nan, "low": np.nan, "high": np.nan, "seeds": 0, "interval over": "",
                "verdict": NOT_TESTABLE, "p": np.nan}


def verdict_counts(tables: pd.DataFrame, figures: pd.DataFrame) -> pd.DataFrame:
    """How many of each kind of number (:data:`reproq.papers.paper.KINDS`, results of training first, then the result
    figures) have each verdict, per paper and in all: a row per kind and verdict that occurs. A row printing runs
    counted elsewhere counts once (there), a row beside the paper not at all."""
    tables = tables[tables["counted"] & (tables.verdict != BESIDE)]
    both = pd.concat([tables[["kind", "verdict", "paper"]],
                      figures.assign(kind=FIGURE)[["kind", "verdict", "paper"]]])
    counts = pd.crosstab([both.kind, both.verdict], both.paper).reindex(columns=list(PAPERS), fill_value=0)
    order = [(kind, v) for kind in (*KINDS, FIGURE) for v in (FIGURE_VERDICTS if kind == FIGURE else VERDICTS)]
    counts = counts.reindex([key for key in order if key in counts.index])
    counts["all"] = counts.sum(axis=1)
    return counts.rename_axis(columns=None).reset_index()


def headline(counts: pd.DataFrame) -> pd.DataFrame:
    """:func:`verdict_counts` in one row per kind, all papers together: ``"4 reproduced, 4 not reproduced, …"`` (the
    report's first screen and the README's first line of counts)."""
    said = counts.groupby("kind", sort=False).apply(
        lambda group: ", ".join(f"{n} {v}" for v, n in zip(group.verdict, group["all"])), include_groups=False)
    return said.rename("numbers of the five papers, all together").reset_index()


def paper_counts(counts: pd.DataFrame, paper: str) -> pd.DataFrame:
    """One paper's column of :func:`verdict_counts`, the kinds and verdicts it has."""
    return counts[counts[paper] > 0][["kind", "verdict", paper]].rename(columns={paper: "numbers"})


def shown_value(paper: str, metric: str, value: float) -> str:
    """A number as the paper prints it: ratio metrics as percentages for the papers that print them so; a value that
    rounds to zero is printed without a sign (no ``-0.0``).

    >>> shown_value("lei2016", "MRR", -0.0001), shown_value("tay2018", "MAP", -0.0001)
    ('0.0', '0.000')
    """
    if value != value:
        return ""
    if RATIO_METRIC.match(metric):
        text = f"{value * 100:.1f}" if paper in percent_papers() else f"{value:.3f}"
    else:
        text = f"{value:,.4g}" if abs(value) < 1e4 else f"{value:,.0f}"
    return text[1:] if text.startswith("-") and float(text.replace(",", "")) == 0 else text


def shown_rows(rows: pd.DataFrame) -> pd.DataFrame:
    """Rows of :func:`table_rows` as a reader sees them: numbers as each paper prints them, ours with ``± std`` over
    several seeds, the gap with its 95 % interval and the margin the equivalence test used (a result of training),
    the verdict (*machine-sensitive* where another CPU could turn it), and where they came from (``where``,
    ``file``), for the site and the papers' pages."""
    def gap(paper: str, metric: str, r) -> str:
        said = shown_value(paper, metric, r["gap"])
        if r["gap low"] == r["gap low"]:
            return f"{said} [{shown_value(paper, metric, r['gap low'])}, {shown_value(paper, metric, r['gap high'])}]"
        return f"{said} ({r['interval over']})" if r["interval over"] else said

    return pd.DataFrame({
        "dataset": rows.dataset, "split": rows.split, "method": rows.method, "setting": rows.setting,
        "metric": rows.metric, "variant": rows.variant, "paper": rows.printed,
        "ours": [shown_value(p, m, v) + (f" ± {shown_value(p, m, s)}" if n > 1 and s == s else "")
                 for p, m, v, s, n in zip(rows.paper, rows.metric, rows["mean"], rows["std"], rows.n)],
        "gap": [gap(r["paper"], r["metric"], r) for _, r in rows.iterrows()],
        "margin": [f"±{shown_value(p, m, w)}" if w == w else "" for p, m, w in zip(rows.paper, rows.metric,
                                                                                   rows["margin"])],
        "seeds": rows.n, "data": rows.data, "why": rows.why,
        "verdict": [f"{v} (machine-sensitive)" if sensitive else v
                    for v, sensitive in zip(rows.verdict, rows["machine-sensitive"])],
        "where": rows["where"], "file": rows["file"]})


def counts_markdown(counts: pd.DataFrame, claims: pd.DataFrame, rows: pd.DataFrame | None = None) -> str:
    """The verdict counts, the claims and (with ``rows``, :func:`table_rows`) every real-data row that does not
    reproduce, as Markdown for the README (``reproq report --write``)."""
    header = ("Generated by `reproq report` (`reproq/report/verdicts.py`) from the committed records; the rule that "
              "gives each verdict, and what each kind of number can be given, is in that module's docstring. Counted "
              "are the papers' numbers (× each variant of ours; a number of ours counted under two papers or tables "
              "once, a quoted baseline once), then the result figures. Only the first kind is a result obtained by "
              "training or fitting a method here; configurations and quoted baselines are shown, never judged.")
    lines = [header, ""]
    for table in (headline(counts), counts):
        lines += ["| " + " | ".join(table.columns) + " |", "|" + "---|" * len(table.columns)]
        lines += ["| " + " | ".join(str(v) for v in row) + " |" for row in table.itertuples(index=False)] + [""]
    lines.pop()
    trained = rows[(rows.kind == RESULT) & (rows.data == "real") & rows["counted"]
                   & (rows.verdict != "not comparable")] if rows is not None else None
    if trained is not None and len(trained):
        lines += ["", f"The {len(trained)} comparable results of training on real data are judged by an equivalence "
                      "test: the 95 % interval of ours − paper over our seeds inside a margin declared before any run "
                      "(0.01 for ratio metrics) is *reproduced*, wholly outside it *not reproduced*, across an edge "
                      f"*inconclusive*; {int(trained['machine-sensitive'].sum())} of them are *machine-sensitive* "
                      "(an interval edge within the cross-machine spread of its notebook's records of a margin's "
                      "edge)."]
    lines += ["", "The papers' claims on real data, each on the metric the paper's sentence is about (Δ = a − b "
                  "paired by seed, and by question where the records keep each question's value; 95 % interval, what "
                  "it resamples in brackets), the paper's other metrics for the pair beside:", ""]
    on_their_data = claims[claims["on"] != SUBSTITUTE_TABLE] if "on" in claims else claims
    lines += [claim_markdown(c) for c in on_their_data.to_dict("records")]
    lines += substitute_markdown(claims)
    if rows is not None:
        lines += ["", not_reproduced_markdown(rows)]
    return "\n".join(lines) + "\n"


SUBSTITUTE_TABLE = "SemEval-2016 3B"  # reproq.papers.real_substitute.TABLE: the claims tested on a real substitute


def substitute_markdown(claims: pd.DataFrame) -> list[str]:
    """The claims :func:`claim_rows` tested on the real substitute, one line per paper (its family, Holm within it):
    each claim's verdict and Δ with its interval, the paper's sentence once; the papers' pages list them one by one."""
    if "on" not in claims:
        return []
    mine = claims[claims["on"] == SUBSTITUTE_TABLE]
    if mine.empty:
        return []
    lines = ["", f"The same papers' claims tested on a real substitute, {SUBSTITUTE_TABLE} test (notebook 14: a "
                 "finding about that set, never a reproduction of the paper's AskUbuntu numbers; Δ = a − b paired by "
                 "query and seed, 95 % interval over both, Holm within each paper; each claim in full on the paper's "
                 "page):", ""]
    for paper, rows in mine.groupby("paper", sort=False):
        said = "; ".join(f"{r['claim'].replace(' on SemEval-2016 3B test', '')}, {r['metric']}: "
                         f"**{r['verdict'].split(' — ')[-1]}**, Δ = {r['delta']:+.3f} [{r['low']:+.3f}, {r['high']:+.3f}]"
                         for r in rows.to_dict("records"))
        lines.append(f"- {paper}: {said}")
        lines += [f"  {q}" for q in dict.fromkeys(rows["quote"]) if q]
    return lines


def claim_markdown(tested: dict) -> str:
    """A row of :func:`claim_rows` as the README and the papers' pages list it: the claim, its metric and verdict, the
    paper's other metrics beside, and the paper's sentence."""
    beside = f"; beside: {tested['beside']}" if tested["beside"] else ""
    size = f"; the size the paper states, {tested['size']}" if tested.get("size") else ""
    quote = f"\n  {tested['quote']}" if tested["quote"] else ""
    return (f"- {tested['paper']}: {tested['claim']}, {tested['metric']} — **{tested['verdict']}**"
            f"{claim_numbers(tested)}{size}{beside}{quote}")


def missed(rows: pd.DataFrame) -> pd.DataFrame:
    """Every row of :func:`table_rows` that does not reproduce, with the paper's number, ours, the interval of the
    gap and the margin it was judged by, and the notebook that made it (notebook 13's table)."""
    return rows[rows.verdict == "not reproduced"][["paper", "table", "dataset", "split", "method", "setting", "metric",
                                                   "variant", "printed", "mean", "gap low", "gap high", "margin", "n",
                                                   "where"]]


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
