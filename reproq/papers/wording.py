"""Words the papers' readings share (:mod:`reproq.report.readings`): a reading's first line, which says which data its
numbers are of (the stand-in's never a reproduction), and a paired difference said as the report says a paper's claim.
"""

from __future__ import annotations

from collections.abc import Sequence

from reproq.results import Record, claim
from reproq.results.paired import claim_numbers


STAND_IN = "On the synthetic AskUbuntu stand-in (a pipeline and mechanism check, never a reproduction)"


def on_data(synthetic: bool) -> str:
    """A reading's opening words: which data its numbers are of."""
    return STAND_IN if synthetic else "On the real AskUbuntu data"


def versus(records: Sequence[Record], a: str, b: str, *, metric: str, **where) -> str:
    """``"a over b: **verdict**: Δ = ±x [low, high] (what the interval resamples)"``: :func:`reproq.results.claim`
    on the records that match ``where``, printed as the report prints a paper's claim; ``""`` where either lacks
    records."""
    try:
        tested = claim(records, a, b, metric=metric, **where)
    except ValueError:
        return ""
    return f"{a} over {b}: **{tested['verdict']}**{claim_numbers(tested)}"


def framing(records: Sequence[Record], printed: str) -> str:
    """A reading's first line: which data (the stand-in's numbers never a reproduction), the seeds, how its numbers
    are ``printed``, and how its paired differences (:func:`versus`) are."""
    seeds = sorted({s for r in records for s in r.seeds})
    return (f"{on_data(any(r.synthetic for r in records))}, seeds {', '.join(map(str, seeds))}: {printed}; Δ = a − b "
            "as a fraction, with its 95 % interval and what that resamples.")


def listed(records: Sequence[Record], printed: str, lines: Sequence[str]) -> str:
    """A reading: :func:`framing`'s line, then the list of ``lines`` that have something to say."""
    return framing(records, printed) + "\n\n" + "\n".join(line for line in lines if line)
