"""The committed site (``docs/``, issue 44): the report a reader opens without installing anything, current with the
committed records, every link and figure inside it, no ``nan``, no folder of the machine that built it."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from reproq import paths
from reproq.report import guide, site, verdicts

DOCS = paths.ROOT / "docs"


def _files(root: Path) -> dict[str, bytes]:
    """The site's files by name, but the guide's hand-written pages (``docs/guide/*.md``), which no build makes."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not (p.relative_to(root).parts[0] == guide.GUIDE.name and p.suffix == ".md")}


@pytest.fixture(scope="module")
def rebuilt(tmp_path_factory):
    """A publish into a copy of ``docs/`` that holds only the guide's hand-written pages, as a checkout has them."""
    docs = tmp_path_factory.mktemp("site") / "docs"
    (docs / guide.GUIDE.name).mkdir(parents=True)
    for page in guide.guide_pages():
        shutil.copyfile(page, docs / guide.GUIDE.name / page.name)
    return site.publish(verdicts.build(), docs).parent


def test_the_committed_site_is_what_the_committed_records_give(rebuilt):
    """The page and its figures byte for byte; the notebooks' pages by name (nbconvert's HTML and JupyterLab's
    stylesheet move with their versions, not with the records)."""
    committed, fresh = _files(DOCS), _files(rebuilt)
    assert sorted(committed) == sorted(fresh), "docs/ has other files than a build: run `reproq report --write`"
    stale = [name for name in fresh if not name.startswith("notebooks/") and committed[name] != fresh[name]]
    assert not stale, f"docs/ is stale ({', '.join(stale[:5])}): run `reproq report --write`"


def test_a_publish_replaces_the_whole_site_but_keeps_the_guides_pages(tmp_path):
    docs = tmp_path / "docs"
    (docs / "guide").mkdir(parents=True)
    (docs / "guide" / "running.md").write_text("# Running\n")
    (docs / "stale.html").write_text("from an earlier build")
    site.publish(verdicts.build(), docs)
    assert (docs / "guide" / "running.md").read_text() == "# Running\n"
    assert sorted(p.name for p in (docs / "guide").iterdir()) == ["running.html", "running.md"]  # its HTML, built
    assert not (docs / "stale.html").exists() and (docs / "index.html").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs"]  # no scratch or old build left beside it


def test_every_link_and_figure_of_the_site_is_inside_it():
    pages = [DOCS / "index.html", *sorted((DOCS / "notebooks").glob("*.html")), *sorted((DOCS / "guide").glob("*.html"))]
    assert len(pages) > 1 + 13 + 7  # the report, every notebook's page, the guide's pages
    for page in pages:
        text = page.read_text(encoding="utf-8")
        targets = re.findall(r'(?:href|src)="([^"#:]+)(?:#[^"]*)?"', text) + re.findall(r"(?:href|src)='([^'#:]+)'",
                                                                                          text)
        missing = [t for t in targets if t and not (page.parent / t).resolve().is_file()]
        assert not missing, f"{page.relative_to(DOCS)} links to what the site lacks: {missing[:5]}"
        assert not re.search(r"(/home/|/root/|/work/|/tmp/|file://)", text), f"{page.name} names a local folder"
    index = (DOCS / "index.html").read_text(encoding="utf-8")
    assert len(re.findall(r'<img src="figures/', index)) >= 10
    assert not re.search(r"<td>\s*-?nan\s*</td>", index, re.IGNORECASE)
    assert not re.search(r"<td>-0(\.0+)?</td>", index), "a number that rounds to 0 keeps its minus sign"
    assert "&lt;a href" not in index, "a link printed as text"


def test_the_site_is_small_and_each_notebook_shares_one_stylesheet():
    size = sum(len(b) for b in _files(DOCS).values())
    assert size < 8 * 2**20, f"docs/ is {size / 2**20:.1f} MB"
    notebooks = sorted((DOCS / "notebooks").glob("*.html"))
    assert notebooks and all(f'href="{site.NOTEBOOK_CSS}"' in p.read_text(encoding="utf-8") for p in notebooks)


def test_the_guides_pages_are_in_the_site_and_the_report_links_them():
    pages = sorted((DOCS / "guide").glob("*.html"))
    assert [p.stem for p in pages] == [p.stem for p in guide.guide_pages()]
    ids = {p.name: set(re.findall(r' id="([^"]+)"', p.read_text(encoding="utf-8"))) for p in pages}
    dangling = [f"{page.name}: {target}#{heading}" for page in pages
                for target, heading in re.findall(r'href="([^"#:]*)#([^"]+)"', page.read_text(encoding="utf-8"))
                if heading not in ids[target or page.name]]
    assert not dangling, f"links to headings a page lacks: {dangling[:5]}"
    index = (DOCS / "index.html").read_text(encoding="utf-8")
    assert all(f"href='guide/{p.name}'" in index for p in pages)


def test_a_guide_page_links_another_by_heading_and_names_what_is_outside_the_site(tmp_path):
    """A link to another guide page's heading lands on that heading (GitHub's anchor, as on the repository); a link
    out of the site (the README, the code) is the path it names, not a link a static host would lose."""
    (tmp_path / "docs" / "guide").mkdir(parents=True)
    (tmp_path / "docs" / "guide" / "a.md").write_text(
        "# Page A\n\nSee [the threads](b.md#threads-and-cores-n) and [the README](../../README.md#top).\n")
    (tmp_path / "docs" / "guide" / "b.md").write_text("# Page B\n\n## Threads and cores (n)\n\nText.\n")
    titles = site._guide_pages(tmp_path / "out", sorted((tmp_path / "docs" / "guide").glob("*.md")))
    assert titles == {"guide/a.html": "Page A", "guide/b.html": "Page B"}
    a, b = ((tmp_path / "out" / "guide" / f"{n}.html").read_text() for n in "ab")
    assert '<a href="b.html#threads-and-cores-n">the threads</a>' in a
    assert 'id="threads-and-cores-n"' in b
    assert "the README (<code>README.md</code> in the repository)" in a and "README.md#top" not in a
    assert "href='../index.html'" in a  # back to the report
