"""The README's file table is the library's tree: every module is named, every named file exists."""

from __future__ import annotations

import re

from reproq import paths


def test_the_file_table_names_every_module_and_only_existing_files():
    readme = (paths.ROOT / "README.md").read_text()
    named = set(re.findall(r"`(reproq/[\w/]+\.(?:py|tsv|csv))`", readme))
    modules = {str(p.relative_to(paths.ROOT)) for p in (paths.ROOT / "reproq").rglob("*.py")
               if p.name != "__init__.py" and "__pycache__" not in p.parts}
    assert not modules - named, f"modules missing from the README's file table: {sorted(modules - named)}"
    assert all((paths.ROOT / p).is_file() for p in named), [p for p in named if not (paths.ROOT / p).is_file()]


def test_the_reliability_counts_are_the_bad_input_corpus():
    readme = (paths.ROOT / "README.md").read_text()
    bad = [p for p in (paths.ROOT / "tests" / "fixtures" / "bad").iterdir() if "_bom" not in p.name]
    boms = [p for p in (paths.ROOT / "tests" / "fixtures" / "bad").iterdir() if "_bom" in p.name]
    assert f"**{len(bad)} bad inputs, {len(bad)} clear errors**" in readme
    assert f"{len(boms)} more files that start with a byte-order mark" in readme


def test_every_test_the_readme_names_exists():
    # a promise names the test that holds it: `tests/x.py::test_y`, and `…::test_z` for another test of the same file
    readme, current, named = (paths.ROOT / "README.md").read_text(), None, []
    for path, name in re.findall(r"`(?:(tests/[\w/]+\.py)|…)::(test_\w+)`", readme):
        current = path or current
        named.append((current, name))
    assert len(named) >= 10
    missing = [f"{f}::{n}" for f, n in named if f"def {n}(" not in (paths.ROOT / f).read_text()]
    assert not missing, f"the README names tests that do not exist: {missing}"


def test_every_file_the_readme_links_exists():
    """Links to files of the repository (the papers' pages, each notebook's executed copy, the report's picture)."""
    readme = (paths.ROOT / "README.md").read_text()
    linked = [target for target in re.findall(r"\]\(([^)\s]+)\)", readme)
              if not target.startswith(("http://", "https://", "#", "mailto:"))]
    assert len(linked) >= 20
    missing = [target for target in linked if not (paths.ROOT / target.split("#")[0]).exists()]
    assert not missing, f"the README links files that do not exist: {missing}"


def test_the_licence_and_the_citation_are_there_and_agree_with_the_package():
    import tomllib

    import yaml

    project = tomllib.loads((paths.ROOT / "pyproject.toml").read_text())["project"]
    citation = yaml.safe_load((paths.ROOT / "CITATION.cff").read_text())
    assert (paths.ROOT / "LICENSE").read_text().startswith("MIT License")
    assert citation["cff-version"] == "1.2.0" and citation["license"] == project["license"] == "MIT"
    assert citation["version"] == project["version"] and citation["title"].startswith("reproq")
