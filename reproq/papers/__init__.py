"""One home per paper: what is that paper's, in one module each.

- :mod:`~reproq.papers.lei2016` — Lei et al. 2016, gated convolutions (RCNN) and pre-training on AskUbuntu;
- :mod:`~reproq.papers.tay2018` — Tay et al. 2018, QRNN and CTRN for answer ranking;
- :mod:`~reproq.papers.dossantos2015` — dos Santos et al. 2015, BOW-CNN;
- :mod:`~reproq.papers.smolyakov2017` — Smolyakov & Srikant 2017, AskUbuntu → Android domain adaptation;
- :mod:`~reproq.papers.rankine2016` — Rankine 2016, CBOW and GRU variants;

and what none of them has: :mod:`~reproq.papers.side_by_side`, every encoder of the five on the real answer-ranking
data under one protocol.

Each holds its :class:`~reproq.papers.paper.Paper` (citation, figures, claims, why some numbers cannot be had here),
its configurations at a profile's scale, its tables' builders and its figures' numbers, and the readings its
notebooks' committed Markdown is generated from (``READINGS``, :mod:`reproq.report.readings`) and the README's
findings that read them (``FINDINGS``); the figures are drawn
in :mod:`reproq.figures`, one module per paper as here, outside the code a checkpoint is bound to; what several papers
share (batches, evaluation, training runs) stays in the task packages.
"""

from __future__ import annotations

from reproq.papers import dossantos2015, lei2016, rankine2016, side_by_side, smolyakov2017, tay2018
from reproq.papers.paper import Claim, Finding, Paper
from reproq.reading_cells import BESIDE_THE_PAPER

MODULES = (lei2016, tay2018, dossantos2015, smolyakov2017, rankine2016)
PAPERS: dict[str, Paper] = {m.PAPER.key: m.PAPER for m in MODULES}
# "<paper>.<name>" -> reading(records of a notebook's results folder, the folder) -> Markdown (reproq.report.readings)
_KEYED = [*((m.PAPER.key, m) for m in MODULES), ("side_by_side", side_by_side)]  # the modules that have readings
READINGS = {f"{key}.{name}": reading for key, module in _KEYED
            for name, reading in getattr(module, "READINGS", {}).items()}
# the README's findings, in the order of their results folders (the notebooks' order): (finding, the name of its
# reading: "<paper>.<reading>", or "beside:<file>")
FINDINGS: list[tuple[Finding, str]] = sorted(
    ((f, f.reading if f.reading.startswith(BESIDE_THE_PAPER) else f"{key}.{f.reading}")
     for key, module in _KEYED for f in getattr(module, "FINDINGS", ())),
    key=lambda pair: pair[0].folder)

__all__ = ["FINDINGS", "MODULES", "PAPERS", "READINGS", "Claim", "Finding", "Paper"]
