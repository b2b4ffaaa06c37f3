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
from pathlib import Path

from reproq import atomic
from reproq.reading_cells import reading_of


def render(name: str, folder: Path) -> str:
    """The reading ``name`` of the results in ``folder``, headed by where it comes from."""
    # the papers' modules bring torch: imported here, so that the notebook batch (which blanks reading cells for its
    # fingerprints) keeps torch out of its own process
    from reproq.papers import READINGS
    from reproq.report.verdicts import load_records

    if name not in READINGS:
        raise ValueError(f"no reading {name!r}; there are: {', '.join(sorted(READINGS))}")
    folder = Path(folder)
    records = load_records(folder.parent, folder.name)
    return (f"**In the committed `cpu` run** (`results/{folder.name}/`, regenerated from its records by "
            f"`reproq report --write`):\n\n{READINGS[name](records, folder).strip()}")


def rendered(notebook: Path, results_dir: Path) -> dict[int, str]:
    """Cell index -> the text each reading cell of ``notebook`` should carry, from ``results_dir/<notebook>/``."""
    cells = json.loads(Path(notebook).read_text())["cells"]
    folder = Path(results_dir) / Path(notebook).stem
    return {i: render(name, folder) for i, cell in enumerate(cells) if (name := reading_of(cell))}


def write(notebook: Path, results_dir: Path) -> bool:
    """Rewrite ``notebook``'s reading cells from ``results_dir`` (atomically, only if one changes); whether it did."""
    path = Path(notebook)
    nb = json.loads(path.read_text())
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
        cells = json.loads(Path(notebook).read_text())["cells"]
        out += [f"{Path(notebook).name}, cell {i}" for i, text in rendered(notebook, results_dir).items()
                if "".join(cells[i]["source"]) != text]
    return out
