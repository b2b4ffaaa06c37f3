"""The course labs: the student release holds no solution and no output; the instructor's source earns full marks
when autograded headless; a deliberately wrong implementation fails a check whose message names the mistake."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from reproq import paths
from reproq.labs import apart, course

pytestmark = pytest.mark.slow
LABS = course.labs()

# lab -> (its solution cell, which solution block in it, a wrong body, the check that must fail, words of its message)
WRONG = {
    "lab1_metrics": ("rank", 0, "order = np.lexsort((-np.asarray(labels), -np.asarray(scores, dtype=float)))\n"
                                "return np.asarray(labels)[order]", "check_rank", "positives come first"),
    "lab2_max_margin": ("loss", 0, 'hardest = negatives.masked_fill(~mask, float("-inf")).max(dim=1).values\n'
                                   "return torch.clamp(positive - hardest + margin, min=0.0).mean()",
                        "check_loss", "sign is flipped"),
    "lab3_rcnn": ("step", 0, 'lam = torch.sigmoid(x_t @ p["W_gate"].T + h @ p["U_gate"] + p["b_gate"])\n'
                             'new_c1 = (1 - lam) * c1 + lam * (x_t @ p["W1"].T)\n'
                             'new_c2 = (1 - lam) * c2 + lam * (c1 + x_t @ p["W2"].T)\n'
                             'return new_c1, new_c2, torch.tanh(new_c2 + p["bias"])', "check_step",
                  "are swapped"),
    "lab4_ctrn": ("ltc", 1, "h = o * forget_mult(f, z)\nreturn h * h", "check_ltc", "not crossed"),
    "lab5_cbow": ("cbow", 0, "return vectors.mean(dim=1)", "check_cbow", "padding positions are counted"),
}
SOLUTION = re.compile(r"( *)### BEGIN SOLUTION\n(.*?)\1### END SOLUTION", re.S)
HIDDEN = re.compile(r"### BEGIN HIDDEN TESTS\n(.*?)### END HIDDEN TESTS", re.S)


@pytest.fixture(scope="module")
def released(tmp_path_factory, real_data):
    real_data("askubuntu", "test.txt")  # lab 1 evaluates the BM25 scores shipped with it
    root = tmp_path_factory.mktemp("course")
    return root, course.release(root)


def test_every_lab_is_there():
    assert LABS == sorted(WRONG) and len(LABS) == 5


def test_the_release_holds_no_solution_no_hidden_test_and_no_output(released):
    root, notebooks = released
    for lab, notebook in notebooks.items():
        source = "\n".join("".join(c["source"]) for c in json.loads((paths.LABS_DIR / lab / f"{lab}.ipynb").read_text())["cells"])
        cells = json.loads(notebook.read_text())["cells"]
        released_text = "\n".join("".join(c["source"]) for c in cells)
        solutions = [line for block in SOLUTION.findall(source) for line in block[1].splitlines()]
        hidden = [line for block in HIDDEN.findall(source) for line in block.splitlines()]
        assert solutions and hidden, f"{lab}: the source marks its solutions and hidden tests"
        leaked = [line.strip() for line in solutions + hidden if len(line.strip()) > 12 and line.strip() in released_text]
        assert not leaked, f"{lab}: the student release contains solution or hidden-test lines {leaked}"
        assert not re.search("BEGIN SOLUTION|END SOLUTION|HIDDEN TESTS", released_text)
        assert all(c.get("outputs") == [] and c.get("execution_count") is None for c in cells if c["cell_type"] == "code")
        assert "raise NotImplementedError()" in released_text


@pytest.mark.parametrize("lab", LABS)
def test_the_source_earns_full_marks(released, lab):
    grade = course.autograde(released[0], lab, paths.LABS_DIR / lab / f"{lab}.ipynb", student="instructor")
    assert grade.failures == {} and grade.score == grade.max_score >= 3


def _wrong(lab: str, change: tuple[str, int, str] | None = None) -> str:
    """The lab's source with one solution block replaced (``change``: cell, block, body; default ``WRONG[lab]``'s)."""
    cell_id, block, body = change or WRONG[lab][:3]
    notebook = json.loads((paths.LABS_DIR / lab / f"{lab}.ipynb").read_text())
    cell = next(c for c in notebook["cells"] if c["metadata"]["nbgrader"]["grade_id"] == cell_id)
    source, blocks = "".join(cell["source"]), list(SOLUTION.finditer("".join(cell["source"])))
    target = blocks[block]
    indent = target[1]
    wrong = "".join(f"{indent}{line}\n" for line in body.splitlines())
    cell["source"] = source[:target.start()] + wrong + source[target.end():]
    return json.dumps(notebook)


@pytest.mark.parametrize("lab", LABS)
def test_a_wrong_implementation_fails_with_a_message_that_names_it(released, lab, tmp_path):
    submission = tmp_path / "wrong.ipynb"
    submission.write_text(_wrong(lab))
    grade = course.autograde(released[0], lab, submission)  # the student is the file's name: no phantom "student"
    assert (released[0] / "autograded" / "wrong" / lab / f"{lab}.ipynb").is_file()
    assert not (released[0] / "submitted" / "student").exists()
    check, words = WRONG[lab][3:]
    assert grade.score < grade.max_score
    assert check in grade.failures and words in grade.failures[check], grade.failures


def _hidden_lines(source: str) -> list[str]:
    """The lines of a cell's hidden-test regions, without the markers."""
    return [line.strip() for region in re.findall(r"### BEGIN HIDDEN TESTS\n(.*?)### END HIDDEN TESTS", source, re.DOTALL)
            for line in region.splitlines() if line.strip()]


def test_a_class_is_graded_with_nbgraders_own_commands_in_the_course_folder(released, tmp_path):
    """The instructor's path of the README: submissions collected into ``submitted/<student>/<lab>/``, then
    ``nbgrader autograde``, ``generate_feedback`` and ``export`` run in the course folder (its nbgrader_config.py)."""
    import csv
    import os
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    root, lab = released[0], "lab1_metrics"
    assert (root / course.CONFIG_FILE).is_file()
    class_root = tmp_path / "class"  # a course of its own: the other tests' submissions are not this class's
    shutil.copytree(root / "source", class_root / "source")
    shutil.copytree(root / "release", class_root / "release")
    shutil.copyfile(root / course.CONFIG_FILE, class_root / course.CONFIG_FILE)
    submissions = {"ada": (paths.LABS_DIR / lab / f"{lab}.ipynb").read_text(), "bob": _wrong(lab)}
    for student, text in submissions.items():
        target = class_root / "submitted" / student / lab / f"{lab}.ipynb"
        target.parent.mkdir(parents=True)
        target.write_text(text)
    scripts = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": scripts + os.pathsep + os.environ.get("PATH", "")}
    for command in (["generate_assignment", lab, "--force"], ["autograde", lab], ["generate_feedback", lab],
                    ["export"]):
        done = subprocess.run([str(Path(scripts) / "nbgrader"), *command], cwd=class_root, env=env,
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"nbgrader {' '.join(command)}: {done.stderr[-2000:]}"
    with open(class_root / "grades.csv") as handle:
        grades = {row["student_id"]: row for row in csv.DictReader(handle)}
    assert sorted(grades) == ["ada", "bob"]
    assert float(grades["ada"]["score"]) == float(grades["ada"]["max_score"]) >= 3
    assert float(grades["bob"]["score"]) < float(grades["bob"]["max_score"])
    feedback = {student: class_root / "feedback" / student / lab / f"{lab}.html" for student in submissions}
    assert all(page.is_file() for page in feedback.values())
    assert WRONG[lab][4] in feedback["bob"].read_text() and WRONG[lab][4] not in feedback["ada"].read_text()
    # the hidden tests are not in the feedback (nbgrader's default shows them): neither their code nor, in a failed
    # one's traceback, the lines around its assert; their messages are
    hidden = [line for cell in json.loads((paths.LABS_DIR / lab / f"{lab}.ipynb").read_text())["cells"]
              for line in _hidden_lines("".join(cell["source"]))]
    assert len(hidden) >= 3
    for page in feedback.values():
        text = html.unescape(re.sub(r"<[^>]+>", "", page.read_text()))
        shown = [line for line in hidden if line.rsplit(', "', 1)[0] in text]
        assert not shown and "HIDDEN TESTS" not in text, f"{page.parent.parent.name}'s feedback shows {shown[:2]}"
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{class_root / 'gradebook.db'}") as gradebook:  # the commands read the course's config
        assert gradebook.find_assignment(lab).course_id == course.SETTINGS["CourseDirectory"]["course_id"]


# lab -> (solution cell, its block, a body that hands the work to reproq, the check that must fail)
GAMING = {
    "lab1_metrics": ("metrics", 0, ("from reproq import metrics\n"
                                    "return float(metrics.average_precision_score(ranked, -np.arange(len(ranked))))"),
                     "check_average_precision"),
    "lab2_max_margin": ("loss", 0, ("from reproq.train.objectives import max_margin_loss as theirs\n"
                                    "return theirs(positive, negatives, mask, margin)"), "check_loss"),
}


@pytest.mark.parametrize("lab", sorted(GAMING))
def test_a_submission_that_calls_reproqs_own_implementation_scores_nothing_for_it(released, lab, tmp_path):
    """Issue 44: a lab-1 submission that only called reproq.metrics scored 9/9."""
    cell, block, body, check = GAMING[lab]
    submission = tmp_path / "gamer.ipynb"
    submission.write_text(_wrong(lab, (cell, block, body)))
    grade = course.autograde(released[0], lab, submission)
    # graded apart (lab 1), the import is refused before it runs; in the student's kernel, the call is refused
    said = "imports reproq" if lab in apart.ALLOWED else "calls reproq's own"
    assert check in grade.failures and said in grade.failures[check], grade.failures
    assert "write it yourself" in grade.failures[check]
    honest = course.autograde(released[0], lab, paths.LABS_DIR / lab / f"{lab}.ipynb", student="honest")
    assert grade.score <= honest.score - 1  # the check's points are lost, the rest kept



@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel students install, built from a copy of this checkout's tracked files (setuptools' build folder in the
    checkout may hold files of an earlier build that the package data no longer names)."""
    import shutil
    import subprocess
    import sys

    source, out = tmp_path_factory.mktemp("source"), tmp_path_factory.mktemp("wheel")
    tracked = subprocess.run(["git", "-C", str(paths.ROOT), "ls-files"], capture_output=True, text=True, check=True)
    for name in tracked.stdout.splitlines():
        if (paths.ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(paths.ROOT / name, source / name)
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                           "-w", str(out), str(source)], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    (built,) = out.glob("reproq-*.whl")
    return built


def test_what_students_install_holds_no_solution_and_no_hidden_test(wheel):
    """Issue 44: students install the package (a wheel, or pip from the repository), never a clone: the wheel holds no
    file of ``labs/source/``, no notebook, and no line of a hidden test of any lab. (The library's own implementations
    of what the labs ask for are in it by nature: the checks compare against them, and refuse a submission that calls
    them, ``checks.asks``.)"""
    import zipfile

    with zipfile.ZipFile(wheel) as archive:
        members = {name: archive.read(name).decode("utf-8", "replace") for name in archive.namelist()}
    assert not [name for name in members if name.startswith("labs/") or "/source/" in name or name.endswith(".ipynb")]
    hidden = {line for lab in LABS for cell in json.loads((paths.LABS_DIR / lab / f"{lab}.ipynb").read_text())["cells"]
              for line in _hidden_lines("".join(cell["source"]))}
    assert len(hidden) >= 10
    leaked = {line: name for name, text in members.items() for line in hidden if line in text}
    assert not leaked, f"the wheel holds lines of the labs' hidden tests: {list(leaked.items())[:3]}"


def test_the_wheel_holds_every_file_the_package_reads_and_runs_without_the_checkout(wheel, tmp_path, real_data):
    """Issue 54: from the built wheel, ``reproq.data.registry`` could not find ``registry.tsv`` (not package data), so
    there was no ``reproq`` command. Every file git tracks under ``reproq/`` is in the wheel; installed into a fresh
    virtual environment that sees no checkout (the other packages it needs are this environment's, its editable
    ``reproq`` left out), ``reproq --help`` and ``reproq data fetch askubuntu`` from the mirror run."""
    import os
    import subprocess
    import sys
    import sysconfig
    import zipfile

    real_data("askubuntu", "dev.txt")  # the mirror is here (or the test is skipped / fails in CI)
    tracked = subprocess.run(["git", "-C", str(paths.ROOT), "ls-files", "reproq"], capture_output=True, text=True,
                             check=True).stdout.split()
    with zipfile.ZipFile(wheel) as archive:
        inside = set(archive.namelist())
    assert [f for f in tracked if not f.endswith(".py") and f not in inside] == []
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    site = next(venv.glob("lib/python3*/site-packages"))
    # this environment's packages as a plain path: a path line's own .pth files (the editable reproq's finder) never run
    (site / "others.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "REPROQ_DATA")}
    env |= {"REPROQ_DATA": str(tmp_path / "data"), "REPROQ_BUILD": str(tmp_path / "build")}
    python = str(venv / "bin" / "python")
    where = subprocess.run([python, "-c", "import reproq; print(reproq.__file__)"], cwd=tmp_path, env=env,
                           capture_output=True, text=True, timeout=120)
    assert where.stdout.startswith(str(site)), where.stdout + where.stderr  # the wheel's, not the checkout's
    run = lambda *command: subprocess.run([python, "-m", "reproq", *command], cwd=tmp_path, env=env,  # noqa: E731
                                          capture_output=True, text=True, timeout=600)
    helped = run("--help")
    assert helped.returncode == 0 and "reproq" in helped.stdout, helped.stderr[-2000:]
    # what the mirror has is fetched and verified; the corpus it lacks (unreachable here) is named, no traceback
    fetched = run("data", "fetch", "askubuntu")
    assert "verified  askubuntu/dev.txt" in fetched.stdout and "Traceback" not in fetched.stderr, fetched.stderr[-2000:]
    assert (tmp_path / "data" / "askubuntu" / "dev.txt").is_file()
    # lab 1's reference solution graded by nbgrader's own command in that environment: the kernel, the checks and the
    # grading apart all the wheel's (the course folder is the instructor's, released from the checkout)
    lab, course_dir = "lab1_metrics", tmp_path / "course"
    course.release(course_dir, only=[lab])
    submitted = course_dir / "submitted" / "ref" / lab / f"{lab}.ipynb"
    submitted.parent.mkdir(parents=True)
    submitted.write_text((paths.LABS_DIR / lab / f"{lab}.ipynb").read_text())
    graded = subprocess.run([python, "-m", "nbgrader", "autograde", lab], cwd=course_dir, capture_output=True,
                            text=True, timeout=600,
                            env=env | {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"})
    assert graded.returncode == 0, graded.stderr[-3000:]
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}") as gradebook:
        result = gradebook.find_submission(lab, "ref")
        assert result.score == result.max_score == 9, (result.score, result.max_score)


def _appended(text: str, cell_id: str, code: str) -> str:
    """A submission (JSON text) with ``code`` added at the end of its solution cell ``cell_id``."""
    notebook = json.loads(text)
    cell = next(c for c in notebook["cells"] if c["metadata"]["nbgrader"]["grade_id"] == cell_id)
    cell["source"] = "".join(cell["source"]) + "\n\n" + code + "\n"
    return json.dumps(notebook)


# lab 1's shortcuts that scored 9/9 before grading apart (issue 54): name -> (the submission, the checks it must lose:
# the shortcut function's, and evaluate's and the BM25 row's, whose numbers come through it)
THROUGH = {"check_evaluate", "check_bm25_row"}
AP_BY = "return float(ap(ranked, -np.arange(len(ranked))))"
SHORTCUTS = {
    "scikit-learn inside the function": (
        ("metrics", 0, "from sklearn.metrics import average_precision_score as ap\n" + AP_BY),
        {"check_average_precision", *THROUGH}),
    "reproq's module loaded afresh from its file": (
        ("metrics", 0, "import importlib.util\nimport reproq\n"
                       "spec = importlib.util.spec_from_file_location('m', reproq.__path__[0] + '/metrics.py')\n"
                       "module = importlib.util.module_from_spec(spec)\nspec.loader.exec_module(module)\n"
                       "ap = module.average_precision_score\n" + AP_BY), {"check_average_precision", *THROUGH}),
    "inspect.getsource, then exec": (
        ("metrics", 0, "import inspect\nfrom reproq import metrics\nfound = {}\n"
                       "exec(inspect.getsource(metrics), found)\nap = found['average_precision_score']\n" + AP_BY),
        {"check_average_precision", *THROUGH}),
    "a table of the checks' inputs and answers": (
        ("metrics", 0, "table = {(1, 0, 1, 0): (1 + 2 / 3) / 2}\nreturn table[tuple(int(x) for x in ranked)]"),
        {"check_average_precision", *THROUGH}),
}
APPENDED = {
    "reproq's function captured in a default argument": (
        "metrics", "from reproq import metrics as captured\n\n\n"
                   "def reciprocal_rank(ranked, score=captured.reciprocal_rank_score):\n"
                   "    return score(ranked, -np.arange(len(ranked)))", {"check_reciprocal_rank", *THROUGH}),
    "the checks replaced, and a float whose == is always true": (
        "evaluate", "class Always(float):\n    def __eq__(self, other):\n        return True\n\n\n"
                    "checks.check_evaluate = checks.check_bm25_row = checks.expect = lambda *a, **k: None\n\n\n"
                    "def evaluate(queries):\n    return {name: Always(0.0) for name in ('MAP', 'MRR', 'P@1', 'P@5')}",
        {"check_evaluate", "check_bm25_row"}),
}


def _lab1_apart(text: str, lab: str = "lab1_metrics") -> dict[str, str | None]:
    import nbformat

    cells = nbformat.reads(text, as_version=4).cells
    graded = apart.grade(cells, apart.ALLOWED[lab])
    return {cells[i].metadata.nbgrader.grade_id: error for i, error in graded.items()}


@pytest.mark.parametrize("shortcut", [*SHORTCUTS, *APPENDED])
def test_each_shortcut_loses_the_checks_it_shortcuts_and_only_those(shortcut, real_data):
    """Issue 54: graded apart from the student's kernel (reproq.labs.apart), every shortcut that scored 9/9 on lab 1
    fails the checks it takes a short cut on, with a message naming the line; the student's other work keeps its
    marks."""
    real_data("askubuntu", "test.txt")
    lab = "lab1_metrics"
    if shortcut in SHORTCUTS:
        change, lost = SHORTCUTS[shortcut]
        text = _wrong(lab, change)
    else:
        cell, code, lost = APPENDED[shortcut]
        text = _appended((paths.LABS_DIR / lab / f"{lab}.ipynb").read_text(), cell, code)
    outcome = _lab1_apart(text)
    failed = {check for check, error in outcome.items() if error}
    assert failed == lost, outcome


def test_grading_apart_keeps_honest_marks_whatever_the_student_prints_or_warns(real_data):
    real_data("askubuntu", "test.txt")
    lab = "lab1_metrics"
    source = (paths.LABS_DIR / lab / f"{lab}.ipynb").read_text()
    assert set(_lab1_apart(source).values()) == {None}  # the instructor's solution passes every check apart
    noisy = _wrong(lab, ("metrics", 0, "print('working', np.float64(1.0) / np.float64(0.0))  # a RuntimeWarning\n"
                                       "ranked = np.asarray(ranked)\nhits = np.flatnonzero(ranked)\n"
                                       "return float(np.mean([(i + 1) / (r + 1) for i, r in enumerate(hits)]))"))
    assert set(_lab1_apart(noisy).values()) == {None}
    bob = _lab1_apart(_wrong(lab))  # ties in favour of positives: rank (its mistake named) and evaluate through it
    assert {c for c, e in bob.items() if e} <= {"check_rank", *THROUGH} and "positives come first" in bob["check_rank"]


def test_a_shortcut_graded_by_nbgrader_scores_only_the_students_own_work(released, tmp_path):
    """Through the course's nbgrader settings: the submission that replaced the checks and returned an always-equal
    float scored 9/9 in its own kernel; graded apart it loses evaluate's 2 points and the BM25 row's 2, keeps the
    rest, and nothing of a hidden test is in the graded cells' outputs."""
    lab = "lab1_metrics"
    cell, code, lost = APPENDED["the checks replaced, and a float whose == is always true"]
    submission = tmp_path / "gamer.ipynb"
    submission.write_text(_appended((paths.LABS_DIR / lab / f"{lab}.ipynb").read_text(), cell, code))
    grade = course.autograde(released[0], lab, submission)
    assert set(grade.failures) == lost and grade.score == grade.max_score - 4, grade
    graded = json.loads((released[0] / "autograded" / "gamer" / lab / f"{lab}.ipynb").read_text())
    hidden = [line for c in json.loads((paths.LABS_DIR / lab / f"{lab}.ipynb").read_text())["cells"]
              for line in _hidden_lines("".join(c["source"]))]
    shown = json.dumps([c.get("outputs", []) for c in graded["cells"]])
    assert hidden and not [line for line in hidden if line.split(",")[0] in shown]


def test_a_folder_of_returned_work_grades_only_students_and_a_broken_notebook_scores_0_with_why(released, tmp_path,
                                                                                                  capsys):
    """Issue 54: a returned feedback notebook in the folder became a student, a broken or other lab's notebook was a
    63-line traceback and still added with 0."""
    from reproq import cli

    lab = "lab1_metrics"
    folder = tmp_path / "returned"
    for student, text in {"ada": (paths.LABS_DIR / lab / f"{lab}.ipynb").read_text(),
                          "cy": '{"cells": [ not json', "dee": (paths.LABS_DIR / "lab5_cbow" / "lab5_cbow.ipynb")
                          .read_text()}.items():
        (folder / student).mkdir(parents=True)
        (folder / student / f"{lab}.ipynb").write_text(text)
    (folder / "ada" / f"{lab}_feedback.ipynb").write_text((paths.LABS_DIR / lab / f"{lab}.ipynb").read_text())
    (folder / "ada" / ".ipynb_checkpoints").mkdir()
    (folder / "ada" / ".ipynb_checkpoints" / f"{lab}-checkpoint.ipynb").write_text("{}")
    (folder / "notes.txt").write_text("not a notebook")
    assert cli.main(["labs", "--out", str(released[0]), "--autograde", lab, str(folder)]) == 0
    out, err = capsys.readouterr()
    assert "ada, lab1_metrics: 9 of 9 points" in out
    assert "cy, lab1_metrics: 0 of 9 points" in out and "is not a notebook that Jupyter can open" in out
    skipped = err.strip().splitlines()
    assert len(skipped) == 3 and "Traceback" not in err, err
    assert any(f"{lab}_feedback.ipynb" in line for line in skipped) and any("notes.txt" in line for line in skipped)
    assert any("dee" in line and "not a notebook of lab1_metrics's release" in line for line in skipped)
    assert not [p.name for p in (released[0] / "submitted").iterdir() if p.name in (f"{lab}_feedback", "dee")]
    graded = json.loads((released[0] / "autograded" / "cy" / lab / f"{lab}.ipynb").read_text())
    assert "could not be graded" in "".join(graded["cells"][0]["source"])
    # one notebook of another lab, given by name: one line, exit 1, no student added
    assert cli.main(["labs", "--out", str(released[0]), "--autograde", lab,
                     str(paths.LABS_DIR / "lab2_max_margin" / "lab2_max_margin.ipynb")]) == 1
    assert "not a notebook of lab1_metrics's release" in capsys.readouterr().err
    assert not (released[0] / "submitted" / "lab2_max_margin").exists()


def test_lab_2_trains_the_graders_network_with_the_students_loss_run_apart(real_data):
    """Lab 2 trains with the student's loss: graded apart, the gradient of the loss crosses from the student's
    process as numbers (reproq.labs.apart.StudentProcess.remote), so the source earns both checks; a loss of the right
    value computed with NumPy (no gradient) loses the gradient's hidden test and the training check (whose dev MRR
    alone, two short epochs on the stand-in, it had passed: the trained weights now tell); a call of
    reproq's own loss is refused; the known mistake is named."""
    lab = "lab2_max_margin"
    assert set(_lab1_apart((paths.LABS_DIR / lab / f"{lab}.ipynb").read_text(), lab).values()) == {None}
    numpy_loss = _lab1_apart(_wrong(lab, ("loss", 0, (
        "import numpy as np\n"
        "n = np.where(mask.numpy(), negatives.detach().numpy(), -np.inf).max(axis=1)\n"
        "return torch.tensor(np.maximum(n - positive.detach().numpy() + margin, 0).mean())"))), lab)
    assert "its gradient is not" in numpy_loss["check_loss"] and "weights end up" in numpy_loss["check_training"]
    shortcut = _lab1_apart(_wrong(lab, GAMING[lab][:3]), lab)
    assert "imports reproq" in shortcut["check_loss"] and shortcut["check_training"]
    assert "sign is flipped" in _lab1_apart(_wrong(lab), lab)["check_loss"]


def test_the_torch_labs_are_graded_apart_too(real_data):
    """Labs 3-5 run their solution cells apart with torch: the source passes, a call of reproq's own loses its
    check, the known mistake is still named."""
    assert sorted(apart.ALLOWED) == ["lab1_metrics", "lab2_max_margin", "lab3_rcnn", "lab4_ctrn", "lab5_cbow"]
    lab = "lab3_rcnn"
    assert set(_lab1_apart((paths.LABS_DIR / lab / f"{lab}.ipynb").read_text(), lab).values()) == {None}
    shortcut = _lab1_apart(_wrong(lab, ("params", 0, "from reproq.models.rcnn import RCNN, RCNNConfig\n"
                                                     "model = RCNN(RCNNConfig(input_dim=E, hidden_dim=d, order=n))\n"
                                                     "return sum(p.numel() for p in model.parameters())")), lab)
    assert shortcut["check_step"] is None and "imports reproq" in shortcut["check_params"]
    wrong = _lab1_apart(_wrong(lab), lab)
    assert wrong["check_params"] is None and "are swapped" in wrong["check_step"]
