"""A notebook's reading cells: Markdown the committed notebook carries, generated from the committed records.

A notebook computes what its run shows in a code cell (its output: the words for whatever run executed it); the
committed notebook has no outputs, so the words of the committed ``cpu`` run sit in the Markdown cell below it, whose
metadata names the reading that writes it (``{"reproq": {"reading": "tay2018.trecqa"}}``: the function
``READINGS["trecqa"]`` of :mod:`reproq.papers.tay2018`, given the records of the notebook's results folder and the
folder). ``reproq run`` rewrites
a notebook's reading cells after a run that writes the committed ``results/`` (and leaves them out of the notebook's
fingerprint, so that the rewrite is no change of inputs); ``reproq report --write`` rewrites every notebook's;
``tests/test_readings.py`` checks that each committed reading cell is the one the committed records give. The typed
numbers of the other Markdown cells are checked by :mod:`reproq.report.prose`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from reproq import atomic, notebook_json
from reproq.notebook_json import BESIDE_THE_PAPER, reading_of

if TYPE_CHECKING:
    from reproq.results.records import Record


def reading(name: str) -> Callable[[list[Record], Path], str]:
    """The reading ``name``: ``"<paper>.<name>"`` of :data:`reproq.papers.READINGS`, or ``"beside:<file>"``
    (:func:`beside_the_paper` of that results file)."""
    # the papers' modules bring torch: imported here, so that the notebook batch (which blanks reading cells for its
    # fingerprints) keeps torch out of its own process
    from reproq.papers import READINGS

    if name.startswith(BESIDE_THE_PAPER):
        return lambda records, folder: beside_the_paper(records, name.removeprefix(BESIDE_THE_PAPER))
    if name not in READINGS:
        raise ValueError(f"no reading {name!r}; there are: {', '.join(sorted(READINGS))}, and {BESIDE_THE_PAPER}<file>")
    return READINGS[name]


def render(name: str, folder: Path) -> str:
    """The reading ``name`` of the results in ``folder``, headed by where it comes from."""
    from reproq.report.verdicts import load_records

    folder = Path(folder)
    records = load_records(folder.parent, folder.name)
    return (f"**In the committed `cpu` run** (`results/{folder.name}/`, regenerated from its records by "
            f"`reproq report --write`):\n\n{reading(name)(records, folder).strip()}")


def beside_the_paper(records: list[Record], file: str) -> str:
    """Each number the papers print that ``file``'s records (a results file's stem) give, ours beside the paper's
    with the report's verdict, which says what kind of number it judges (:func:`reproq.report.verdicts.table_rows`),
    headed by the data they are of."""
    from reproq.report.verdicts import BESIDE, shown_rows, table_rows

    rows = table_rows([r for r in records if r.config["file"] == file])
    shown = shown_rows(rows[(rows.n > 0) & (rows.verdict != BESIDE)])
    if shown.empty:
        return f"No records of `{file}` beside a paper's numbers in this folder."
    head = "Ours, then the paper's number and the report's verdict in brackets:"
    if (shown.data != "real").any():
        head = f"On the synthetic stand-in (never a reproduction): {head[0].lower()}{head[1:]}"
    lines = [head, ""]
    for label, group in shown.groupby(["method", "variant", "dataset", "split"], sort=False):
        named = ", ".join(part for part in label if part and part != "-")
        lines.append(f"- {named}: " + "; ".join(f"{r.metric} {r.ours} (paper {r.paper}, {r.verdict})"
                                                for r in group.itertuples()) + ".")
    return "\n".join(lines)


def findings_markdown(results_dir: Path) -> str:
    """The guide's "What we have found so far" (its ``findings`` block): one bullet per finding of
    :data:`reproq.papers.FINDINGS`, in the order of their folders, its lead words in bold, then its reading of
    ``results_dir/<folder>/`` indented under it (a reading's own list becomes a nested one)."""
    from reproq.papers import FINDINGS  # torch, as in render
    from reproq.report.verdicts import load_records

    bullets = []
    for finding, name in FINDINGS:
        folder = Path(results_dir) / finding.folder
        text = reading(name)(load_records(Path(results_dir), finding.folder), folder)
        body = "\n".join(f"  {line}" if line else "" for line in text.strip().splitlines())
        bullets.append(f"- **{finding.lead}** (`results/{finding.folder}/`):\n{body}")
    return ("Generated from the committed records by `reproq report --write` (`reproq.papers.FINDINGS`); a test "
            "fails when a record changes and this list does not.\n\n" + "\n".join(bullets))


def rendered(notebook: Path, results_dir: Path) -> dict[int, str]:
    """Cell index -> the text each reading cell of ``notebook`` should carry, from ``results_dir/<notebook>/``."""
    cells = notebook_json.read(notebook)["cells"]
    folder = Path(results_dir) / Path(notebook).stem
    return {i: render(name, folder) for i, cell in enumerate(cells) if (name := reading_of(cell))}


def write(notebook: Path, results_dir: Path) -> bool:
    """Rewrite ``notebook``'s reading cells from ``results_dir`` (atomically, only if one changes); whether it did."""
    path = Path(notebook)
    nb = notebook_json.read(path)
    changed = False
    for i, text in rendered(path, results_dir).items():
        if "".join(nb["cells"][i]["source"]) != text:
            nb["cells"][i]["source"] = text.splitlines(keepends=True)
            changed = True
    if changed:
        atomic.write_text(path, json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
    return changed


def stale(notebooks: list[Path], results_dir: Path) -> list[str]:
    """``"<notebook>, cell <i>"`` for every reading cell that is not what ``results_dir`` gives."""
    out = []
    for notebook in notebooks:
        cells = notebook_json.read(notebook)["cells"]
        out += [f"{Path(notebook).name}, cell {i}" for i, text in rendered(notebook, results_dir).items()
                if "".join(cells[i]["source"]) != text]
    return out
