"""One home per paper: what is that paper's, in one module each.

- :mod:`~reproq.papers.lei2016` — Lei et al. 2016, gated convolutions (RCNN) and pre-training on AskUbuntu;
- :mod:`~reproq.papers.tay2018` — Tay et al. 2018, QRNN and CTRN for answer ranking;
- :mod:`~reproq.papers.dossantos2015` — dos Santos et al. 2015, BOW-CNN;
- :mod:`~reproq.papers.smolyakov2017` — Smolyakov & Srikant 2017, AskUbuntu → Android domain adaptation;
- :mod:`~reproq.papers.rankine2016` — Rankine 2016, CBOW and GRU variants;

and what none of them has: :mod:`~reproq.papers.side_by_side`, every encoder of the five on the real answer-ranking
data under one protocol; :mod:`~reproq.papers.real_substitute`, the four AskUbuntu papers' networks and claims on a
real question-retrieval set (SemEval-2016 3B).

Each holds its :class:`~reproq.papers.paper.Paper` (citation, figures, claims, why some numbers cannot be had here),
its settings at each profile (``SECTION`` and ``PROFILES``: :func:`profile` reads them, importing that module only),
its configurations at a profile's scale, its tables' builders and its figures' numbers, and the readings its
notebooks' committed Markdown is generated from (``READINGS``, :mod:`reproq.report.readings`) and the guide's
findings that read them (``FINDINGS``). The modules are found, not listed: a new paper is a new module here and its
notebook (which names its profile section and its checkpoint folder in its ``setup`` call); they are found when the
report asks (``PAPERS`` and the rest, on first use), so that a notebook's kernel loads its own paper only. The
figures are drawn in :mod:`reproq.figures`, one module per paper as here, outside the code a checkpoint is bound to;
what several papers share (batches, evaluation, training runs) stays in the task packages.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from collections.abc import Iterator, Mapping
from dataclasses import replace

from reproq import dependencies, imports, profiles
from reproq.notebook_json import BESIDE_THE_PAPER
from reproq.papers.paper import Claim, Finding, Paper


class _Sections(Mapping):
    """Each paper's settings at one profile, by section name (``SECTION`` and ``PROFILES`` of the module declaring it:
    :func:`reproq.dependencies.sections`, read from the sources): a module is imported when its section is asked
    for, so that a notebook's kernel loads the paper it asks for and no other."""

    def __init__(self, profile: str):
        self.profile = profile
        self.declared = dependencies.sections()

    def __getitem__(self, section: str):
        if section not in self.declared:
            raise KeyError(section)
        return importlib.import_module(self.declared[section]).PROFILES[self.profile]

    def __iter__(self) -> Iterator[str]:
        return iter(self.declared)

    def __len__(self) -> int:
        return len(self.declared)


def profile(name: str) -> profiles.Profile:
    """The profile called ``name`` (:func:`reproq.profiles.get`) with every paper's settings at it in its sections,
    each paper's module imported when its section is first read.

    >>> profile("cpu").section("question_retrieval").seeds
    (1, 2)
    """
    return replace(profiles.get(name), sections=_Sections(name))


@functools.cache
def _discovered() -> dict[str, object]:
    """What the package discovers by importing every module of it (a new paper is one new module): those with a
    PAPER are the papers, the source papers in the order of their index (their seed files), then any other by key;
    the others (side_by_side) may have readings and findings."""
    found = {info.name: importlib.import_module(f"{__name__}.{info.name}") for info in pkgutil.iter_modules(__path__)}
    modules = tuple(sorted((m for m in found.values() if hasattr(m, "PAPER")),
                           key=lambda m: (not m.PAPER.seed_file, m.PAPER.seed_file, m.PAPER.key)))
    # the modules that may have readings: the papers, then the others
    keyed = [*((m.PAPER.key, m) for m in modules),
             *((name, m) for name, m in found.items() if not hasattr(m, "PAPER") and hasattr(m, "READINGS"))]
    return {
        "MODULES": modules,
        "PAPERS": {m.PAPER.key: m.PAPER for m in modules},
        # section name -> profile name -> a module's settings at that profile
        "SECTIONS": {m.SECTION: m.PROFILES for m in found.values() if hasattr(m, "SECTION")},
        # "<paper>.<name>" -> reading(records of a notebook's results folder, the folder) -> Markdown
        # (reproq.report.readings)
        "READINGS": {f"{key}.{name}": reading for key, module in keyed
                     for name, reading in getattr(module, "READINGS", {}).items()},
        # the guide's findings, in the order of their results folders (the notebooks' order): (finding, the name of
        # its reading: "<paper>.<reading>", or "beside:<file>")
        "FINDINGS": sorted(((f, f.reading if f.reading.startswith(BESIDE_THE_PAPER) else f"{key}.{f.reading}")
                            for key, module in keyed for f in getattr(module, "FINDINGS", ())),
                           key=lambda pair: pair[0].folder),
    }


def __getattr__(name: str):
    """``MODULES``, ``PAPERS``, ``SECTIONS``, ``READINGS``, ``FINDINGS`` (:data:`reproq.imports.DISCOVERY`): found by
    importing every module of the package, on first use — by the report, never by a notebook's setup."""
    if name in imports.DISCOVERY[1]:
        return _discovered()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["FINDINGS", "MODULES", "PAPERS", "READINGS", "SECTIONS", "Claim", "Finding", "Paper", "profile"]
