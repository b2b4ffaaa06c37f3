"""How far the same seeds move between two machines: the records of two results folders (the committed ``results/``
and a run of the same notebooks elsewhere), compared value by value.

Training on another CPU can change the order of float sums (the kernels a BLAS library picks for the chip), and
training amplifies a last-bit difference into another chosen epoch. :func:`compare` pairs every record the two folders
share (same notebook, file, paper, table, dataset, split, method, setting, metric, variant, seeds and data: the
pairing of :mod:`reproq.report.rerun`);
:func:`spread` sums it up per notebook and file beside the seeds' own spread, which is what a reader needs to judge
a difference of the third decimal. ``reproq machines OTHER_RESULTS`` prints it; with ``--write`` it lands in
``results/machines/``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from reproq import atomic
from reproq.report import rerun

PAIRED = rerun.PAIRED


def compare(a_dir: Path, b_dir: Path, folders: list[str]) -> pd.DataFrame:
    """One row per record both folders hold, of the notebooks ``folders``, paired as a rerun is with the committed
    study (:func:`reproq.report.rerun.compare`): its keys, the two values and b − a."""
    both = rerun.compare(Path(a_dir), Path(b_dir), folders)
    both = both[~both["kind"].isin(["missing", "new"])].reset_index(drop=True)
    return both.rename(columns={"committed": "a", "rerun": "b", "rerun - committed": "b - a"})


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
