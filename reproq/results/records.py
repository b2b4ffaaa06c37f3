"""Result records and where they came from.

Every number the study produces is a :class:`Record`: what it reproduces (paper, table, dataset, split,
method, setting, metric), its value (a fraction for ratio metrics, whatever the paper prints), the
seeds behind it, and where it came from (config, data provenance with the synthetic flag, code version,
device, wall time). A :class:`Provenance` resolves the where-from once per run — the device actually used
(never ``"auto"``), the code version, the data files' blob ids, the word vectors — and stamps it on every
record it builds (:meth:`Provenance.records`).
"""

from __future__ import annotations

import json
import math
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from reproq import __version__, atomic, paths, run_settings
from reproq.notebook_json import readings_only
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
    per_question: tuple[float, ...] = ()  # the metric of each evaluated question, in the split's order (6 decimals)
    run: dict = field(default_factory=dict)  # the settings it ran under: threads, executor, ... (reproq.run_settings)


def read_records(path: Path) -> list[Record]:
    """The records of a ``.jsonl`` file (:meth:`reproq.results.Outputs.save_records`); ValueError naming the file and
    line of one that is not a record, or whose field is of the wrong kind (:func:`_checked`)."""
    records = []
    for number, line in enumerate(atomic.unlinked(path, reading=True).read_text().splitlines(), start=1):
        if not line.strip():
            continue
        try:
            fields = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}, line {number}: not a JSON record ({exc.msg}); rerun the notebook "
                             f"{Path(path).parent.name} to write it again") from None
        except RecursionError:
            raise ValueError(f"{path}, line {number}: not a record (nested too deep to read); rerun the notebook "
                             f"{Path(path).parent.name} to write it again") from None
        try:
            records.append(Record(**_checked(fields)))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{path}, line {number}: {exc}; rerun the notebook {Path(path).parent.name} to write it "
                             "again") from None
    return records


_STRINGS = ("paper", "table", "dataset", "split", "method", "setting", "metric", "variant", "code_version", "device",
            "machine")


def _checked(fields) -> dict:
    """A record's fields as :class:`Record` takes them, or ValueError saying which is not what it must be (a value
    that is no number, seeds that are no list of integers: a field of the wrong kind would pair with nothing)."""
    if not isinstance(fields, dict):
        raise ValueError(f"not a record (a JSON {type(fields).__name__.replace('str', 'string')}, not an object)")
    missing = [k for k in ("paper", "table", "dataset", "split", "method", "setting", "metric", "value")
               if k not in fields]
    if missing:
        raise ValueError(f"not a record (missing {', '.join(missing)})")
    for k in _STRINGS:
        if k in fields and not isinstance(fields[k], str):
            raise ValueError(f"{k!r} must be a string, got {fields[k]!r}")
    if isinstance(fields["value"], bool) or not isinstance(fields["value"], (int, float)):
        raise ValueError(f"'value' must be a number, got {fields['value']!r}")
    if not math.isfinite(fields["value"]):
        raise ValueError(f"'value' must be a finite number, got {fields['value']!r}")
    for k in ("config", "data", "run"):
        if not isinstance(fields.get(k, {}), dict):
            raise ValueError(f"{k!r} must be an object, got a JSON {type(fields[k]).__name__}")
    if not isinstance(fields.get("synthetic", False), bool):
        raise ValueError(f"'synthetic' must be true or false, got {fields['synthetic']!r}")
    seeds = fields.get("seeds", [])
    if not isinstance(seeds, list) or not all(isinstance(x, int) and not isinstance(x, bool) for x in seeds):
        raise ValueError(f"'seeds' must be a list of integers, got {seeds!r}")
    per_question = fields.get("per_question", [])
    if not isinstance(per_question, list) or not all(isinstance(x, (int, float)) and not isinstance(x, bool)
                                                     and math.isfinite(x) for x in per_question):
        raise ValueError("'per_question' must be a list of finite numbers")
    return {**{k: v for k, v in fields.items() if k in Record.__dataclass_fields__},
            "seeds": tuple(seeds), "per_question": tuple(per_question)}


def code_version() -> str:
    """``<version>+g<commit>[.dirty]`` of the working tree, or the package version outside git. A notebook whose only
    change is the text of its reading cells (written from the records after a run: :mod:`reproq.report.readings`)
    leaves it clean, so the notebooks of one batch all name the commit they ran."""
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=paths.ROOT, capture_output=True, text=True, check=True,
                              timeout=10).stdout

    try:
        commit = git("rev-parse", "--short", "HEAD").strip()
        changed = git("status", "--porcelain", "--", "reproq", "notebooks").splitlines()
        dirty = any(not (line[:2] == " M" and line.endswith(".ipynb") and
                         readings_only(json.loads((paths.ROOT / line[3:]).read_text()),
                                       json.loads(git("show", f"HEAD:{line[3:]}"))))
                    for line in changed)
    except (OSError, subprocess.SubprocessError, json.JSONDecodeError):
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
    run: Mapping[str, str] = field(default_factory=dict)  # reproq.run_settings.current(): threads, executor, ...

    @classmethod
    def resolve(cls, data: Mapping[str, str] | None = None, *, synthetic: bool = False, device: str = "cpu",
                word_vectors: str | None = None) -> Provenance:
        """``device`` as the run asked for it (``"auto"`` included), recorded as the device it gets."""
        from reproq.train.runtime import device_name, resolve_device  # torch only where a device is resolved

        name = device_name(resolve_device(device))
        return cls(dict(data or {}), synthetic, name, word_vectors, machine=describe(name), run=run_settings.current())

    def records(self, values: Mapping[str, float], *, paper: str, table: str, dataset: str, split: str,
                method: str, setting: str = "-", variant: str = "", seeds: Sequence[int] = (),
                config: Mapping | None = None, wall_time_s: float | None = None,
                metrics: Sequence[str] | None = None, run: Mapping[str, str] | None = None) -> list[Record]:
        """One :class:`Record` per metric in ``values`` (or in ``metrics``); counts such as ``n_queries``
        are left out unless named. ``values["per_query"]`` (name -> one value per question), where present, becomes
        each record's ``per_question``. ``run``: the settings a trained run was trained under, where they differ from
        this process's (a run reused from its checkpoint)."""
        names = metrics or [k for k, v in values.items() if not k.startswith("n_") and not isinstance(v, Mapping)]
        data = dict(self.data) | ({"word_vectors": self.word_vectors} if self.word_vectors else {})
        per_question = values.get("per_query", {})
        return [Record(paper=paper, table=table, dataset=dataset, split=split, method=method, setting=setting,
                       metric=name, value=float(values[name]), variant=variant, seeds=tuple(seeds),
                       synthetic=self.synthetic, config=dict(config or {}), data=data,
                       code_version=self.code_version, device=self.device, wall_time_s=wall_time_s,
                       machine=self.machine, per_question=tuple(round(v, 6) for v in per_question.get(name, ())),
                       run=dict(run or self.run))
                for name in names]


def run_records(runs: Sequence, provenance: Provenance, *, paper: str, table: str, dataset: str, method: str,
                setting: str = "-", splits: Sequence[str] = ("dev", "test"), metrics: Sequence[str] | None = None,
                variant: str = "") -> list[Record]:
    """One record per training run (a :class:`~reproq.train.grid.RunResult`), evaluated set and metric, at each
    run's best dev epoch (:func:`summarize` gives mean ± std over the seeds). ``splits`` name sets of
    ``run.scores``; a record's split is that name with ``-`` for ``_`` (``test_clean`` -> ``test-clean``). Each record
    carries the settings its run was trained under (:attr:`~reproq.train.grid.RunResult.settings`), where known."""
    records = []
    for r in runs:
        config = {**asdict(r.config), "n_parameters": r.n_parameters, "best_epoch": r.best_epoch}
        for split in splits:
            records += provenance.records(r.scores[split], paper=paper, table=table, dataset=dataset,
                                          split=split.replace("_", "-"), method=method, setting=setting,
                                          variant=variant, seeds=(r.seed,), config=config, wall_time_s=r.seconds,
                                          metrics=metrics, run=r.settings)
    return records


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
