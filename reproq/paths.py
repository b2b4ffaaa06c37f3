"""Every path reproq reads or writes, in one place.

Environment variables (all optional):

- ``REPROQ_DATA``: where datasets live, laid out ``<dataset>/<path in upstream repo>`` (default ``data/`` in the
  checkout).
- ``REPROQ_DATA_MIRROR``: a folder or URL with the same layout that stands in for upstream downloads.
- ``REPROQ_BUILD``: scratch space for executed notebooks, checkpoints, synthetic data (default ``build/`` in the
  checkout).
- ``REPROQ_WRITE_COMMITTED``: ``1`` while ``reproq run --commit`` writes the committed study.

A relative folder is read against the folder the command starts in; ``reproq run`` hands its notebooks, which run in
``notebooks/``, the same folders made absolute (:func:`reproq.runner.absolute_folders`).

A run writes its deliverables into its run folder (``build/runs/<profile>/results`` and ``figures``; a ``smoke`` run
under ``build/smoke/``), never over the committed ``results/`` and ``figures/``, which only a maintainer's
``reproq run --commit`` writes (:func:`output_dirs`).
"""

from __future__ import annotations

import os
from pathlib import Path

from reproq import run_settings

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS_DIR = ROOT / "notebooks"
LABS_DIR = ROOT / "labs" / "source"  # the course labs, nbgrader sources (reproq.labs.course)
PAPER_NUMBERS_CSV = Path(__file__).resolve().parent / "paper_numbers.csv"


def _folder(variable: str, default: Path) -> Path:
    """The folder an environment variable names (or ``default``); ValueError if it names a file or a loop of links."""
    named = Path(os.environ.get(variable, default)).expanduser()
    try:
        folder = named.resolve()
    except RuntimeError:  # pathlib's word for a loop of symbolic links
        raise ValueError(f"{named} is a loop of symbolic links, not a folder; remove it or point {variable} "
                         "elsewhere") from None
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"{variable} points at {folder}, which is a file, not a folder")
    return folder


def data_dir() -> Path:
    """Where fetched datasets live (``REPROQ_DATA``, default ``<repo>/data``)."""
    return _folder("REPROQ_DATA", ROOT / "data")


def data_mirror() -> str | None:
    """A folder or URL that mirrors upstream as ``<dataset>/<path>`` (``REPROQ_DATA_MIRROR``), or None."""
    mirror = os.environ.get("REPROQ_DATA_MIRROR", "").strip()
    return mirror or None


def build_dir() -> Path:
    """Scratch space: executed notebooks, checkpoints, synthetic corpora (``REPROQ_BUILD``)."""
    return _folder("REPROQ_BUILD", ROOT / "build")


def synthetic_dir() -> Path:
    """Where the synthetic stand-ins are generated (same layout as :func:`data_dir`)."""
    return build_dir() / "synthetic"


COMMITTED_PROFILE = "cpu"  # the profile the committed results/ and figures/ were run in


def committed_dirs() -> tuple[Path, Path]:
    """``(results_dir, figures_dir)`` of the committed study: what the report, the readings and a rerun's comparison
    read (written only by a run that says so: :func:`output_dirs`)."""
    return ROOT / "results", ROOT / "figures"


def run_dir(profile: str) -> Path:
    """A profile's run folder (``build/runs/<profile>/``): its stamps, and the results and figures of its runs."""
    return build_dir() / "runs" / profile


def writes_committed() -> bool:
    """Whether this process's runs write the committed study (``reproq run --commit``, for maintainers: the run
    setting ``REPROQ_WRITE_COMMITTED=1``, which the runner passes to its notebooks)."""
    return run_settings.read("committed") == "1"


def output_dirs(profile: str) -> tuple[Path, Path]:
    """``(results_dir, figures_dir)`` a run of ``profile`` writes to: a smoke run's under ``build/smoke/``; any other's
    in its run folder (``build/runs/<profile>/results``, ``figures``), so that rerunning the study leaves the committed
    one as it was and can be compared with it; the committed ``results/`` and ``figures/`` only when the run writes
    the committed study (:func:`writes_committed`)."""
    if profile == "smoke":
        base = build_dir() / "smoke"
        return base / "results", base / "figures"
    if writes_committed():
        return committed_dirs()
    return run_dir(profile) / "results", run_dir(profile) / "figures"
