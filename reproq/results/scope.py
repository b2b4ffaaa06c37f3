"""What this study covers: every table and result figure of the five papers, generated from data.

Tables and their rows come from ``paper_numbers.csv``; coverage and status come from the records
under ``results/<notebook>/*.jsonl``. The only hand-written list is :data:`FIGURES`, facts about the
papers. Whether a number *reproduces* the paper is not decided here.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd

from reproq import paths
from reproq.atomic import write_text
from reproq.peak_memory import KEPT_PEAK

PAPERS = ("lei2016", "tay2018", "dossantos2015", "smolyakov2017", "rankine2016")
ROW_KEYS = ["dataset", "split", "method", "setting"]

# Figures that show a result: all but architecture diagrams and worked examples. Dataset-statistics and
# training-setting plots stay, like their table counterparts in paper_numbers.csv (Lei Tables 1 and 3,
# Smolyakov Table 2). Seed files are in /work/shared/seeds/.
FIGURES = (
    # 000_1eb555c2ca15b20a.txt, section 7 "Results", paragraphs "Pre-training" and "Adaptive Decay"
    # (Figures 1-2 are an example pair and the model diagram)
    ("lei2016", "Figure 3", "heldout perplexity vs dev MRR during encoder-decoder pre-training"),
    ("lei2016", "Figure 4", "scalar-decay gate 1 - lambda_t shown over words of example questions"),
    ("lei2016", "Figure 5", "max and mean of the 400-d gate 1 - lambda_t per word position, dev+test"),
    # 001_9157be3a3951a43e.txt, section "Runtime Comparison" (Figures 1-2 are architecture)
    ("tay2018", "Figure 3", "runtime of all recurrent models on TrecQA TRAIN-ALL, d = 800"),
    # 002_1b2fe520115214a8.txt: Figures 1-2 are architecture only; 004_afb19b87d6db3268.txt: no figures
    # 003_6d6226b7de5bc4d3.txt, Figures 1-2 in section 3.1 "Dataset" (3-7 are architecture)
    ("smolyakov2017", "Figure 1", "AskUbuntu dataset description (word-length distribution)"),
    ("smolyakov2017", "Figure 2", "Android dataset description (word-length distribution)"),
    # 003_6d6226b7de5bc4d3.txt, Figures 8-15 at the end of section 6, discussed in section 7
    ("smolyakov2017", "Figure 8", "in-domain LSTM and CNN training loss (Experiment 1)"),
    ("smolyakov2017", "Figure 9", "learning-rate schedule (all experiments)"),
    ("smolyakov2017", "Figure 10", "ROC curves, direct transfer TF-IDF/LSTM/CNN (Experiment 2)"),
    ("smolyakov2017", "Figure 11", "TF-IDF score histogram of similar vs dissimilar pairs (Experiment 2)"),
    ("smolyakov2017", "Figure 12", "LSTM and CNN total adversarial training loss (Experiment 2)"),
    ("smolyakov2017", "Figure 13", "discriminator training loss (Experiment 2)"),
    ("smolyakov2017", "Figure 14", "gradient norms of the domain classifier (Experiment 2)"),
    ("smolyakov2017", "Figure 15", "ROC curves of Siamese RNN and doc2vec (Experiment 3)"),
)


def read_records(results_dir: Path) -> pd.DataFrame:
    """All records under ``results_dir/<notebook>/*.jsonl``, with the notebook folder as ``where``."""
    rows = [{**json.loads(line), "where": path.parent.name}
            for path in sorted(results_dir.glob("*/*.jsonl"))
            for line in path.read_text().splitlines() if line.strip()]
    return pd.DataFrame(rows, columns=["paper", "table", *ROW_KEYS, "synthetic", "where"])


def status(synthetic: pd.Series) -> str:
    """The one status rule, from the ``synthetic`` flags of an item's records.

    ``"real data"`` if any record has synthetic false, ``"synthetic stand-in only"`` if there are
    records and all are synthetic, ``"not built"`` if there are none.
    """
    if synthetic.empty:
        return "not built"
    return "synthetic stand-in only" if synthetic.astype(bool).all() else "real data"


def item_order(paper: str, item: str) -> tuple[int, int, int]:
    """Where ``paper``'s ``item`` ("Table 2", "Figure 3") comes: papers in :data:`PAPERS` order, then tables before
    figures, by number."""
    kind, number = re.fullmatch(r"(Table|Figure) (\d+)", item).groups()
    return PAPERS.index(paper), kind == "Figure", int(number)


def scope_table(results_dir: Path | None = None, numbers_csv: Path | None = None) -> pd.DataFrame:
    """One row per (paper, table or result figure), in the papers' order.

    Parameters
    ----------
    results_dir : Path, optional
        Folder of notebook result folders (default ``paths.ROOT / "results"``).
    numbers_csv : Path, optional
        The papers' numbers (default ``paths.PAPER_NUMBERS_CSV``).

    Returns
    -------
    pandas.DataFrame
        Columns ``paper``, ``item``, ``paper rows`` (distinct dataset/split/method/setting rows of
        the item in the CSV, blank where it has none), ``rows covered`` (those with a record with
        the same keys), ``real rows`` (those with a non-synthetic one), ``status`` (:func:`status`
        over all the item's records) and ``where`` (the results/ folders holding them).
    """
    records = read_records(results_dir or paths.ROOT / "results")
    numbers = pd.read_csv(numbers_csv or paths.PAPER_NUMBERS_CSV, dtype=str, keep_default_na=False)
    found = [*zip(numbers.paper, numbers.table), *zip(records.paper, records.table)]
    items = {(paper, item) for paper, item in found + [f[:2] for f in FIGURES] if paper in PAPERS}
    rows = []
    for paper, item in sorted(items, key=lambda pi: item_order(*pi)):
        mine = records[(records.paper == paper) & (records.table == item)]
        wanted = numbers[(numbers.paper == paper) & (numbers.table == item)][ROW_KEYS].drop_duplicates()
        hits = wanted.merge(mine[ROW_KEYS + ["synthetic"]], on=ROW_KEYS)
        counts = [len(wanted), len(hits[ROW_KEYS].drop_duplicates()),
                  len(hits[~hits.synthetic.astype(bool)][ROW_KEYS].drop_duplicates())]
        rows.append([paper, item, *(counts if len(wanted) else [None] * 3), status(mine.synthetic),
                     ", ".join(sorted(set(mine["where"])))])
    counted = ["paper rows", "rows covered", "real rows"]
    return pd.DataFrame(rows, columns=["paper", "item", *counted, "status", "where"]).astype(
        {c: "Int64" for c in counted})


def beyond_the_papers(results_dir: Path | None = None) -> dict[str, list[str]]:
    """Tables of records that are beyond the papers (paper ``"reproq"``) -> their notebook folders."""
    records = read_records(results_dir or paths.ROOT / "results")
    beyond = records[~records.paper.isin(PAPERS)]
    return {table: sorted(set(group["where"])) for table, group in beyond.groupby("table")}


def scope_markdown(table: pd.DataFrame, beyond: dict[str, list[str]] | None = None) -> str:
    """The scope table as Markdown for a README, headed by a line on how it is made.

    ``beyond`` (from :func:`beyond_the_papers`) adds one line under the table.
    """
    header = ("Generated by `reproq scope --write` (`reproq/results/scope.py`) from the records in `results/`. Status: *real data* if any "
              "record of the item is not synthetic, *synthetic stand-in only* if all are, *not built* "
              "if there is none; *covered* counts the paper's rows with at least one record, *real* "
              "those with a non-synthetic one. Whether a number reproduces is not judged here.")
    names = {"paper rows": "rows", "rows covered": "covered", "real rows": "real"}
    shown = table.rename(columns=names)
    cells = [[("" if pd.isna(v) else str(v)) for v in row] for row in shown.itertuples(index=False)]
    lines = [header, "", "| " + " | ".join(shown.columns) + " |", "|" + "---|" * len(shown.columns)]
    lines += ["| " + " | ".join(row) + " |" for row in cells]
    if beyond:
        listed = "; ".join(f"{table} ({', '.join(where)})" for table, where in beyond.items())
        lines += ["", f"Beyond the papers: {listed}"]
    return "\n".join(lines) + "\n"


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
    if len(entries) > 1:  # one after another, as `reproq run` runs them; memory is not summed: one kernel at a time
        lines.append(f"| all {len(entries)} | {sum(c['seconds'] for c in entries.values()) / 60:.1f} | "
                     f"{max(c['peak_memory_mb'] for c in entries.values()) / 1024:.1f} (largest) | | | | |")
    if sampled:
        lines += ["", "\\* the kernel's memory sampled every half second (a runner before the peak kept by the "
                  "system was read): a shorter peak between two looks is missed."]
    return "\n".join(lines) + "\n"


def update_readme(readme_path: Path, markdown: str, *, block: str = "scope") -> bool:
    """Replace the text between the ``<!-- <block>:start -->`` and ``<!-- <block>:end -->`` lines (``scope``: the
    coverage table, ``cost``: :func:`cost_markdown`'s).

    Written atomically (a temporary file renamed over it), and only if the text changes.

    Returns
    -------
    bool
        Whether the file changed.

    Raises
    ------
    ValueError
        If the file lacks either marker line, or they are out of order; the message names the file.
    """
    readme_path = Path(readme_path)
    first, last = f"<!-- {block}:start -->", f"<!-- {block}:end -->"
    text = readme_path.read_text()
    lines = text.splitlines(keepends=True)
    marks = [line.strip() for line in lines]
    if first not in marks or last not in marks or marks.index(last) < marks.index(first):
        raise ValueError(f"{readme_path}: needs a '{first}' line followed by a '{last}' line")
    start, end = marks.index(first), marks.index(last)
    body = markdown if markdown.endswith("\n") or not markdown else markdown + "\n"
    new = "".join(lines[: start + 1]) + body + "".join(lines[end:])
    if new == text:
        return False
    write_text(readme_path, new)
    return True
