"""The reader pages (the README, the guide's pages in ``docs/guide/``) against the tree: the guide's file table names
every module, every test they name exists, every file they link exists, and the README fits its first hour."""

from __future__ import annotations

import re

from reproq import paths
from reproq.report import guide

GUIDE = paths.ROOT / guide.GUIDE


def test_the_file_table_names_every_module_and_only_existing_files():
    table = (GUIDE / "library.md").read_text()
    named = set(re.findall(r"`(reproq/[\w/]+\.(?:py|tsv|csv))`", table))
    modules = {str(p.relative_to(paths.ROOT)) for p in (paths.ROOT / "reproq").rglob("*.py")
               if p.name != "__init__.py" and "__pycache__" not in p.parts}
    assert not modules - named, f"modules missing from the guide's file table: {sorted(modules - named)}"
    assert all((paths.ROOT / p).is_file() for p in named), [p for p in named if not (paths.ROOT / p).is_file()]


def test_the_reliability_counts_are_the_bad_input_corpus():
    tests_page = (GUIDE / "tests.md").read_text()
    bad = [p for p in (paths.ROOT / "tests" / "fixtures" / "bad").iterdir() if "_bom" not in p.name]
    boms = [p for p in (paths.ROOT / "tests" / "fixtures" / "bad").iterdir() if "_bom" in p.name]
    assert f"**{len(bad)} bad inputs, {len(bad)} clear errors**" in tests_page
    assert f"{len(boms)} more files that start with a byte-order mark" in tests_page


def test_every_test_a_page_names_exists():
    # a promise names the test that holds it: `tests/x.py::test_y`, and `…::test_z` for another test of the same file
    named = []
    for page in guide.reader_pages():
        current = None
        for path, name in re.findall(r"`(?:(tests/[\w/]+\.py)|…)::(test_\w+)`", page.read_text()):
            current = path or current
            named.append((current, name))
    assert len(named) >= 10
    missing = [f"{f}::{n}" for f, n in named if f"def {n}(" not in (paths.ROOT / f).read_text()]
    assert not missing, f"the pages name tests that do not exist: {missing}"


def _anchors(page) -> set[str]:
    """The anchors GitHub gives a Markdown page's headings (lower case, punctuation dropped, spaces as hyphens)."""
    return {guide.anchor(h) for h in re.findall(r"^#+\s+(.+)$", page.read_text(), flags=re.MULTILINE)}


def test_every_file_and_heading_a_page_links_exists():
    """Links to files of the repository (the papers' pages, each notebook's executed copy, the report's picture, the
    guide's pages), each read from its page's folder, and the heading an anchor names."""
    linked, missing = 0, []
    for page in guide.reader_pages():
        for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text()):
            if target.startswith(("http://", "https://", "mailto:")):
                continue
            file, _, anchor = target.partition("#")
            linked_page = (page.parent / file).resolve() if file else page
            linked += 1
            if not linked_page.exists() or (anchor and linked_page.suffix == ".md"
                                            and anchor not in _anchors(linked_page)):
                missing.append(f"{page.relative_to(paths.ROOT)}: {target}")
    assert linked >= 40
    assert not missing, f"links to what does not exist: {missing}"


def test_the_readmes_first_screen_is_the_first_hour_and_the_rest_is_in_the_guide():
    """Issue 44: at most 250 lines; within the first 25, the committed report's link and the two commands in one
    code block; every guide page linked from it."""
    lines = (paths.ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= 250, f"the README has {len(lines)} lines: move a section into docs/guide/"
    first_screen = "\n".join(lines[:25])
    assert "](docs/index.html)" in first_screen
    assert re.search(r"```bash\nmake reproduce [^\n]*\nmake test [^\n]*\n```", first_screen)
    readme = "\n".join(lines)
    unlinked = [p.name for p in guide.guide_pages() if f"](docs/guide/{p.name})" not in readme]
    assert len(guide.reader_pages()) > 5 and not unlinked, f"guide pages the README does not link: {unlinked}"


def test_the_licence_and_the_citation_are_there_and_agree_with_the_package():
    import tomllib

    import yaml

    project = tomllib.loads((paths.ROOT / "pyproject.toml").read_text())["project"]
    citation = yaml.safe_load((paths.ROOT / "CITATION.cff").read_text())
    assert (paths.ROOT / "LICENSE").read_text().startswith("MIT License")
    assert citation["cff-version"] == "1.2.0" and citation["license"] == project["license"] == "MIT"
    assert citation["version"] == project["version"] and citation["title"].startswith("reproq")
