"""Every path reproq reads or writes, in one place.

Environment variables (all optional):

- ``REPROQ_DATA``: where datasets live, laid out ``<dataset>/<path in upstream repo>`` (default ``./data``).
- ``REPROQ_DATA_MIRROR``: a folder or URL with the same layout that stands in for upstream downloads.
- ``REPROQ_BUILD``: scratch space for executed notebooks, checkpoints, synthetic data (default ``./build``).

Deliverables go to ``results/`` and ``figures/`` only for real runs of the ``cpu`` and ``paper``
profiles; a ``smoke`` run writes them under ``build/smoke/`` so it never overwrites committed results.
"""

from __future__ import annotations

import os
from pathlib import Path

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


def output_dirs(profile: str) -> tuple[Path, Path]:
    """``(results_dir, figures_dir)`` for a profile; smoke runs never touch the committed ones."""
    if profile == "smoke":
        base = build_dir() / "smoke"
        return base / "results", base / "figures"
    return ROOT / "results", ROOT / "figures"
