"""Result records and where they came from.

Every number the study produces is a :class:`Record`: what it reproduces (paper, table, dataset, split,
method, setting, metric), its value (a fraction for ratio metrics, whatever the paper prints), the
seeds behind it, and where it came from (config, data provenance with the synthetic flag, code version,
device, wall time). A :class:`Provenance` resolves the where-from once per run — the device actually used
(never ``"auto"``), the code version, the data files' blob ids, the word vectors — and stamps it on every
record it builds (:meth:`Provenance.records`).
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd

from reproq import __version__, paths
from reproq.machine import describe

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
    machine: str = ""  # the CPU and the instructions its kernels use, torch's version (reproq.machine.describe)


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


@dataclass(frozen=True)
class Provenance:
    """Where a run's numbers come from, resolved once: data files (``{file key: git blob sha1}`` or the
    synthetic generator's settings), the synthetic flag, the device that computed them, the word vectors
    (what they are and were trained on, or None), the code version and the machine (:func:`reproq.machine.describe`:
    the same seed can give other trained numbers on another CPU; blank where nothing was computed, a parameter
    count say)."""

    data: Mapping[str, str] = field(default_factory=dict)
    synthetic: bool = False
    device: str = "cpu"
    word_vectors: str | None = None
    code_version: str = field(default_factory=code_version)
    machine: str = ""

    @classmethod
    def resolve(cls, data: Mapping[str, str] | None = None, *, synthetic: bool = False, device: str = "cpu",
                word_vectors: str | None = None) -> Provenance:
        """``device`` as the run asked for it (``"auto"`` included), recorded as the device it gets."""
        from reproq.train.runtime import device_name, resolve_device  # torch only where a device is resolved

        name = device_name(resolve_device(device))
        return cls(dict(data or {}), synthetic, name, word_vectors, machine=describe(name))

    def records(self, values: Mapping[str, float], *, paper: str, table: str, dataset: str, split: str,
                method: str, setting: str = "-", variant: str = "", seeds: Sequence[int] = (),
                config: Mapping | None = None, wall_time_s: float | None = None,
                metrics: Sequence[str] | None = None) -> list[Record]:
        """One :class:`Record` per metric in ``values`` (or in ``metrics``); counts such as ``n_queries``
        are left out unless named."""
        names = metrics or [k for k in values if not k.startswith("n_")]
        data = dict(self.data) | ({"word_vectors": self.word_vectors} if self.word_vectors else {})
        return [Record(paper=paper, table=table, dataset=dataset, split=split, method=method, setting=setting,
                       metric=name, value=float(values[name]), variant=variant, seeds=tuple(seeds),
                       synthetic=self.synthetic, config=dict(config or {}), data=data,
                       code_version=self.code_version, device=self.device, wall_time_s=wall_time_s,
                       machine=self.machine)
                for name in names]


def run_records(runs: Sequence, provenance: Provenance, *, paper: str, table: str, dataset: str, method: str,
                setting: str = "-", splits: Sequence[str] = ("dev", "test"), metrics: Sequence[str] | None = None,
                variant: str = "") -> list[Record]:
    """One record per training run (a :class:`~reproq.train.grid.RunResult`), evaluated set and metric, at each
    run's best dev epoch (:func:`summarize` gives mean ± std over the seeds). ``splits`` name sets of
    ``run.scores``; a record's split is that name with ``-`` for ``_`` (``test_clean`` -> ``test-clean``)."""
    records = []
    for r in runs:
        config = {**asdict(r.config), "n_parameters": r.n_parameters, "best_epoch": r.best_epoch}
        for split in splits:
            records += provenance.records(r.scores[split], paper=paper, table=table, dataset=dataset,
                                          split=split.replace("_", "-"), method=method, setting=setting,
                                          variant=variant, seeds=(r.seed,), config=config, wall_time_s=r.seconds,
                                          metrics=metrics)
    return records


@dataclass(frozen=True)
class Difference:
    """``a - b`` seed by seed: the mean, its spread, and a 95 % paired t interval over the seeds (Student's t with
    n - 1 degrees of freedom; nan with one seed). It treats the seeds as the only randomness: the test questions
    are fixed, so it says how sure we are about *this* test set, not about questions in general."""

    mean: float  # mean over the shared seeds of value(a) - value(b)
    std: float  # their standard deviation (nan with one seed)
    n: int  # how many seeds both methods share

    @property
    def interval(self) -> tuple[float, float]:
        from scipy import stats

        if self.n < 2:
            return float("nan"), float("nan")
        half = float(stats.t.ppf(0.975, self.n - 1)) * self.std / self.n ** 0.5
        return self.mean - half, self.mean + half

    def verdict(self, a: str = "a", b: str = "b") -> str:
        """``"a > b"``, ``"a < b"`` where the interval excludes 0, else ``"no difference shown"`` (``a`` and ``b``
        name the two sides)."""
        low, high = self.interval
        return f"{a} > {b}" if low > 0 else f"{a} < {b}" if high < 0 else "no difference shown"


def paired_difference(records: Iterable[Record], a: str, b: str, *, metric: str, **where) -> Difference:
    """Method ``a`` minus method ``b`` on ``metric``, seed by seed, over the records that match ``where`` (any
    record field, e.g. ``table="Table 6", split="test"``): the numbers a claim "a beats b" rests on.

    >>> rs = [Record("p", "T", "d", "test", m, "-", "MAP", v, seeds=(s,)) for m, s, v in
    ...       [("A", 1, .7), ("B", 1, .6), ("A", 2, .8), ("B", 2, .6)]]
    >>> d = paired_difference(rs, "A", "B", metric="MAP")
    >>> round(d.mean, 3), d.n, [round(x, 2) for x in d.interval], d.verdict()
    (0.15, 2, [-0.49, 0.79], 'no difference shown')
    """
    by_seed: dict[str, dict[tuple, float]] = {a: {}, b: {}}
    for r in records:
        if r.method in by_seed and r.metric == metric and all(getattr(r, k) == v for k, v in where.items()):
            by_seed[r.method][r.seeds] = r.value
    shared = sorted(set(by_seed[a]) & set(by_seed[b]))
    if not shared:
        raise ValueError(f"no seed has records of both {a!r} and {b!r} for {metric} where {where}")
    gaps = np.array([by_seed[a][s] - by_seed[b][s] for s in shared])
    return Difference(float(gaps.mean()), float(gaps.std(ddof=1)) if len(gaps) > 1 else float("nan"), len(gaps))


CLAIM_VERDICTS = ("confirmed", "contradicted", "not shown")


def claim(records: Iterable[Record], a: str, b: str, *, metric: str, **where) -> dict:
    """A claim "``a`` beats ``b`` on ``metric``" tested seed by seed (:func:`paired_difference`): Δ = a − b over the
    seeds both have, its 95 % interval, their number, and the verdict: *confirmed* where the interval is above 0,
    *contradicted* where below, *not shown* otherwise (with one seed there is no interval, and it says so).

    >>> rs = [Record("p", "T", "d", "test", m, "-", "MAP", v, seeds=(s,)) for m, s, v in
    ...       [("A", 1, .70), ("B", 1, .60), ("A", 2, .71), ("B", 2, .60), ("A", 3, .72), ("B", 3, .61)]]
    >>> c = claim(rs, "A", "B", metric="MAP")
    >>> round(c["delta"], 3), c["seeds"], c["verdict"]
    (0.107, 3, 'confirmed')
    """
    d = paired_difference(records, a, b, metric=metric, **where)
    low, high = d.interval
    verdict = "confirmed" if low > 0 else "contradicted" if high < 0 else "not shown"
    return {"delta": d.mean, "low": low, "high": high, "seeds": d.n,
            "verdict": verdict + (" (one seed: no interval)" if d.n < 2 else "")}


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
