"""Each committed executed copy (results/<notebook>/<notebook>.ipynb) is of its source's code and says its source's
words (reproq.notebook_json.with_words_of, refreshed by `reproq report --write`)."""

from __future__ import annotations

import json

import nbformat
import pytest

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
