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
