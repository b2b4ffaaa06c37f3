"""A run's checkpoint key hashes the code its numbers depend on and nothing else (issues 43 and 53): a reading's
sentence, a docstring or a comment edited retrains nothing; ``models/qrnn.py`` edited retrains the QRNN and CTRN runs
only. Each edit is made to a copy of the package, whose keys are computed in a process of their own and compared with
the unedited copy's."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from reproq import imports
from reproq.models import ENCODERS
from reproq.models.answer_ranker import METHODS

pytestmark = pytest.mark.slow

# every kind of trained run, each encoder family: the keys as the task packages compute them
KEYS = """
import json, types
from reproq.answer_selection import inputs as answers
from reproq.models import ENCODERS, FAMILY_MODULES
from reproq.models.answer_ranker import METHODS, RankerConfig
from reproq.question_retrieval import inputs as retrieval, pretrain
from reproq.train import checkpoint

askubuntu = types.SimpleNamespace(provenance={"corpus": "a"}, vocab=[0] * 10)
trecqa = types.SimpleNamespace(provenance={"train": "b"}, dataset="trecqa", vocab=[0] * 10, word_vectors="glove",
                               content="words")
keys = {f"retrieval {name}": retrieval.checkpoint_key(askubuntu, retrieval.TrainConfig(encoder=name), 1)
        for name in ENCODERS}
keys |= {f"pretraining {name}": pretrain.pretraining_key(askubuntu, retrieval.TrainConfig(encoder=name), 1)
         for name in ENCODERS}
keys |= {f"adaptation {name}": retrieval.run_code(retrieval.TrainConfig(encoder=name),
                                                  "reproq.question_retrieval.adaptation").digest() for name in ENCODERS}
keys |= {f"answers {method}": answers.checkpoint_key(
    trecqa, answers.TrainConfig(ranker=RankerConfig(method=method)), 1) for method in METHODS}
keys["full collection BOW-CNN"] = checkpoint.Code(("reproq.question_retrieval.full_collection_training",
                                                   retrieval.STAND_IN), FAMILY_MODULES).digest()
print(json.dumps(keys))
"""


@pytest.fixture(scope="module")
def package_copy(tmp_path_factory):
    """A copy of the reproq package, and the keys of its every kind of run before any edit."""
    root = tmp_path_factory.mktemp("copy")
    shutil.copytree(imports.PACKAGE, root / "reproq", ignore=shutil.ignore_patterns("__pycache__"))
    return root, _keys(root)


def _keys(root: Path) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run([sys.executable, "-c", KEYS], env=env, cwd=root, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def edited(path: Path, how: str = "code") -> str:
    """``path``'s text edited ``how``: a statement more (``code``; a C++ file: a comment, its bytes are its code), a
    ``comment``, or a word of its module ``docstring`` changed."""
    text = path.read_text()
    if how == "docstring":
        first = text.index('"""') + 3
        return text[:first] + "Edited: " + text[first:]
    return text + ("\n# edited\n" if how == "comment" or path.suffix != ".py" else "\n_EDITED = True\n")


def moved_after_editing(package_copy, relative: str, how: str = "code") -> set[str]:
    """The runs whose key moves when ``relative`` (a file of the package) is edited ``how`` (:func:`edited`)."""
    root, before = package_copy
    path = root / "reproq" / relative
    original = path.read_text()
    path.write_text(edited(path, how))
    try:
        after = _keys(root)
    finally:
        path.write_text(original)
    return {run for run in before if after[run] != before[run]}


def test_the_copys_keys_are_this_packages(package_copy):
    from reproq.question_retrieval import inputs

    _, before = package_copy
    assert len(before) == 3 * len(ENCODERS) + len(METHODS) + 1
    keys = [k for run, k in before.items() if run.startswith(("retrieval", "pretraining", "answers"))]
    assert len(set(keys)) == len(keys)  # no two kinds of run share a key (the others are digests of code)
    assert before["adaptation rcnn"] == inputs.run_code(inputs.TrainConfig(encoder="rcnn"),
                                                        "reproq.question_retrieval.adaptation").digest()


@pytest.mark.parametrize("edited", ["papers/lei2016.py", "papers/tay2018.py", "profiles.py", "report/readings.py",
                                    "figures/tay2018.py", "notebook_json.py", "runner.py", "notebook_schedule.py", "cli.py"])
def test_an_edit_no_run_depends_on_retrains_nothing(package_copy, edited):
    assert moved_after_editing(package_copy, edited) == set()


@pytest.mark.parametrize("how", ["comment", "docstring"])
def test_a_comment_or_a_docstring_of_the_code_every_run_shares_retrains_nothing(package_copy, how):
    """Issue 53: both caches hash a module's syntax tree, without its docstrings and comments."""
    assert moved_after_editing(package_copy, "train/loop.py", how) == set()
    assert moved_after_editing(package_copy, "models/rnn.py", how) == set()


def test_an_edit_of_the_qrnn_retrains_only_the_qrnn_and_ctrn_runs(package_copy):
    assert moved_after_editing(package_copy, "models/qrnn.py") == {
        "retrieval qrnn", "pretraining qrnn", "adaptation qrnn", "answers QRNN", "answers CTRN"}


def test_an_edit_of_the_ctrn_retrains_only_the_ctrn_runs(package_copy):
    assert moved_after_editing(package_copy, "models/ctrn.py") == {"answers CTRN"}


def test_an_edit_of_the_rcnn_kernel_retrains_the_rcnn_runs(package_copy):
    assert moved_after_editing(package_copy, "models/rcnn_kernel.cpp") == {
        "retrieval rcnn", "pretraining rcnn", "adaptation rcnn", "answers RCNN"}


def test_an_edit_of_the_stand_ins_generator_retrains_every_run_on_askubuntu_and_no_answer_ranker(package_copy):
    """The stand-in's provenance names its seed and settings, not the generator's code: the key must."""
    everything = set(package_copy[1])
    assert moved_after_editing(package_copy, "synthetic/text.py") == {r for r in everything
                                                                      if not r.startswith("answers")}


def test_an_edit_of_what_every_run_shares_retrains_every_run(package_copy):
    everything = set(package_copy[1])
    assert moved_after_editing(package_copy, "train/loop.py") == everything
    assert moved_after_editing(package_copy, "answer_selection/run.py") == {r for r in everything if r.startswith("answers")}


def test_no_code_a_run_depends_on_draws_runs_notebooks_or_reports():
    """Plotting lives in reproq.figures, the words in reproq.papers and reproq.report, the runner in reproq.runner:
    none is in any run's key, so a figure's or a sentence's fix redraws from the checkpointed runs."""
    from reproq.answer_selection import inputs as answers
    from reproq.models.answer_ranker import RankerConfig
    from reproq.question_retrieval import inputs as retrieval

    codes = [retrieval.run_code(retrieval.TrainConfig(encoder=name), routine) for name in ENCODERS
             for routine in ("reproq.question_retrieval.run", "reproq.question_retrieval.pretrain",
                             "reproq.question_retrieval.adaptation")]
    codes += [answers.run_code(answers.TrainConfig(ranker=RankerConfig(method=method))) for method in METHODS]
    files = {str(f.relative_to(imports.PACKAGE)) for code in codes for f in code.files()}
    assert {"models/rcnn.py", "models/qrnn.py", "train/loop.py", "metrics.py", "data/askubuntu.py"} <= files
    assert not {f for f in files if f.startswith(("papers/", "report/", "figures/", "results/", "bench/", "labs/"))}
    assert not files & {"profiles.py", "runner.py", "notebook_schedule.py", "cli.py", "notebook_json.py"}
    assert [f for f in files if "matplotlib" in (imports.PACKAGE / f).read_text()] == []
