"""Each committed executed copy (results/<notebook>/<notebook>.ipynb) is of its source's code and says its source's
words (reproq.notebook_json.with_words_of, refreshed by `reproq report --write`)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import numpy as np
import pandas as pd
import pytest

from reproq import notebook as reproq_notebook
from reproq import notebook_json, paths, runner


def _cells(nb: dict) -> list[tuple[str, str]]:
    return [(c["cell_type"], "".join(c["source"])) for c in nb["cells"]]


@pytest.mark.parametrize("notebook", runner.notebooks(), ids=lambda p: p.stem)
def test_every_kept_copy_is_of_its_sources_code_and_says_its_words(notebook):
    kept = paths.ROOT / "results" / notebook.stem / notebook.name
    executed = nbformat.reads(kept.read_text(encoding="utf-8"), as_version=nbformat.NO_CONVERT)
    refreshed = notebook_json.with_words_of(executed, json.loads(notebook.read_text()))
    assert refreshed is not None, f"{kept} ran other code than {notebook.name}: `reproq run --only " \
                                  f"{notebook.stem[:2]} --commit` makes it current"
    assert _cells(executed) == _cells(refreshed), f"{kept} says other words: `reproq report --write`"
    # its outputs as a reader sees them: no progress bar's widget, whose text is the "0%" it started as (issue 53;
    # notebook 10's copy had 32)
    widgets = [o for c in executed["cells"] if c["cell_type"] == "code" for o in c["outputs"]
               if notebook_json.WIDGET in o.get("data", {})]
    assert not widgets and "widgets" not in executed["metadata"], f"{kept}: `reproq report --write`"


def test_words_and_comments_are_carried_over_and_code_is_not():
    source = {"cells": [{"cell_type": "code", "metadata": {"tags": ["parameters"]}, "source": ["X = 1  # new\n"]},
                        {"cell_type": "markdown", "metadata": {}, "source": ["new words"]},
                        {"cell_type": "code", "metadata": {}, "source": ["print(X)"]}]}
    executed = {"metadata": {"papermill": {}}, "cells": [
        {"cell_type": "code", "metadata": {"tags": ["parameters"]}, "source": "X = 1  # old", "outputs": []},
        {"cell_type": "code", "metadata": {"tags": [notebook_json.INJECTED]}, "source": "X = 2", "outputs": []},
        {"cell_type": "markdown", "metadata": {}, "source": "old words"},
        {"cell_type": "code", "metadata": {}, "source": "print(X)", "outputs": [{"text": "2\n"}]}]}
    refreshed = notebook_json.with_words_of(executed, source)
    assert _cells(refreshed) == [("code", "X = 1  # new\n"), ("code", "X = 2"), ("markdown", "new words"),
                                 ("code", "print(X)")]
    assert refreshed["cells"][3]["outputs"] == [{"text": "2\n"}] and refreshed["metadata"] == {"papermill": {}}
    source["cells"][2]["source"] = ["print(X + 1)"]
    assert notebook_json.with_words_of(executed, source) is None


def _unread(executed: dict) -> list[str]:
    """What in a notebook's outputs does not read like a paper: a raw path repr, NaN, a float past 4 decimals, the
    cache's chatter (runs reused from checkpoints: the runner's line says it)."""
    found = []
    for cell in executed["cells"]:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            text = "".join(output.get("text", "")) + "".join(data.get("text/plain", "")) + "".join(
                data.get("text/html", ""))
            found += re.findall(r"PosixPath\(|\bNaN\b|<td>nan</td>|\d\.\d{6,}|runs reused from", text)
    return found


@pytest.mark.parametrize("notebook", runner.notebooks(), ids=lambda p: p.stem)
def test_every_kept_copys_outputs_read_like_a_paper(notebook):
    kept = paths.ROOT / "results" / notebook.stem / notebook.name
    unread = _unread(json.loads(kept.read_text(encoding="utf-8")))
    assert not unread, f"{kept} shows {sorted(set(unread))[:5]}: `reproq run --only {notebook.stem[:2]} --commit`"


def test_a_notebooks_outputs_read_like_a_paper():
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    reproq_notebook.as_read(shell)
    table = pd.DataFrame({"MAP": [0.123456789, np.nan, -0.0], "n": [20000.0, 1.0, np.nan]})
    outputs = [shell.display_formatter.format(x)[0] for x in (
        table, table["MAP"], {"rho": np.float64(-0.47964210255), "max": np.float32(1.2634364)},
        Path("figures/04_trecqa_ctrn/x.png"))]
    shown = [{"cells": [{"outputs": [{"data": o}]}]} for o in outputs]
    assert [_unread(s) for s in shown] == [[], [], [], []]
    assert outputs[2]["text/plain"] == "{'rho': -0.4796, 'max': 1.2634}"
    assert outputs[3]["text/plain"] == "figures/04_trecqa_ctrn/x.png"
    assert "0.1235" in outputs[0]["text/html"] and "20000<" in outputs[0]["text/html"]
