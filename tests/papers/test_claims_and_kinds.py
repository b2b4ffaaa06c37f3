"""What each paper's module says of the paper is checked against the paper's own numbers (paper_numbers.csv): its
claims point the way its tables do, and every number it gives a kind exists."""

from __future__ import annotations

import pandas as pd
import pytest

from reproq.papers import PAPERS, Claim
from reproq.papers.paper import KINDS
from reproq.results.tables import paper_numbers

CLAIMS = [(paper.key, c) for paper in PAPERS.values() for c in paper.claims]


def printed(paper: str, claim: Claim) -> tuple[float, float]:
    """The paper's own ``a`` and ``b`` on the claim's metric, where the claim tests it (or where the paper prints it:
    ``paper_where``); one number each."""
    numbers = paper_numbers(paper)
    where = {**claim.where, **claim.paper_where}
    values = numbers[(numbers.metric == claim.metric)
                     & numbers[list(where)].eq(pd.Series(where)).all(axis=1)].set_index("method")["value"]
    assert {claim.a, claim.b} <= set(values.index), f"{claim.text}: the paper prints no {claim.metric} of both"
    assert values[[claim.a]].size == values[[claim.b]].size == 1, f"{claim.text}: narrow its where to one row each"
    return values[claim.a], values[claim.b]


@pytest.mark.parametrize("paper, claim", CLAIMS, ids=[c.text for _, c in CLAIMS])
def test_each_claim_points_the_way_the_papers_own_numbers_do(paper, claim):
    """A claim is the paper's own: its sentence is quoted with its section, and the paper's table has ``a`` above
    ``b`` on the metric the sentence is about."""
    assert claim.quote.startswith('"') and "(§" in claim.quote, f"{claim.text}: quote the paper's sentence and section"
    a, b = printed(paper, claim)
    assert a > b, f"{claim.text}: the paper's own numbers point the other way ({a} vs {b})"
    assert set(claim.beside) <= set(paper_numbers(paper).metric), f"{claim.text}: the paper prints no such metric"


def test_a_claim_the_wrong_way_round_is_caught():
    """The claim an earlier version tested, weighted CBOW above TF-IDF, reads the other way in Rankine's Table 1
    (65.5 < 66.7 dev MRR), and Tay et al.'s QRNN above LSTM on TRAIN (0.7000 < 0.7007 MAP)."""
    wrong = [("rankine2016", Claim("", "Weighted CBOW", "TF-IDF", "MRR", dict(table="Table 1", split="dev"))),
             ("tay2018", Claim("", "QRNN", "LSTM", "MAP", dict(table="Table 6", split="test", setting="train=TRAIN")))]
    for paper, claim in wrong:
        a, b = printed(paper, claim)
        assert not a > b


@pytest.mark.parametrize("paper", list(PAPERS))
def test_every_kind_names_numbers_the_paper_prints(paper):
    numbers = paper_numbers(paper)
    for key, kind in PAPERS[paper].kinds.items():
        assert kind in KINDS
        item = numbers[numbers.table == key[0]]
        assert len(item), f"{paper}: no {key[0]} in paper_numbers.csv"
        for name in key[1:]:
            assert name in set(item.method) | set(item.metric), f"{paper} {key}: {name!r} is no method or metric"
    for item, method in [*PAPERS[paper].counted_under, *PAPERS[paper].fitted]:
        assert len(numbers[(numbers.table == item) & (numbers.method == method)]), f"{paper}: no {item} {method}"
