"""What every notebook does before its first result, in one call: :func:`setup`.

A notebook's first code cell after its ``parameters`` cell imports what it uses and calls :func:`setup` with its
name and parameters; the :class:`Setup` it gets holds the profile (and the profile's section for the notebook's task),
the seeds (the notebook's ``SEEDS``, else the section's), the folder its runs checkpoint into, and the
:class:`~reproq.results.Outputs` through which it writes its tables, records and figures, with the parameters that made
them. The stand-in's :class:`~reproq.corpora.SyntheticDataWarning` is silenced: every notebook shows a louder banner
(:func:`reproq.results.banner`) where the stand-in is used. Its outputs read like a paper's (:func:`as_read`).
"""

from __future__ import annotations

import math
import sys
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePath

import numpy as np
import pandas as pd

from reproq import papers, paths, profiles, run_settings
from reproq.corpora import SyntheticDataWarning
from reproq.results import Outputs


@dataclass(frozen=True)
class Setup:
    """A notebook's profile, seeds, checkpoint folder and :class:`~reproq.results.Outputs` (:func:`setup`)."""

    profile: profiles.Profile
    section: object  # the profile's section for the notebook's task (a paper's settings: Lei et al.'s, ...), or None
    seeds: list[int]
    checkpoints: Path  # build/checkpoints/<name>: a killed run resumes there, a finished one is reused
    out: Outputs

    def __iter__(self):
        """``profile, section, seeds, checkpoints, out = setup(...)``: a notebook's first statement."""
        return iter((self.profile, self.section, self.seeds, self.checkpoints, self.out))


def setup(notebook: str, *, profile: str, device: str = "auto", seeds: Sequence[int] | None = None,
          section: str | None = None, n_seeds: int | None = None, checkpoints: str = "", **parameters) -> Setup:
    """Set a notebook up (module docstring).

    Parameters
    ----------
    notebook
        Its name, ``"02_lei_neural_encoders"``: its outputs go to ``results/<notebook>/`` and ``figures/<notebook>/``.
    profile, device
        Its ``PROFILE`` and ``DEVICE`` parameters.
    seeds
        Its ``SEEDS`` parameter; None takes the seeds of the profile's ``section``.
    section
        The profile's section for its task, declared by a paper module (``"question_retrieval"``: Lei et al.'s,
        ``"answer_selection"``: Tay et al.'s, ...), or None.
    n_seeds
        Keep only the first ``n_seeds`` of them (a notebook that reads one run).
    checkpoints
        The folder under ``build/checkpoints/`` its runs share ("askubuntu": notebooks 02, 03, 07 and 08 reuse each
        other's finished runs).
    parameters
        The other parameters its outputs depend on, recorded with every output (``SEEDS`` is recorded too).

    >>> s = setup("02_lei_neural_encoders", profile="smoke", seeds=None, section="question_retrieval",
    ...           checkpoints="askubuntu", DATA_SEED=0)
    >>> s.seeds, s.checkpoints.name, s.out.parameters
    ([1], 'askubuntu', {'SEEDS': [1], 'DATA_SEED': 0})
    """
    warnings.simplefilter("ignore", SyntheticDataWarning)  # the notebook's banner says it louder
    as_read()
    if said := run_settings.the_studys():  # a notebook opened in JupyterLab runs at the study's thread count too
        print(said, file=sys.stderr)
    chosen = papers.profile(profile)
    part = chosen.section(section) if section else None
    if seeds is None and part is None:
        raise ValueError(f"{notebook}: SEEDS is None and no profile section to take the seeds from")
    seeds = list(seeds if seeds is not None else part.seeds)[:n_seeds]
    profiles.check_seeds(seeds)
    folder = paths.build_dir() / "checkpoints" / checkpoints if checkpoints else paths.build_dir() / "checkpoints"
    out = Outputs(notebook, profile=profile, device=device, parameters={"SEEDS": seeds, **parameters})
    return Setup(chosen, part, seeds, folder, out)


def number(x: float) -> str:
    """A float as the study's tables print it: four decimals, a whole number without any, no minus sign on a zero,
    a missing value blank.

    >>> [number(x) for x in (0.70312977, 20000.0, -0.0, float("nan"), 1e20)]
    ['0.7031', '20000', '0', '', '1e+20']
    """
    if math.isnan(x):
        return ""
    x += 0.0  # -0.0 is 0
    if x.is_integer() and abs(x) < 1e15:
        return f"{x:.0f}"
    return f"{x:.4f}" if math.isfinite(x) and abs(x) < 1e15 else f"{x:g}"


def table_html(table: pd.DataFrame) -> str:
    """A table as a notebook shows it (:func:`as_read`): pandas' HTML at :func:`number`'s precision, a missing value
    blank, at most 60 rows shown."""
    return table.to_html(na_rep="", float_format=number, max_rows=60)


def as_read(shell=None) -> None:
    """Make the outputs of the running notebook (``shell``, default: IPython's, none outside a kernel) read like a
    paper's: a table's numbers at :func:`number`'s precision with a missing value blank (not ``NaN``), a float at
    the same precision wherever it is shown, a path as the file it names (not ``PosixPath(...)``)."""
    if shell is None:
        from IPython import get_ipython  # a notebook's kernel; none in a plain process

        shell = get_ipython()
    if shell is None:
        return
    html, plain = (shell.display_formatter.formatters[kind] for kind in ("text/html", "text/plain"))
    html.for_type(pd.DataFrame, table_html)
    plain.for_type(pd.DataFrame, lambda table, p, cycle: p.text(
        table.to_string(na_rep="", float_format=number, max_rows=60)))
    plain.for_type(pd.Series, lambda series, p, cycle: p.text(
        series.to_string(na_rep="", float_format=number, max_rows=60)))
    for kind in (float, np.float64, np.float32):  # numpy's floats have a repr of their own, found before float's
        plain.for_type(kind, lambda x, p, cycle: p.text(number(float(x)) or "nan"))
    plain.for_type(PurePath, lambda path, p, cycle: p.text(str(path)))
