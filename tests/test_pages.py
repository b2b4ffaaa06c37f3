"""One committed Markdown page per paper (results/13_report/<paper>.md), made from the committed records."""

from __future__ import annotations

import re

import pytest

from reproq import paths
from reproq.papers import PAPERS
from reproq.report import pages, verdicts


@pytest.fixture(scope="module")
def built():
    return verdicts.build()


@pytest.mark.parametrize("paper", list(PAPERS))
def test_each_papers_page_is_the_one_the_committed_records_give(built, paper):
    page = paths.ROOT / "results" / "13_report" / f"{paper}.md"
    assert page.is_file(), f"{page} is missing: run notebook 12 or `reproq report --write`"
    assert page.read_text() == pages.paper_page(built, paper), f"{page} is stale: run `reproq report --write`"


@pytest.mark.parametrize("paper", list(PAPERS))
def test_a_page_has_every_item_in_the_papers_order_and_its_links_resolve(built, paper):
    text = pages.paper_page(built, paper)
    items = re.findall(r"^## ((?:Table|Figure) \d+)", text, flags=re.M)
    expected = [i for p, i in sorted({(r.paper, r.table) for r in built.rows.itertuples()} |
                                     {(p, f) for p, f in zip(built.figures.paper, built.figures.figure)},
                                     key=lambda pi: verdicts.item_order(*pi)) if p == paper]
    assert items == expected
    folder = paths.ROOT / "results" / "13_report"
    links = re.findall(r"\]\(([^)]+)\)", text)
    assert links, "a page links the notebooks' tables and the figures"
    assert [link for link in links if not (folder / link).resolve().is_file()] == []


def test_a_row_shows_ours_beside_the_papers_number_with_its_verdict(built):
    text = pages.paper_page(built, "tay2018")
    table6 = text.split("## Table 6")[1].split("\n## ")[0]
    qrnn = next(line for line in table6.splitlines() if "| QRNN | train=TRAIN | MAP | inputs DEV chose" in line)
    assert "| 0.7 | 0.748 ± 0.005 |" in qrnn and "not reproduced" in qrnn and "04_trecqa_ctrn" in qrnn
