"""A notebook file read as plain JSON: which of its cells are reading cells, Markdown whose words are generated from
the committed records (metadata ``{"reproq": {"reading": "<paper>.<name>"}}``; :mod:`reproq.report.readings` writes them),
an executed notebook's outputs as a reader should see them (:func:`as_printed`), and a kept executed copy given its
source's words (:func:`with_words_of`).

Their words are no input of the notebook: the batch leaves them out of a notebook's fingerprint, and a notebook whose
only change is in them does not make the code version dirty (:func:`reproq.results.records.code_version`). Plain JSON
helpers, importing nothing of reproq, so that both can use them.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

KEY = "reading"
INJECTED = "injected-parameters"  # papermill's tag on the cell it adds after the parameters cell
BESIDE_THE_PAPER = "beside:"  # a reading "beside:<results file stem>": that file's numbers beside the paper's


def read(path: str | Path) -> dict:
    """The notebook at ``path`` as JSON, or ValueError in one line naming the file and what to do: not JSON (a merge
    conflict, a torn save), not a notebook (no list of cells, no metadata).

    >>> import tempfile; folder = Path(tempfile.mkdtemp())
    >>> (folder / "05.ipynb").write_text('{"cells": [')  and read(folder / "05.ipynb")
    Traceback (most recent call last):
    ValueError: .../05.ipynb: not a notebook Jupyter can open (Expecting value: line 1 column 12); restore it ...
    """
    try:
        notebook = json.loads(Path(path).read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as error:
        said = (f"{error.msg}: line {error.lineno} column {error.colno}" if isinstance(error, json.JSONDecodeError)
                else type(error).__name__)
        raise ValueError(f"{path}: not a notebook Jupyter can open ({said}); restore it (git checkout -- <it>) or save "
                         "it again from Jupyter") from None
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list) or not all(
            isinstance(c, dict) for c in notebook["cells"]):
        raise ValueError(f"{path}: not a notebook (no list of cells); restore it (git checkout -- <it>)")
    if not isinstance(notebook.get("metadata"), dict):
        raise ValueError(f"{path}: not a notebook nbformat runs (no metadata object); restore it (git checkout -- "
                         "<it>) or save it again from Jupyter")
    return notebook


def reading_of(cell: dict) -> str | None:
    """The name of the reading a Markdown cell carries (``"tay2018.trecqa"``), or None."""
    return cell.get("metadata", {}).get("reproq", {}).get(KEY) if cell.get("cell_type") == "markdown" else None


def without_readings(nb: dict) -> dict:
    """``nb`` with its reading cells' text blanked: what a notebook's inputs are, whatever its readings say."""
    cells = [{**c, "source": []} if reading_of(c) else c for c in nb["cells"]]
    return {**nb, "cells": cells}


def readings_only(now: dict, before: dict) -> bool:
    """Whether notebook ``now`` differs from ``before`` in its reading cells' text only (or not at all)."""
    return without_readings(now) == without_readings(before)


WIDGET = "application/vnd.jupyter.widget-view+json"  # a live progress bar (tqdm in a kernel): a page cannot run it


def as_printed(nb: dict) -> dict:
    """``nb`` with each code cell's text streams as a terminal leaves them: consecutive chunks of one stream joined,
    and each line's carriage returns carried out (what follows the last one stays). A progress bar that redrew itself
    at every epoch, hundreds of chunks in the executed JSON, is then the one line it ended as; a progress bar drawn as
    a widget, whose text is the "0%" it started as wherever no widget can run (GitHub, the book), is left out with the
    widgets' state, and so is a grid's note of the runs it reused from checkpoints (:data:`REUSED`: the runner's line
    says it).

    >>> cell = {"cell_type": "code", "outputs": [{"output_type": "stream", "name": "stderr", "text": ["\\rrun:  0%"]},
    ...         {"output_type": "stream", "name": "stderr", "text": "\\rrun: 50%\\rrun: 100%\\n"},
    ...         {"output_type": "display_data", "data": {WIDGET: {}, "text/plain": "  0%|"}, "metadata": {}},
    ...         {"output_type": "stream", "name": "stdout", "text": "done\\n"},
    ...         {"output_type": "stream", "name": "stderr", "text": "2 of 2 runs reused from build/x "
    ...                                                              "(`reproq run --retrain` trains them again)\\n"}]}
    >>> [o["text"] for o in as_printed({"cells": [cell], "metadata": {"widgets": {}}})["cells"][0]["outputs"]]
    ['run: 100%\\n', 'done\\n']
    """
    metadata = {k: v for k, v in nb.get("metadata", {}).items() if k != "widgets"}
    return {**nb, "metadata": metadata, "cells": [
        {**c, "outputs": _printed([o for o in c["outputs"] if WIDGET not in o.get("data", {})])}
        if c.get("cell_type") == "code" else c for c in nb["cells"]]}


def _printed(outputs: list[dict]) -> list[dict]:
    joined: list[dict] = []
    for out in outputs:
        last = joined[-1] if joined else {}
        if out.get("output_type") == "stream" and last.get("output_type") == "stream" and last["name"] == out["name"]:
            joined[-1] = {**last, "text": _text(last) + _text(out)}
        else:
            joined.append(out)
    printed = [{**o, "text": _unnoted(_carried_out(_text(o)))} if o.get("output_type") == "stream" else o
               for o in joined]
    return [o for o in printed if o.get("output_type") != "stream" or o["text"]]


# a grid's note that it reused finished runs, as reproq.train.grid.run_grid prints it (tests/train/test_executors.py
# holds the two together): the cache's, not the paper's; the runner says it in its line after the notebook (reused)
REUSED = re.compile(r"(\d+) of (\d+) runs reused from \S.* \(`reproq run --retrain` trains them again\)")


def _unnoted(text: str) -> str:
    return "".join(line for line in text.splitlines(keepends=True) if not REUSED.fullmatch(line.rstrip("\n")))


def reused(nb: dict) -> tuple[int, int]:
    """How many of its grids' runs an executed notebook reused from checkpoints, of how many (:data:`REUSED`).

    >>> said = "5 of 5 runs reused from build/x (`reproq run --retrain` trains them again)\\n"
    >>> text = said + "epoch 1\\n" + said.replace("5 of 5", "1 of 3")
    >>> out = {"output_type": "stream", "name": "stderr", "text": text}
    >>> reused({"cells": [{"cell_type": "code", "outputs": [out]}]})
    (6, 8)
    """
    found = [REUSED.fullmatch(line) for c in nb["cells"] if c.get("cell_type") == "code" for o in c.get("outputs", [])
             if o.get("output_type") == "stream" for line in _carried_out(_text(o)).splitlines()]
    return sum(int(m[1]) for m in found if m), sum(int(m[2]) for m in found if m)


def _text(output: dict) -> str:
    text = output["text"]
    return text if isinstance(text, str) else "".join(text)


def _carried_out(text: str) -> str:
    """Each line as a terminal shows it: what follows its last carriage return (one that ends a line is the next
    redraw's, and leaves what precedes it)."""
    return "\n".join(line.rstrip("\r").rsplit("\r", 1)[-1] for line in text.split("\n"))


def with_words_of(executed: dict, source: dict) -> dict | None:
    """``executed`` (a kept executed copy of ``source``) with ``source``'s words: its Markdown cells, and its code
    cells' text where only their comments differ, each code cell keeping the outputs it ran to (papermill's injected
    parameters after the parameters cell); None where the code itself differs (the copy is of other code: only a
    run makes it current)."""
    ran = [c for c in executed["cells"] if c["cell_type"] == "code" and INJECTED not in _tags(c)]
    wanted = [c for c in source["cells"] if c["cell_type"] == "code"]
    if len(ran) != len(wanted) or any(_code(a) != _code(b) for a, b in zip(ran, wanted)):
        return None
    injected = [c for c in executed["cells"] if INJECTED in _tags(c)]
    outputs = iter(ran)
    cells = []
    for cell in source["cells"]:
        if cell["cell_type"] != "code":
            cells.append(cell)
            continue
        cells.append({**next(outputs), "source": cell["source"]})
        cells += injected if "parameters" in _tags(cell) else []
    return {**executed, "cells": cells}


def _tags(cell: dict) -> list[str]:
    return cell.get("metadata", {}).get("tags", [])


def _code(cell: dict) -> str:
    """A code cell's code without its comments or layout (its IPython magics as text)."""
    text = "".join(cell["source"])
    try:
        return ast.dump(ast.parse(re.sub(r"^\s*[%!].*$", "", text, flags=re.M)))
    except SyntaxError:
        return text
