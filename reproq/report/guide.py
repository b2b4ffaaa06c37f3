"""The pages people write for readers: the README and the guide's Markdown pages (``docs/guide/*.md``).

They are where the study's prose is held to its records (:mod:`reproq.report.prose`, :mod:`reproq.report.comparisons`),
where the generated blocks live (:func:`reproq.report.scope.update_block` finds the page that holds each), and what
``reproq report --write`` keeps when it replaces the committed site around them (:func:`reproq.report.book.publish`).
Here and not in :mod:`reproq.paths`, which every training run's checkpoint key hashes: a page added or moved is
no reason to train again.
"""

from __future__ import annotations

import re
from pathlib import Path

from reproq import paths

GUIDE = Path("docs") / "guide"  # the guide's pages, relative to a checkout's root, inside the committed site


def guide_pages(root: Path | None = None) -> list[Path]:
    """The guide's pages in name order, in the checkout at ``root`` (default this one)."""
    return sorted((Path(root or paths.ROOT) / GUIDE).glob("*.md"))


def reader_pages(root: Path | None = None) -> list[Path]:
    """The README first, then :func:`guide_pages`, in the checkout at ``root`` (default this one)."""
    return [Path(root or paths.ROOT) / "README.md", *guide_pages(root)]


def anchor(heading: str) -> str:
    """The anchor GitHub gives a Markdown heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
