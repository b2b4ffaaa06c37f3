"""How far the same seeds move between two machines: the records of two results folders (the committed ``results/``
and a run of the same notebooks elsewhere), compared value by value.

Training on another CPU can change the order of float sums (the kernels a BLAS library picks for the chip), and
training amplifies a last-bit difference into another chosen epoch. :func:`compare` pairs every record the two folders
share (same notebook, file, paper, table, dataset, split, method, setting, metric, variant and seeds);
:func:`spread` sums it up per notebook and file beside the seeds' own spread, which is what a reader needs to judge
a difference of the third decimal. ``reproq machines OTHER_RESULTS`` prints it; with ``--write`` it lands in
``results/machines/``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from reproq import atomic
from reproq.report.verdicts import load_records
from reproq.results import KEYS

PAIRED = ["where", "file", *KEYS, "variant", "seeds"]


def _frame(results_dir: Path, folders: list[str]) -> pd.DataFrame:
    records = [r for folder in folders for r in load_records(results_dir, folder)]
    return pd.DataFrame([{"where": r.config["where"], "file": r.config["file"], **{k: getattr(r, k) for k in KEYS},
                          "variant": r.variant, "seeds": r.seeds, "value": r.value} for r in records])


def compare(a_dir: Path, b_dir: Path, folders: list[str]) -> pd.DataFrame:
    """One row per record both folders hold, of the notebooks ``folders``: its keys, the two values and b − a."""
    a, b = _frame(Path(a_dir), folders), _frame(Path(b_dir), folders)
    if a.empty or b.empty:
        return pd.DataFrame(columns=[*PAIRED, "a", "b", "b - a"])
    a["seeds"], b["seeds"] = a["seeds"].map(tuple), b["seeds"].map(tuple)
    both = a.merge(b, on=PAIRED, suffixes=(" a", " b"))
    both = both.rename(columns={"value a": "a", "value b": "b"})
    both["b - a"] = both["b"] - both["a"]
    return both


def spread(pairs: pd.DataFrame) -> pd.DataFrame:
    """Per notebook and file: records compared, how many are bit-identical, the largest |b − a| of one seed's record
    (and whose), the largest |b − a| of a mean over several seeds, and the seeds' own standard deviation there (a's)."""
    rows, keys = [], [k for k in PAIRED if k not in ("seeds", "where", "file")]
    for (where, file), group in pairs.groupby(["where", "file"], sort=True):
        moved = group[group["b - a"] != 0]
        worst = moved.loc[moved["b - a"].abs().idxmax()] if len(moved) else None
        seeded = group[group["seeds"].map(len) == 1]
        means = seeded.groupby(keys).agg(n=("a", "size"), a=("a", "mean"), b=("b", "mean"),
                                         sd=("a", lambda v: float(np.std(v, ddof=1)) if len(v) > 1 else np.nan))
        means = means[means["n"] > 1]
        shift = (means["b"] - means["a"]).abs()
        rows.append({"notebook": where, "file": file, "records": len(group), "identical": len(group) - len(moved),
                     "largest |b - a|, one seed": float(worst["b - a"]) if worst is not None else 0.0,
                     "its record": (f"{worst['method']} {worst['setting']} {worst['split']} {worst['metric']} "
                                    f"seed {','.join(map(str, worst['seeds']))}") if worst is not None else "",
                     "largest |b - a|, mean of seeds": float(shift.max()) if len(shift) else np.nan,
                     "seeds' sd there": float(means.loc[shift.idxmax(), "sd"]) if len(shift) else np.nan})
    return pd.DataFrame(rows)


def machine_of(results_dir: Path, folder: str) -> str:
    """The CPU a notebook's results were computed on, as its ``pipeline_cost.json`` entry names it."""
    costs = atomic.read_json(Path(results_dir) / "pipeline_cost.json", otherwise="its machine is said unknown")
    entry = costs.get(folder, {}) if isinstance(costs, dict) else {}
    entry = entry if isinstance(entry, dict) else {}
    return f"{entry.get('cpu', 'unknown CPU')} (code {entry.get('code_version', '?')})"
