"""A notebook's cache key is its cells, the code it reaches, the datasets that code reads, its parameters and thread
count, and nothing else (issue 53, reproq.dependencies). Each edit is made to a copy of the package, whose notebooks'
keys are computed in a process of their own and compared with the unedited copy's."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from reproq import dependencies, imports, paths
from tests.train.test_checkpoint_key import edited

pytestmark = pytest.mark.slow

NOTEBOOKS = sorted((paths.ROOT / "notebooks").glob("*.ipynb"))
KEYS = """
import json, sys
from pathlib import Path
from reproq import dependencies
print(json.dumps({Path(nb).stem: dependencies.parts(Path(nb), {}, 1) for nb in sys.argv[1:]}))
"""


@pytest.fixture(scope="module")
def package_copy(tmp_path_factory):
    """A copy of the reproq package, and its notebooks' key parts before any edit."""
    root = tmp_path_factory.mktemp("copy")
    shutil.copytree(imports.PACKAGE, root / "reproq", ignore=shutil.ignore_patterns("__pycache__"))
    return root, _parts(root)


def _parts(root: Path) -> dict[str, dict[str, str]]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run([sys.executable, "-c", KEYS, *map(str, NOTEBOOKS)], env=env, cwd=root, capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout)


def rerun_after_editing(package_copy, *relative: str, how: str = "code") -> dict[str, str]:
    """The notebooks whose key moves when the files ``relative`` are edited ``how``, each with the runner's line
    saying why."""
    root, before = package_copy
    originals = {root / "reproq" / r: (root / "reproq" / r).read_text() for r in relative}
    for path in originals:
        path.write_text(edited(path, how))
    try:
        after = _parts(root)
    finally:
        for path, text in originals.items():
            path.write_text(text)
    return {nb: dependencies.why(before[nb], after[nb]) for nb in before if after[nb] != before[nb]}


@pytest.mark.parametrize("how", ["comment", "docstring"])
def test_a_comment_or_a_docstring_executes_no_notebook(package_copy, how):
    assert rerun_after_editing(package_copy, "papers/lei2016.py", "models/rnn.py", "train/loop.py", how=how) == {}


def test_an_edited_gru_executes_the_notebooks_that_reach_it_and_says_so(package_copy):
    reran = rerun_after_editing(package_copy, "models/rnn.py")
    reaching = {nb for nb, parts in package_copy[1].items() if "code reproq.models.rnn" in parts}
    assert set(reran) == reaching and "04_trecqa_ctrn" in reaching and "00_datasets" not in reaching
    assert set(reran.values()) == {"reproq.models.rnn changed"}


def test_an_edit_of_one_papers_module_executes_that_papers_notebooks_only(package_copy):
    reran = rerun_after_editing(package_copy, "papers/rankine2016.py")
    assert set(reran) == {"11_rankine", "13_report", "14_semeval_question_retrieval"}  # 14 runs Rankine's CBOW too


def test_a_dataset_a_notebook_does_not_read_is_not_in_its_key(monkeypatch):
    from reproq.data import sources

    notebook = paths.ROOT / "notebooks" / "02_lei_neural_encoders.ipynb"
    before = dependencies.parts(notebook, {}, 1)
    status = sources.status
    monkeypatch.setattr(sources, "status", lambda datasets=None, root=None: [
        (d, p, "verified" if d == "trecqa" else state) for d, p, state in status(datasets, root)])
    assert dependencies.parts(notebook, {}, 1) == before  # 02 reads AskUbuntu, not TrecQA
    tay = paths.ROOT / "notebooks" / "04_trecqa_ctrn.ipynb"
    monkeypatch.setattr(sources, "status", status)
    first = dependencies.parts(tay, {}, 1)
    monkeypatch.setattr(sources, "status", lambda datasets=None, root=None: [
        (d, p, "corrupt" if d == "trecqa" else state) for d, p, state in status(datasets, root)])
    assert dependencies.why(first, dependencies.parts(tay, {}, 1)) == "dataset trecqa changed (its files' state)"


def test_a_notebook_reaches_its_own_papers_modules_only():
    reached = {nb.stem: {m for m in dependencies.reached(dependencies.code_cells(json.loads(nb.read_text())))
                         if m.startswith("reproq.papers.") and m not in ("reproq.papers.paper", "reproq.papers.wording")}
               for nb in NOTEBOOKS}
    assert reached["04_trecqa_ctrn"] == {"reproq.papers.tay2018"}
    assert reached["02_lei_neural_encoders"] == {"reproq.papers.lei2016"}
    assert reached["00_datasets"] == set()
    assert len(reached["13_report"]) == 7  # the report discovers every paper (reproq.imports.DISCOVERY)


LOADED = """
import json, sys
cells = [c for c in json.load(open(sys.argv[1]))["cells"] if c["cell_type"] == "code"]
exec("".join(cells[0]["source"]) + "\\nPROFILE = 'smoke'")  # its parameters, at the smoke profile
exec("".join(cells[1]["source"]))  # its imports and its setup call
print(json.dumps(sorted(m for m in sys.modules if m.startswith("reproq.papers."))))
"""


@pytest.mark.parametrize("notebook", ["02_lei_neural_encoders", "04_trecqa_ctrn", "11_rankine"])
def test_a_notebooks_kernel_loads_its_own_papers_modules_and_no_other(notebook, tmp_path):
    """Issue 53: its setup asks for its own profile section; the papers are discovered by the report alone."""
    path = paths.ROOT / "notebooks" / f"{notebook}.ipynb"
    env = {**os.environ, "REPROQ_BUILD": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", LOADED, str(path)], cwd=path.parent, env=env, capture_output=True,
                          text=True, check=True)
    loaded = set(json.loads(done.stdout.splitlines()[-1]))
    reached = dependencies.reached(dependencies.code_cells(json.loads(path.read_text())))
    assert loaded and loaded <= reached, loaded - reached
    assert len([m for m in loaded if m.removeprefix("reproq.papers.") in
                ("lei2016", "tay2018", "dossantos2015", "smolyakov2017", "rankine2016")]) <= 2


SETTINGS = """
import torch
torch.set_num_threads(2)  # what a kernel on a 2-core machine starts with
from reproq.notebook import setup
setup("02_lei_neural_encoders", profile="smoke", section="question_retrieval", checkpoints="askubuntu")
print(torch.get_num_threads())
"""


def test_a_notebook_started_outside_the_runner_runs_at_the_studys_thread_count_and_says_so(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    done = subprocess.run([sys.executable, "-c", SETTINGS], env={**env, "REPROQ_BUILD": str(tmp_path)},
                          capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["1"] and "the study's" in done.stderr
    given = subprocess.run([sys.executable, "-c", SETTINGS], capture_output=True, text=True, check=True,
                           env={**env, "REPROQ_BUILD": str(tmp_path), "OMP_NUM_THREADS": "2"})
    assert given.stdout.split() == ["2"] and "the study's" not in given.stderr
