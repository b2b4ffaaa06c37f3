"""One Markdown page per paper: the file a reader opens for "the tables of paper X", on GitHub and in the book.

:func:`paper_page` writes, from a built report (:func:`reproq.report.verdicts.build`), every table and result figure
of one paper in the paper's order, each table first in the paper's shape: its methods down, its metrics across, ours
beside the paper's number with the verdict of the report's one rule in the cell (:func:`verdict_grid`); then the
figures, the rows that do not reproduce with what their notebook says of them, and behind disclosures the table the
notebook wrote (with the floors and the anchor) and every row with its gap, interval, margin and data. The claims of
the paper's text tested on real data open the page. Notebook 13 and ``reproq report --write`` write the pages to
``results/<the report notebook>/<paper>.md``; the book (:mod:`reproq.report.book`) shows the same pages with its own
links. Nothing on them is typed by hand, and no cell reads ``nan``, ``None`` or ``True`` (:func:`cell`).
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pandas as pd

from reproq import notebook_json, paths
from reproq.papers import PAPERS
from reproq.report import items, verdicts
from reproq.report.scope import scope_table
from reproq.results.tables import inert

# what a row shows, in this order; a column that is the same on every row of an item is left out
COLUMNS = ["dataset", "split", "method", "setting", "metric", "variant", "paper", "ours", "gap", "margin", "seeds",
           "data", "verdict", "notebook"]
GITHUB = "../{0}/{0}.ipynb"  # from results/13_report/ to a notebook's kept executed copy, which GitHub shows


def cell(value) -> str:
    """A table cell as a reader reads it: nothing for a missing number (never ``nan`` or ``None``), yes or no for a
    truth value, no minus sign on a zero, and no character that would end a Markdown cell.

    >>> [cell(v) for v in (float("nan"), None, True, -0.0, 3, "a|b", "<b>")]
    ['', '', 'yes', '0', '3', 'a\\\\|b', '&lt;b>']
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        value = f"{value + 0.0:g}"  # + 0.0: -0.0 is 0
    return inert(str(value)).replace("|", "\\|").replace("\n", " ")


def markdown_table(frame: pd.DataFrame) -> list[str]:
    """``frame`` as the lines of a Markdown table, each value through :func:`cell`."""
    lines = ["| " + " | ".join(cell(c) for c in frame.columns) + " |", "|" + "---|" * len(frame.columns)]
    return lines + ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]


def verdict_grid(rows: pd.DataFrame) -> pd.DataFrame:
    """An item's rows (:func:`reproq.report.verdicts.table_rows`) in the paper's shape: a row per method (with its
    setting and our variant where they differ), a column per metric (with the dataset and split where they differ),
    and in each cell ours beside the paper's number and the verdict: ``0.748 ± 0.005 (paper 0.7): not reproduced``."""
    shown = verdicts.shown_rows(rows)
    varies = [c for c in ("dataset", "split", "method", "setting", "variant") if shown[c].astype(str).nunique() > 1]
    down = [c for c in ("method", "setting", "variant") if c == "method" or c in varies]
    across = [c for c in ("dataset", "split") if c in varies] + ["metric"]
    shown["cell"] = [f"{ours or '–'}{f' (paper {paper})' if paper else ''}: {verdict}"
                     for ours, paper, verdict in zip(shown.ours, shown.paper, shown.verdict)]
    shown["column"] = [" ".join(str(v) for v in values) for values in zip(*(shown[c] for c in across))]
    grid = shown.pivot_table(index=down, columns="column", values="cell", aggfunc="first", sort=False)
    return grid[list(dict.fromkeys(shown["column"]))].reset_index().rename_axis(columns=None)


def item_rows(rows: pd.DataFrame, notebook: str = GITHUB) -> pd.DataFrame:
    """An item's rows (:func:`reproq.report.verdicts.table_rows`) as the page's disclosure lists them, each with a
    link to the notebook that made it (``notebook``: the path from the page to a notebook, ``{0}`` its name)."""
    shown = verdicts.shown_rows(rows)
    shown["notebook"] = [f"[{w}]({notebook.format(w)})" if w else "" for w in shown["where"]]
    keep = [c for c in COLUMNS if c in ("paper", "ours", "verdict") or shown[c].astype(str).nunique() > 1]
    return shown[keep].assign(**({} if "notebook" in keep else {"notebook": shown["notebook"]}))


def commentary(notebook: str, file: str) -> str:
    """What notebook ``notebook`` says right after the cell that writes ``file`` (its Markdown up to the next code cell
    or heading); empty where no cell names the file."""
    path = paths.NOTEBOOKS_DIR / f"{notebook}.ipynb"
    if not file or not path.is_file():
        return ""
    cells, said = notebook_json.read(path)["cells"], []
    for i, one in enumerate(cells):
        if one["cell_type"] == "code" and f'"{file}"' in "".join(one["source"]):
            for after in cells[i + 1:]:  # up to the next code cell or the next heading
                text = "".join(after["source"]) if after["cell_type"] == "markdown" else "#"
                body = re.split(r"^#", text, maxsplit=1, flags=re.M)[0]
                if body.strip():
                    said.append(body.strip())
                if body != text:
                    break
            break
    return "\n\n".join(said)


def _quoted(text: str) -> list[str]:
    return ["> " + line if line else ">" for line in text.splitlines()]


def _disclosed(summary: str, lines: list[str]) -> list[str]:
    """``lines`` behind a disclosure, closed (GitHub and the book both open it on a click)."""
    return ["", f"<details><summary>{summary}</summary>", ""] + lines + ["", "</details>"]


def _shaped(table: Path, notebook: str) -> list[str]:
    """A notebook's paper-shaped table as it wrote it (its caption, then the table), and where."""
    where = table.parent.name
    return [inert(table.read_text().strip()), "",
            f"Written by notebook [{where}]({notebook.format(where)}) to `results/{where}/{table.name}`."]


def _item(built: verdicts.Report, paper: str, item: str, paper_rows: int, first: dict[str, str], *,
          figures: str, notebook: str) -> list[str]:
    """One table or result figure of ``paper`` as its page shows it (module docstring)."""
    mine = built.rows[(built.rows.paper == paper) & (built.rows.table == item)]
    short = PAPERS[paper].short
    lines = []
    if item.startswith("Figure"):
        figure = built.figures[(built.figures.paper == paper) & (built.figures.figure == item)].iloc[0]
        lines += ["", f"## {item}: {figure.shows}", "", f"**{figure.verdict}** ({figure.data})."]
        for png in figure.files:  # a figure file that draws several of the paper's figures is shown once
            lines += [""] + ([f"Drawn with {first[png]} above."] if first[png] != item else
                             [f"![{short} {item}]({figures}/{Path(png).parent.name}/{Path(png).name})"])
        plots = []
    else:
        lines += ["", f"## {item}"]
        # a table's own plots (tay2018_table6_seeds.png); a figure's own file (lei2016_figure3__synthetic.png) has the
        # same shape of name, which is why figures are never looked up this way
        plots = sorted(p for p in Path(built.figures_dir).glob("*/*.png")
                       if p.stem.startswith(f"{paper}_{item.lower().replace(' ', '')}_"))
    shaped = [line for table in items.shaped_tables(built, paper, item) for line in
              _disclosed(f"The table notebook {table.parent.name} wrote, ours beside the paper's",
                         _shaped(table, notebook))]
    if not len(mine):  # a figure: its records' table, if a notebook wrote one
        return lines + shaped
    lines += ["", f"**{items.tally(mine, paper_rows)}**", ""] + markdown_table(verdict_grid(mine))
    for note in items.notes(mine):
        lines += ["", note]
    lines += [line for p in plots for line in ("", f"![{short} {item}: {p.stem}]({figures}/{p.parent.name}/{p.name})")]
    missed = mine[mine.verdict == "not reproduced"]
    if len(missed):
        lines += ["", f"The {len(missed)} that do not reproduce:", ""] + markdown_table(item_rows(missed, notebook))
        for where, file in missed[["where", "file"]].drop_duplicates().itertuples(index=False):
            if said := commentary(where, file):  # the notebook's own explanation of its gaps
                lines += ["", f"Notebook {where} on these numbers (`{file}`):", ""] + _quoted(said)
    lines += shaped + _disclosed(f"All {len(mine)} rows: the gap, its interval, the margin and the data of each",
                        markdown_table(item_rows(mine, notebook)))
    return lines


def paper_page(built: verdicts.Report, paper: str, *, figures: str = "../../figures", notebook: str = GITHUB) -> str:
    """The Markdown page of ``paper`` (module docstring); ``figures`` is the path from the page to ``figures/``,
    ``notebook`` to a notebook's page (``{0}``: its name)."""
    p = PAPERS[paper]
    counts = verdicts.paper_counts(built.counts, paper)
    lines = [f"# {p.short}: {p.topic}", "", f"{p.citation}. What it has: {p.has}.", "",
             "Generated by `reproq report --write` and notebook 13 from the committed records (`results/`): every "
             "number of the paper beside ours, one verdict per number by the rule of `reproq/report/verdicts.py`, in "
             "the words its kind of number allows: a result of training is *reproduced*, *not reproduced* or "
             "*inconclusive* by an equivalence test of the interval of ours − paper against a declared margin "
             "(the gap's interval and the margin are in each table's rows; *machine-sensitive* where another CPU "
             "could turn it); a re-scored shipped output *reproduced* or *not reproduced*; a data count or a model "
             "size *matches* or *differs*; a configuration *as the paper*; a baseline quoted from another paper "
             "*quoted*; *pipeline only* on the synthetic stand-in, which is never a reproduction; *not built* "
             "without a record.", "", "## Verdicts", ""]
    lines += markdown_table(counts)
    claims = built.claims[built.claims.paper == paper]
    if len(claims):
        lines += ["", "## The paper's claims, tested on real data", "",
                  "Δ = a − b paired by seed, and by question where the records keep each question's value, with its "
                  "95 % interval (what it resamples in brackets: a bootstrap over questions and seeds, or Student's t "
                  "over the seeds).", ""]
        lines += [verdicts.claim_markdown(c) for c in claims.to_dict("records")]
    scope, first = scope_table(built.results_dir).set_index(["paper", "item"]), items.first_shown(built.figures)
    for item in scope.loc[paper].index:
        lines += _item(built, paper, item, scope.loc[(paper, item), "paper rows"], first, figures=figures,
                       notebook=notebook)
    return "\n".join(lines) + "\n"


def write_pages(built: verdicts.Report, out) -> list[Path]:
    """Every paper's page, written through ``out`` (the :class:`reproq.results.Outputs` of notebook 13) as
    ``<paper>.md``."""
    return [out.save_markdown(paper_page(built, paper), paper) for paper in PAPERS]


def write_report(built: verdicts.Report, out) -> list[Path]:
    """Every file of the report beside its executed notebook, through ``out`` (notebook 13's
    :class:`reproq.results.Outputs`; ``reproq report --write`` writes the same into the committed
    ``results/13_report/``): the verdict counts, the claims, and a page per paper (:func:`write_pages`)."""
    return [out.save_table(built.counts, "verdict_counts", synthetic=False,
                           caption="Verdicts per paper, computed from the records by reproq.report.verdicts.verdict."),
            out.save_table(built.claims, "claims", synthetic=False,
                           caption="The papers' claims tested seed by seed on real data (each paper's claims, "
                                   "reproq.papers).")] + write_pages(built, out)
