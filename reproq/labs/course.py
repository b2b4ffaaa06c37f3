"""The labs as a course: nbgrader's student release from the instructor's sources, and autograding, headless.

nbgrader (the Jupyter project's tool for course assignments) works in a course directory: ``source/<lab>/`` holds
the instructor's notebook with its solutions between ``### BEGIN SOLUTION`` / ``### END SOLUTION`` and its hidden
tests between ``### BEGIN HIDDEN TESTS`` / ``### END HIDDEN TESTS``; ``generate_assignment`` writes
``release/<lab>/`` without either and without outputs; ``autograde`` runs a submission from
``submitted/<student>/<lab>/`` with the hidden tests put back and records its points in ``gradebook.db``.
:func:`release` builds such a directory from ``labs/source/`` (:data:`reproq.paths.LABS_DIR`) with its
``nbgrader_config.py`` (:func:`write_config`), so that an instructor's own ``nbgrader`` commands work there for a
class; :func:`autograde` grades one submitted notebook there.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path

import nbformat

from reproq import atomic, paths


def labs() -> list[str]:
    """The labs, in teaching order (their folder names under ``labs/source/``)."""
    return sorted(p.name for p in paths.LABS_DIR.iterdir() if (p / f"{p.name}.ipynb").is_file())


# the course's nbgrader settings, here and in the ``nbgrader_config.py`` an instructor's own nbgrader commands read
SETTINGS = {"CourseDirectory": {"course_id": "reproq"},
            "ExecutePreprocessor": {"timeout": 600},  # seconds per cell: a lab trains a small model
            # each graded cell graded again apart from the student's kernel, after it ran: reproq.labs.apart
            "Autograde": {"autograde_preprocessors": [
                "nbgrader.preprocessors.Execute", "nbgrader.preprocessors.IgnorePattern",
                "nbconvert.preprocessors.ClearMetadataPreprocessor", "nbgrader.preprocessors.LimitOutput",
                "reproq.labs.apart.GradedApart",
                *(f"nbgrader.preprocessors.{name}" for name in ("SaveAutoGrades", "AssignLatePenalties",
                                                                "CheckCellMetadata"))]},
            # a student's feedback without the hidden tests (nbgrader's default shows them): reproq.labs.feedback
            "GenerateFeedback": {"preprocessors": ["nbgrader.preprocessors.GetGrades",
                                                   "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
                                                   "reproq.labs.feedback.HiddenTestsKept"]}}
CONFIG_FILE = "nbgrader_config.py"


def write_config(course: Path) -> Path:
    """``course/nbgrader_config.py``: :data:`SETTINGS` for the ``nbgrader`` commands an instructor runs in the course
    directory (its root and gradebook are nbgrader's defaults there: the folder and ``gradebook.db`` in it)."""
    lines = ["# nbgrader's settings for the reproq labs, written by `reproq labs`: run nbgrader from this folder",
             "c = get_config()  # noqa: F821 - nbgrader defines it when it reads this file",
             *(f"c.{section}.{name} = {value!r}" for section, values in SETTINGS.items()
               for name, value in values.items())]
    return atomic.write_text(Path(course) / CONFIG_FILE, "\n".join(lines) + "\n")


def _api(course: Path):
    from nbgrader.apps import NbGraderAPI
    from traitlets.config import Config

    # nbgrader runs its gradebook migrations with the `alembic` command, by name: find it beside this Python even
    # when its virtual environment is not activated (`.venv/bin/reproq labs`)
    scripts = str(Path(sys.executable).parent)
    if scripts not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = scripts + os.pathsep + os.environ.get("PATH", "")

    config = Config(SETTINGS)
    config.CourseDirectory.root = str(course)
    config.CourseDirectory.db_url = f"sqlite:///{course / 'gradebook.db'}"
    return NbGraderAPI(config=config)


def _checked(result: dict, what: str) -> None:
    if not result.get("success"):
        raise RuntimeError(f"nbgrader {what} failed: {result.get('error') or ''}\n{result.get('log', '')[-3000:]}")


def release(course: Path, only: list[str] | None = None) -> dict[str, Path]:
    """Copy the instructor's sources to ``course/source`` and write the student release to ``course/release``;
    returns each lab's released notebook."""
    course = Path(course)
    for lab in only or ():
        known(lab)
    write_config(course)
    api, released = _api(course), {}
    for lab in only or labs():
        shutil.copytree(paths.LABS_DIR / lab, course / "source" / lab, dirs_exist_ok=True)
        _checked(api.generate_assignment(lab, force=True), f"generate_assignment {lab}")
        released[lab] = course / "release" / lab / f"{lab}.ipynb"
    return released


@dataclass(frozen=True)
class Grade:
    score: float
    max_score: float
    failures: dict[str, str]  # grade_id of each failed check -> the message it printed (the last line)


def known(lab: str) -> str:
    """``lab``, or ValueError in one line naming the labs there are."""
    if lab not in labs():
        raise ValueError(f"no lab {lab!r}; the labs are: {', '.join(labs())}")
    return lab


class NotASubmission(ValueError):
    """A file that is not a notebook of the lab's release: skipped, in one line naming it."""


def _cell_ids(notebook: dict) -> set[str]:
    return {c.get("metadata", {}).get("nbgrader", {}).get("grade_id") for c in notebook.get("cells", [])
            if isinstance(c, dict)} - {None}


def unreadable(lab: str, submission: Path) -> str | None:
    """Why ``submission`` cannot be graded as a notebook (not JSON, not a notebook), or None. A notebook of another
    lab, or of no lab, is :class:`NotASubmission`."""
    try:
        notebook = json.loads(Path(submission).read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        return f"{Path(submission).name} is not a notebook that Jupyter can open ({type(error).__name__}: {error})"
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        return f"{Path(submission).name} is JSON but not a notebook (no list of cells)"
    ids, own = _cell_ids(notebook), _cell_ids(json.loads((paths.LABS_DIR / lab / f"{lab}.ipynb").read_text()))
    if not ids & own or ids - own:
        raise NotASubmission(f"{submission}: not a notebook of {lab}'s release (its graded cells are not {lab}'s): "
                             "skipped")
    return None


def _unread_stand_in(course: Path, lab: str, why: str) -> str:
    """The student release of ``lab`` with ``why`` at its top: what an unreadable submission is graded as (every
    check fails on the release's empty cells: 0 points), so that its feedback says why."""
    notebook = json.loads((course / "release" / lab / f"{lab}.ipynb").read_text())
    notebook["cells"].insert(0, nbformat.v4.new_markdown_cell(
        f"**This submission could not be graded: {why}.** It scores 0. Hand in `{lab}.ipynb` as the release "
        "names it, saved from Jupyter."))
    return json.dumps(notebook)


def autograde(course: Path, lab: str, submission: Path, *, student: str | None = None) -> Grade:
    """Grade ``submission`` (a notebook of ``lab``) as ``student``'s (default: the submission's file name,
    ``alice.ipynb`` -> ``alice``), in a course built by :func:`release`. A notebook of another lab, or of none, is
    :class:`NotASubmission`; one that is not a notebook at all scores 0 with the reason in its feedback."""
    from nbgrader.api import Gradebook

    known(lab)
    if not Path(submission).is_file():
        raise ValueError(f"{submission}: no such notebook to grade")
    why = unreadable(lab, submission)
    student = student or Path(submission).stem
    course = Path(course)
    target = course / "submitted" / student / lab / f"{lab}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    if why:
        atomic.write_text(target, _unread_stand_in(course, lab, why))
    else:
        shutil.copyfile(submission, target)
    with warnings.catch_warnings():
        # nbgrader's gradebook adds a new submission in a way SQLAlchemy warns about ("Object of type
        # <SubmittedAssignment> not in session"), three times a grading; harmless: the submission is saved
        warnings.filterwarnings("ignore", message="Object of type <Submitted")
        _checked(_api(course).autograde(lab, student, force=True), f"autograde {lab} for {student}")
        with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
            graded = gradebook.find_submission(lab, student)
            score, max_score = graded.score, graded.max_score
    graded_notebook = json.loads((course / "autograded" / student / lab / f"{lab}.ipynb").read_text())
    failures = {}
    for cell in graded_notebook["cells"]:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
        if grade_id and errors:
            failures[grade_id] = f"{errors[0]['ename']}: {errors[0]['evalue']}"
    return Grade(score, max_score, {"submission": why, **failures} if why else failures)


def submissions(lab: str, folder: Path) -> tuple[dict[str, Path], list[str]]:
    """A folder of returned work: each student's ``<student>/<lab>.ipynb`` (or nbgrader's
    ``<student>/<lab>/<lab>.ipynb``) by student, and a line for every other file in it, which is skipped."""
    found, skipped = {}, []
    for path in sorted(Path(folder).rglob("*")):
        parts = path.relative_to(folder).parts
        if not path.is_file() or any(p.startswith(".") for p in parts):  # .ipynb_checkpoints, .DS_Store
            continue
        layout = parts[1:] in ((f"{lab}.ipynb",), (lab, f"{lab}.ipynb"))
        if layout and parts[0] not in found:
            found[parts[0]] = path
        else:
            skipped.append(f"skipped {path}: not a submission of {lab} (one is <student>/{lab}.ipynb)")
    return found, skipped
