"""Which cells of a notebook's JSON are reading cells: Markdown whose words are generated from the committed records
(metadata ``{"reproq": {"reading": "<paper>.<name>"}}``; :mod:`reproq.report.readings` writes them).

Their words are no input of the notebook: the batch leaves them out of a notebook's fingerprint, and a notebook whose
only change is in them does not make the code version dirty (:func:`reproq.results.records.code_version`). Plain JSON
helpers, importing nothing of reproq, so that both can use them.
"""

from __future__ import annotations

KEY = "reading"
BESIDE_THE_PAPER = "beside:"  # a reading "beside:<results file stem>": that file's numbers beside the paper's


def reading_of(cell: dict) -> str | None:
    """The name of the reading a Markdown cell carries (``"tay2018.trecqa"``), or None."""
    return cell.get("metadata", {}).get("reproq", {}).get(KEY) if cell.get("cell_type") == "markdown" else None


def without_readings(nb: dict) -> dict:
    """``nb`` with its reading cells' text blanked: what a notebook's inputs are, whatever its readings say."""
    cells = [{**c, "source": []} if reading_of(c) else c for c in nb["cells"]]
    return {**nb, "cells": cells}


def readings_only(now: dict, before: dict) -> bool:
    """Whether notebook ``now`` differs from ``before`` in its reading cells' text only (or not at all)."""
    return without_readings(now) == without_readings(before)
