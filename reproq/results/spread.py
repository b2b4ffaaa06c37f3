"""How far the same seeds move between two machines, as ``reproq machines --write`` recorded it
(``results/machines/cross_machine*.csv``, :mod:`reproq.report.machines`), and whether a verdict could turn on another
machine: read by the report's verdicts and the readings that mark a verdict *machine-sensitive*."""

from __future__ import annotations

from pathlib import Path

import pandas as pd


def cross_machine_spread(results_dir, notebook: str) -> float:
    """The largest move of a mean over seeds between two machines for ``notebook``'s records, as ``reproq machines
    --write`` recorded it (``results_dir/machines/cross_machine*.csv``); nan where the notebook has not been run on two
    machines."""
    moves = [row for path in sorted((Path(results_dir) / "machines").glob("cross_machine*.csv"))
             for row in pd.read_csv(path).to_dict("records") if row["notebook"] == notebook]
    moved = [float(r["largest |b - a|, mean of seeds"]) for r in moves]
    return max((m for m in moved if m == m), default=float("nan"))  # a file of one-seed records has no mean: nan


def machine_sensitive(low: float, high: float, edges, spread: float) -> bool:
    """Whether the interval [``low``, ``high``] has an edge within ``spread`` (:func:`cross_machine_spread`) of one of
    ``edges`` (0 for a sign; ± the margin for an equivalence; a claimed size's ends): the same seeds on another CPU
    could turn its verdict. False where the spread is not known (nan) or there is no interval.

    >>> machine_sensitive(0.002, 0.03, (0.0,), 0.0037), machine_sensitive(0.005, 0.03, (0.0,), 0.0037)
    (True, False)
    >>> machine_sensitive(-0.012, -0.002, (-0.01, 0.01), 0.0037), machine_sensitive(0.0, 0.1, (0.0,), float("nan"))
    (True, False)
    """
    return any(abs(x - edge) <= spread for x in (low, high) for edge in edges)


def marked(verdict: str, low: float, high: float, edges, spread: float) -> str:
    """``verdict`` as ``"machine-sensitive, <verdict>"`` where :func:`machine_sensitive` says another CPU could turn it.

    >>> marked("confirmed", 0.002, 0.03, (0.0,), 0.0037), marked("confirmed", 0.005, 0.03, (0.0,), 0.0037)
    ('machine-sensitive, confirmed', 'confirmed')
    """
    return f"machine-sensitive, {verdict}" if machine_sensitive(low, high, edges, spread) else verdict
