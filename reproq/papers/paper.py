"""What a paper is to the study: its citation, what it has, its result figures, the claims its text makes, and why
some of its numbers run on a stand-in or cannot be had here. One :class:`Paper` per module of :mod:`reproq.papers`."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Claim:
    """"``a`` beats ``b`` on ``metric`` where ``where``" (record fields, e.g. ``table="Table 6"``), as the paper's text
    says: the report tests it seed by seed on real data (:func:`reproq.report.verdicts.claim_rows`)."""

    text: str
    a: str
    b: str
    metric: str
    where: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Paper:
    """One source paper (``../shared/seeds/<seed_file>``)."""

    key: str  # as in paper_numbers.csv and every record: "lei2016"
    short: str  # "Lei et al. 2016"
    citation: str  # authors, title, venue
    topic: str  # one line: what it is about, on which data
    has: str  # what its tables and figures hold
    seed_file: str
    figures: tuple[tuple[str, str], ...] = ()  # (item, what it shows): the figures that show a result
    claims: tuple[Claim, ...] = ()
    stand_in: dict[str, str] = field(default_factory=dict)  # dataset -> why its rows run on the synthetic stand-in
    unavailable: dict[str, str] = field(default_factory=dict)  # dataset -> why its rows are not run at all
    notebooks: tuple[str, ...] = ()  # the notebooks that build it, in reading order
    # variants of ours shown beside a number the paper does not claim them for: no verdict
    beside: tuple[str, ...] = ()
    # (item, method) -> (item, method, setting) whose runs they are: one claim printed twice, counted once
    same_as: dict[tuple[str, str], tuple[str, str, str]] = field(default_factory=dict)
    # item -> why ours cannot be compared with the paper's (another kind of machine, say)
    not_comparable: dict[str, str] = field(default_factory=dict)

    @property
    def title(self) -> str:
        """``"<short> — <topic>"``: how the report heads the paper."""
        return f"{self.short} — {self.topic}"
