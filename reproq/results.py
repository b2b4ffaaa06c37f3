"""Result records, the papers' numbers, and the side-by-side tables that join them.

Every number the study produces is a :class:`Record`: what it reproduces (paper, table, dataset, split,
method, setting, metric), its value (a fraction for ratio metrics, whatever the paper prints), the
seeds behind it, and where it came from (config, data provenance with the synthetic flag, code version,
device, wall time). Notebooks write records, tables and figures only through a :class:`Run`, which
also writes the run's settings beside them and keeps synthetic and smoke outputs away from the
committed real results.
"""

from __future__ import annotations

import json
import platform
import re
import subprocess
import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from reproq import __version__, paths

# Papers whose tables print ratio metrics as percentages (the others print fractions).
PERCENT_PAPERS = {"lei2016", "dossantos2015", "rankine2016"}
RATIO_METRIC = re.compile(r"^(MAP|MRR|P@\d+|Accuracy@\d+|AUC.*)$")
KEYS = ["paper", "table", "dataset", "split", "method", "setting", "metric"]


@dataclass(frozen=True)
class Record:
    """One reproduced number, with everything needed to say where it came from."""

    paper: str
    table: str
    dataset: str
    split: str
    method: str
    setting: str
    metric: str
    value: float
    variant: str = ""  # what tells our run apart from the paper's method (e.g. "shipped scores", "title only")
    seeds: tuple[int, ...] = ()
    synthetic: bool = False
    config: dict = field(default_factory=dict)
    data: dict = field(default_factory=dict)  # provenance: {file key: git blob sha1} or generator settings
    code_version: str = ""
    device: str = "cpu"
    wall_time_s: float | None = None


def code_version() -> str:
    """``<version>+g<commit>[.dirty]`` of the working tree, or the package version outside git."""
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=paths.ROOT, capture_output=True,
                                text=True, check=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "reproq", "notebooks"], cwd=paths.ROOT,
                               capture_output=True, text=True, check=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return __version__
    return f"{__version__}+g{commit}" + (".dirty" if dirty else "")


def paper_value(raw: str) -> float:
    """A paper's printed number as a float: ``'423K'`` → 423000.0, ``'1.05M'`` → 1050000.0, ``'N/A'`` → nan."""
    text = str(raw).strip()
    scale = {"K": 1e3, "M": 1e6}.get(text[-1:], 1.0)
    try:
        return float(text[:-1] if scale != 1.0 else text) * scale
    except ValueError:
        return float("nan")


def paper_numbers(paper: str | None = None, table: str | None = None) -> pd.DataFrame:
    """The papers' tables (the project's copy of ``paper_numbers.csv``), with a numeric ``value``.

    ``printed`` keeps the text as printed; ``value`` is a float, ratio metrics as fractions.
    """
    df = pd.read_csv(paths.PAPER_NUMBERS_CSV, dtype=str, keep_default_na=False)
    df["printed"] = df["value"]
    df["value"] = df["printed"].map(paper_value)
    percent = df["paper"].isin(PERCENT_PAPERS) & df["metric"].str.match(RATIO_METRIC)
    df.loc[percent, "value"] = df.loc[percent, "value"] / 100.0
    if paper is not None:
        df = df[df["paper"] == paper]
    if table is not None:
        df = df[df["table"] == table]
    return df.drop(columns=["seed_file"]).reset_index(drop=True)


def records_frame(records: Iterable[Record]) -> pd.DataFrame:
    return pd.DataFrame([asdict(r) for r in records])


def summarize(records: Iterable[Record]) -> pd.DataFrame:
    """Mean, std and number of seeds per (paper, table, …, metric, variant), keeping the synthetic flag."""
    df = records_frame(records)
    if df.empty:
        return pd.DataFrame(columns=KEYS + ["variant", "synthetic", "mean", "std", "n"])
    grouped = df.groupby(KEYS + ["variant", "synthetic"], sort=False)["value"]
    out = grouped.agg(mean="mean", std=lambda v: float(np.std(v, ddof=1)) if len(v) > 1 else float("nan"),
                      n="count")
    return out.reset_index()


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
    label = "synthetic (not a reproduction)" if synthetic else "reproduced"
    table = table.rename(columns={"mean": label, "paper_value": "in paper"})
    if synthetic:  # a gap to the paper means nothing on synthetic data
        table = table.drop(columns=["delta", "in paper"])
    return table.drop(columns=["synthetic"])


def format_table(table: pd.DataFrame, *, decimals: int = 1) -> pd.DataFrame:
    """Round numbers for display and print ``mean ± std`` where several seeds stand behind a number."""
    shown = table.copy()
    value_col = "reproduced" if "reproduced" in shown else "synthetic (not a reproduction)"
    if value_col in shown:
        shown[value_col] = [
            f"{m:.{decimals}f}" + (f" ± {s:.{decimals}f}" if n > 1 and s == s else "")
            for m, s, n in zip(shown[value_col], shown["std"], shown["n"])
        ]
        shown = shown.drop(columns=["std"])
    return shown.round(decimals)


def side_by_side(table: pd.DataFrame) -> pd.DataFrame:
    """A compact view of a :func:`compare` table for reading: one row per method (and whatever else varies),
    one column per (split, metric), the paper's number under the reproduced one. Key columns that are the
    same on every row are left out."""
    value = "reproduced" if "reproduced" in table else "synthetic (not a reproduction)"
    shown = [value] + (["in paper"] if "in paper" in table else [])
    rows = [c for c in KEYS + ["variant"] if c not in ("split", "metric") and table[c].nunique() > 1]
    columns = [c for c in ("split", "metric") if table[c].nunique() > 1] or ["metric"]
    return table.pivot_table(index=rows or ["method"], columns=columns, values=shown, aggfunc="first", sort=False)


class Run:
    """Where a notebook writes its deliverables; writes the run's settings beside each of them.

    In a notebook::

        run = Run("01_lexical_baselines", profile=PROFILE, parameters={"SEEDS": SEEDS})
        run.report(records, "lei2016_table2_bm25", scale=100, caption="Lei et al. 2016 Table 2, BM25 row.")

    Outputs land in ``results/<notebook>/`` and ``figures/<notebook>/`` with a ``settings.json`` that
    says, per file, which parameters, code version, device and data produced it. Outputs of synthetic
    data get ``__synthetic`` in their names; smoke runs write under ``build/smoke/`` (see
    :func:`reproq.paths.output_dirs`). Neither can overwrite committed real results.
    """

    def __init__(self, notebook: str, *, profile: str, parameters: dict | None = None, device: str = "cpu"):
        self.notebook, self.profile, self.device = notebook, profile, device
        self.parameters = dict(parameters or {})
        results_dir, figures_dir = paths.output_dirs(profile)
        self.results_dir, self.figures_dir = results_dir / notebook, figures_dir / notebook
        self.started = time.time()

    def _stem(self, name: str, synthetic: bool) -> str:
        return f"{name}__synthetic" if synthetic and not name.endswith("__synthetic") else name

    def settings(self, **extra) -> dict:
        return {
            "notebook": self.notebook, "profile": self.profile, "parameters": self.parameters,
            "code_version": code_version(), "device": self.device, "python": platform.python_version(),
            "written_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "elapsed_s": round(time.time() - self.started, 1),
            **extra,
        }

    def _write_settings(self, path: Path, **extra) -> None:
        """Record the settings behind ``path`` in ``settings.json`` beside it (one entry per output)."""
        index = path.parent / "settings.json"
        entries = json.loads(index.read_text()) if index.is_file() else {}
        entries[path.name] = self.settings(**extra)
        index.write_text(json.dumps(dict(sorted(entries.items())), indent=2, default=str) + "\n")

    def save_records(self, records: Sequence[Record], name: str) -> Path:
        """Write records as JSON lines (``<name>.jsonl``)."""
        synthetic = any(r.synthetic for r in records)
        path = self.results_dir / f"{self._stem(name, synthetic)}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(asdict(r), default=str) + "\n" for r in records))
        self._write_settings(path, synthetic=synthetic)
        return path

    def save_table(self, table: pd.DataFrame, name: str, *, synthetic: bool, caption: str = "") -> Path:
        """Write a table as CSV and Markdown (``<name>.csv``, ``<name>.md``) with its caption."""
        stem = self._stem(name, synthetic)
        path = self.results_dir / f"{stem}.csv"
        path.parent.mkdir(parents=True, exist_ok=True)
        table.to_csv(path, index=False)
        caption = ("SYNTHETIC DATA, not a reproduction. " if synthetic else "") + caption
        path.with_suffix(".md").write_text(f"{caption}\n\n{table.to_markdown(index=False)}\n")
        self._write_settings(path, synthetic=synthetic, caption=caption)
        return path

    def report(self, records: Sequence[Record], name: str, *, caption: str, scale: float = 1.0,
               decimals: int = 1) -> pd.DataFrame:
        """Save ``records`` and their side-by-side table with the paper (see :func:`compare`); return a
        compact copy for display (key columns that are the same on every row are left out)."""
        synthetic = any(r.synthetic for r in records)
        self.save_records(records, name)
        table = format_table(compare(records, scale=scale), decimals=decimals)
        self.save_table(table, name, synthetic=synthetic, caption=caption)
        return side_by_side(table)

    def save_figure(self, fig, name: str, *, synthetic: bool) -> Path:
        """Save a matplotlib figure as PNG; a synthetic figure must say so in its title."""
        if synthetic and "synthetic" not in _figure_titles(fig).lower():
            raise ValueError(f"figure {name!r} shows synthetic data but its title does not say 'synthetic data'")
        path = self.figures_dir / f"{self._stem(name, synthetic)}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, dpi=120, bbox_inches="tight")
        self._write_settings(path, synthetic=synthetic)
        return path


def _figure_titles(fig) -> str:
    titles = [fig._suptitle.get_text()] if getattr(fig, "_suptitle", None) else []
    return " ".join(titles + [ax.get_title() for ax in fig.axes])


def banner(synthetic: bool, what: str):
    """A loud notice for the notebook, shown above results that come from a synthetic stand-in."""
    from IPython.display import Markdown

    if not synthetic:
        return Markdown(f"Real data: {what}.")
    return Markdown(f"> **⚠ SYNTHETIC DATA — {what}.** The real files are not available here, so this section "
                    "runs on the deterministic synthetic stand-in. Its numbers show that the code runs and "
                    "learns; they are **not** a reproduction of any paper and are never compared with one.")
