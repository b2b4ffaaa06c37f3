"""The committed site (``docs/``): the book a reader opens without installing anything, current with the committed
records, every link and figure inside it, nothing fetched from another host, a search that works offline, no ``nan``,
no folder of the machine that built it (reproq.report.book)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from reproq import paths
from reproq.report import book, browser, guide, verdicts

DOCS = paths.ROOT / "docs"


def _files(root: Path) -> dict[str, bytes]:
    """The site's files by name, but the guide's hand-written pages (``docs/guide/*.md``), which no build makes."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not (p.relative_to(root).parts[0] == guide.GUIDE.name and p.suffix == ".md")}


def _pages(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.html") if p.relative_to(root).parts[0] != "_static")


@pytest.fixture(scope="module")
def rebuilt(tmp_path_factory):
    """A publish into a copy of ``docs/`` that holds only the guide's hand-written pages, as a checkout has them."""
    docs = tmp_path_factory.mktemp("site") / "docs"
    (docs / guide.GUIDE.name).mkdir(parents=True)
    for page in guide.guide_pages():
        shutil.copyfile(page, docs / guide.GUIDE.name / page.name)
    return book.publish(verdicts.build(), docs).parent


def test_the_committed_site_is_what_the_committed_records_give(rebuilt):
    """Every file of the book byte for byte: the same records, notebooks and guide give the same site."""
    committed, fresh = _files(DOCS), _files(rebuilt)
    assert sorted(committed) == sorted(fresh), "docs/ has other files than a build: run `reproq report --write`"
    stale = [name for name in fresh if committed[name] != fresh[name]]
    assert not stale, f"docs/ is stale ({', '.join(stale[:5])}): run `reproq report --write`"


def test_a_publish_replaces_the_whole_site_keeps_the_guides_pages_and_links_them_as_on_the_repository(tmp_path):
    """The book put in place whole: no file of an earlier build stays, the guide's Markdown stays beside its HTML, no
    scratch is left beside it. A link to another guide page's heading lands on that heading (GitHub's anchor, as on
    the repository); a link out of the book (the README, the code) is the path it names, not a link a static host
    would lose."""
    docs = tmp_path / "docs"
    (docs / "guide").mkdir(parents=True)
    (docs / "guide" / "a.md").write_text("# Page A\n\nSee [the threads](b.md#threads-and-cores-n) and "
                                         "[the README](../../README.md#top).\n")
    (docs / "guide" / "b.md").write_text("# Page B\n\n## Threads and cores (n)\n\nText.\n")
    (docs / "stale.html").write_text("from an earlier build")
    book.publish(verdicts.build(tmp_path / "results", tmp_path / "figures"), docs)  # no record: a quick book
    assert sorted(p.name for p in (docs / "guide").iterdir()) == ["a.html", "a.md", "b.html", "b.md"]
    assert (docs / "guide" / "b.md").read_text().startswith("# Page B")
    assert not (docs / "stale.html").exists() and (docs / "index.html").is_file() and (docs / ".nojekyll").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs"]  # no scratch, old build or output folder beside it
    a, b = ((docs / "guide" / f"{n}.html").read_text() for n in "ab")
    assert re.search(r'<a class="reference internal" href="b.html#threads-and-cores-n">', a)
    assert 'id="threads-and-cores-n"' in b
    assert "the README (<code" in a and "README.md</span></code> in the repository" in a and "README.md#top" not in a


def test_every_page_of_the_book_is_there_and_names_no_local_folder():
    pages = {str(p.relative_to(DOCS)) for p in _pages(DOCS)}
    expected = {"index.html", "beyond.html", "search.html"} | {f"papers/{p}.html" for p in
                                                              ("lei2016", "tay2018", "dossantos2015", "smolyakov2017",
                                                               "rankine2016")}
    expected |= {f"guide/{p.stem}.html" for p in guide.guide_pages()}
    expected |= {f"notebooks/{p.name.replace('.ipynb', '.html')}" for p in
                 (paths.ROOT / "results").glob("[0-9][0-9]_*/[0-9][0-9]_*.ipynb")}
    assert expected <= pages, f"the book lacks {sorted(expected - pages)[:5]}"
    for page in _pages(DOCS):
        text = page.read_text(encoding="utf-8")
        assert not re.search(r"(/home/|/root/|/work/|/tmp/|file://)", text), f"{page.name} names a local folder"
        targets = re.findall(r'(?:href|src)="([^"#:?]+)(?:[#?][^"]*)?"', text)
        missing = [t for t in targets if not (page.parent / t).resolve().exists()]
        assert not missing, f"{page.relative_to(DOCS)} links to what the site lacks: {missing[:5]}"


def test_no_page_or_style_of_the_book_fetches_from_another_host():
    """Scripts, styles, fonts and images all in the book: it opens whole offline (``file://``)."""
    for path in sorted(p for p in DOCS.rglob("*") if p.suffix in (".html", ".css", ".js")):
        text = path.read_text(encoding="utf-8", errors="replace")
        fetched = re.findall(r'<(?:script|link|img|iframe)\b[^>]*?\b(?:src|href)="((?:https?:)?//[^"]+)"', text)
        fetched += re.findall(r"""url\(\s*['"]?((?:https?:)?//[^'")]+)""", text) if path.suffix == ".css" else []
        assert not fetched, f"{path.relative_to(DOCS)} fetches {fetched[:3]}"


def test_no_committed_page_shows_nan_none_a_truth_value_or_a_negative_zero():
    """In the tables of the papers' pages, the summary and beyond the papers (the notebooks' pages show what their
    runs printed: issue 53's last part)."""
    for page in [DOCS / "index.html", DOCS / "beyond.html", *sorted((DOCS / "papers").glob("*.html"))]:
        cells = re.findall(r"<td[^>]*>(?:<p>)?(.*?)(?:</p>)?</td>", page.read_text(encoding="utf-8"), re.S)
        bad = [c for c in cells if re.fullmatch(r"\s*(-?nan|None|True|False|-0(\.0+)?|NaN)\s*", c)]
        assert not bad, f"{page.relative_to(DOCS)}: cells {bad[:5]}"


def test_the_site_is_small():
    size = sum(len(b) for b in _files(DOCS).values())
    assert size < 12 * 2**20, f"docs/ is {size / 2**20:.1f} MB"


def test_the_guides_pages_are_in_the_book_and_its_first_page_links_them():
    pages = sorted((DOCS / "guide").glob("*.html"))
    assert [p.stem for p in pages] == [p.stem for p in guide.guide_pages()]
    index = (DOCS / "index.html").read_text(encoding="utf-8")
    assert all(f'href="guide/{p.name}"' in index for p in pages)


def test_the_books_search_finds_a_method_offline(tmp_path, chromium):
    found = browser.search(DOCS, "CTRN", tmp_path)
    assert "papers/tay2018.html" in found and "notebooks/04_trecqa_ctrn.html" in found


def test_the_pages_with_figures_open_in_chromium_whole(tmp_path, chromium):
    """The first page, the papers' pages and what is beyond them as a reader's browser shows them: no image that fails
    to load, no link to a heading the page lacks, nothing asked of another host (the notebooks' and the guide's pages
    are read for the same above, without a browser)."""
    for page in [DOCS / "index.html", DOCS / "beyond.html", *sorted((DOCS / "papers").glob("*.html"))]:
        shown = browser.browse(page, tmp_path)
        assert (shown["broken"], shown["dangling"], shown["external"]) == (0, "", ""), f"{page.name}: {shown}"


class _Live(__import__("html.parser").parser.HTMLParser):
    """The live markup a planted string made in a page: an element with an event handler, a ``javascript:`` link or
    source, a script whose text is the plant's."""

    def __init__(self):
        super().__init__()
        self.found, self._script = [], False

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if "PLANTED" in (value or "") and (name.startswith("on") or value.strip().lower().startswith("javascript:")):
                self.found.append(f"<{tag} {name}={value!r}>")
        self._script = tag == "script"

    def handle_data(self, data):
        if self._script and "PLANTED" in data:
            self.found.append(f"<script>{data}</script>")

    def handle_endtag(self, tag):
        self._script = False


def test_text_planted_in_a_record_a_table_a_file_name_and_a_notebook_output_is_no_live_markup(tmp_path):
    """Issue 55: a record's `<a href="javascript:…">` came out as a live link, and raw HTML passed from a results
    table, a figure's file name and a kept notebook's outputs."""
    import json

    results, figures = tmp_path / "results", tmp_path / "figures"
    shutil.copytree(paths.ROOT / "results", results)
    shutil.copytree(paths.ROOT / "figures", figures)
    link, handler, script = ('<a href="javascript:alert(\'PLANTED\')">x</a>', '<img src="x" onerror="PLANTED()">',
                             "<script>PLANTED()</script>")
    records = results / "04_trecqa_ctrn" / "tay2018_table6.jsonl"  # a record's text: its variant
    lines = [json.loads(line) for line in records.read_text().splitlines()]
    lines[0]["variant"] = f"{link} {handler}"
    records.write_text("".join(json.dumps(r) + "\n" for r in lines))
    table = results / "04_trecqa_ctrn" / "tay2018_table6.md"  # a notebook's table that the paper's page shows
    table.write_text(table.read_text() + f"\n{script} {link} {handler}\n")
    png = next((figures / "04_trecqa_ctrn").glob("*.png"))  # a figure's file name
    shutil.copyfile(png, png.with_name('x"><img src=x onerror=PLANTED()>.png'))
    kept = results / "04_trecqa_ctrn" / "04_trecqa_ctrn.ipynb"  # a kept notebook's outputs
    nb = json.loads(kept.read_text())
    cell = next(c for c in nb["cells"] if c["cell_type"] == "code")
    cell["outputs"].append({"output_type": "display_data", "metadata": {}, "data": {
        "text/html": f"{script}{link}{handler}", "text/markdown": f"{link} {handler}", "text/plain": "x"}})
    kept.write_text(json.dumps(nb))
    site = book.build(tmp_path / "site", verdicts.build(results, figures), guide_pages=[]).parent
    live = {}
    for page in _pages(site):
        finder = _Live()
        finder.feed(page.read_text(encoding="utf-8"))
        live.update({str(page.relative_to(site)): finder.found} if finder.found else {})
    assert not live, live
    shown = (site / "papers" / "tay2018.html").read_text() + (site / "notebooks" / "04_trecqa_ctrn.html").read_text()
    assert "PLANTED" in shown  # the plants are there, as text
