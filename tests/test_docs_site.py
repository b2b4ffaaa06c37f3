"""The committed site (``docs/``, issue 44): the report a reader opens without installing anything, current with the
committed records, every link and figure inside it, no ``nan``, no folder of the machine that built it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from reproq import paths
from reproq.report import guide, site, verdicts

DOCS = paths.ROOT / "docs"


def _files(root: Path) -> dict[str, bytes]:
    """The site's files by name, but the guide's hand-written pages (``docs/guide/``), which no build makes."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.relative_to(root).parts[0] != guide.GUIDE.name}


@pytest.fixture(scope="module")
def rebuilt(tmp_path_factory):
    return site.publish(verdicts.build(), tmp_path_factory.mktemp("site") / "docs").parent


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
    assert not (docs / "stale.html").exists() and (docs / "index.html").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs"]  # no scratch or old build left beside it


def test_every_link_and_figure_of_the_site_is_inside_it():
    pages = [DOCS / "index.html", *sorted((DOCS / "notebooks").glob("*.html"))]
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
