"""Grading apart from the student's kernel: a lab's marks measure the student's own code.

nbgrader runs a submission in one kernel, the student's code and the checks together, so whatever the student's
cells do (replace a check, return a number whose ``==`` is always true, load the library's implementation from its
file, read the checks' inputs) the checks run under it. For a lab named in :data:`ALLOWED`, the course's autograding
(:class:`GradedApart`, after nbgrader's ``Execute``) grades each test cell again outside that kernel and its outcome
is the cell's grade:

- the student's solution cells run in a process of their own (:mod:`reproq.labs.student_process`) that holds their
  source and nothing else: no reproq, no scikit-learn, no module but those the lab allows (its folder of packages
  holds only those), no ``exec``, ``eval``, ``compile``, ``open``, ``getattr`` or dunder names (a top-level
  statement using one is refused before it runs, with its line: :func:`refusal`), no file it can write;
- the lab's own cells, its checks and its hidden tests run here, in the grader's process, with each of the student's
  functions standing for a call into that process (:meth:`StudentProcess.remote`): every argument and every result
  crosses as JSON, so what the checks compare are plain numbers and arrays, and the student's process never sees a
  test's code or its expected answers;
- the checks draw fresh random inputs at each grading (:mod:`reproq.labs.checks`), so no table of answers can pass.

A graded cell's outputs become what this run gave: nothing, or its error in one line (its message names the mistake,
as in the student's kernel). Nothing the student's process prints reaches the feedback.

What it cannot see: code the student copied by hand from the library's source into a cell is the student's code
here (plagiarism, for the course to judge), and Python offers no sealed sandbox: the refusals close the known ways
round, not every way.
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
import os
import re
import select
import subprocess
import sys
import tempfile
import time
from importlib import metadata, util
from pathlib import Path

import nbformat
from nbconvert.preprocessors import Preprocessor
from nbgrader.utils import is_grade, is_solution
from traitlets import Bool

from reproq.labs.student_process import WITHHELD, decode, encode

# lab -> the modules its solution cells may import, and nothing else (a lab not named here is graded in the
# student's kernel only)
ALLOWED = {"lab1_metrics": ("math", "numpy"), "lab2_max_margin": ("math", "numpy", "torch"),
           "lab3_rcnn": ("math", "numpy", "torch"),
           "lab4_ctrn": ("math", "numpy", "torch"), "lab5_cbow": ("math", "numpy", "torch")}
CALL_SECONDS = 120  # the longest one call of a student's function may take


def refusal(node: ast.AST, allowed: tuple[str, ...]) -> str | None:
    """Why the grader does not run a top-level statement of a student's solution cell, or None: an import of a module
    the lab does not allow, a builtin that runs or reaches other code, a dunder name or a private attribute."""
    for child in ast.walk(node):
        if isinstance(child, ast.Import | ast.ImportFrom):
            names = [a.name for a in child.names] if isinstance(child, ast.Import) else [child.module or "."]
            for name in names:
                if getattr(child, "level", 0) or name.split(".")[0] not in allowed:
                    return f"imports {name} (the lab allows {', '.join(allowed)})"
        named = (child.id if isinstance(child, ast.Name) else child.attr if isinstance(child, ast.Attribute)
                 else child.name if isinstance(child, ast.FunctionDef | ast.ClassDef) else None)
        if named in WITHHELD:
            return f"uses {named}"
        if named and named.startswith("__") or isinstance(child, ast.Attribute) and child.attr.startswith("_"):
            return f"uses {named}"
    return None


def _defined(node: ast.AST) -> list[str]:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [node.name]
    if isinstance(node, ast.Import | ast.ImportFrom):
        return [(a.asname or a.name).split(".")[0] for a in node.names]
    return [t.id for t in ast.walk(node) if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store)]


def statements(cells: list[tuple[str, str]], allowed: tuple[str, ...]) -> list[dict]:
    """Cells (what each is called, its source) as top-level statements for the student's process: each with where it
    is, the names it defines, and its source, or the refusal it fails with."""
    out = []
    for cell, source in cells:
        try:
            tree = ast.parse(source)
        except SyntaxError as error:
            out.append({"names": [], "where": cell, "refused": f"{cell}, line {error.lineno}: {error.msg}"})
            continue
        for node in tree.body:
            where = f"{cell}, line {node.lineno}"
            why = refusal(node, allowed)
            entry = {"names": _defined(node), "where": where}
            if why:
                entry["refused"] = f"{where} {why}, which the grader does not run: the lab asks you to write it " \
                                   "yourself"
            else:
                entry["source"] = "\n" * (node.lineno - 1) + ast.get_source_segment(source, node, padded=True)
            out.append(entry)
    return out


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _required(distribution: str, found: set[str]) -> set[str]:
    """``distribution`` and every distribution it requires (not an extra's), recursively, as installed here."""
    if _normal(distribution) in found:
        return found
    try:
        requires = metadata.distribution(distribution).requires or []
    except metadata.PackageNotFoundError:
        return found
    found.add(_normal(distribution))
    for requirement in requires:
        if "extra ==" not in requirement:
            _required(re.match(r"[A-Za-z0-9_.\-]+", requirement)[0], found)
    return found


def packages(allowed: tuple[str, ...], folder: Path) -> Path:
    """``folder`` holding a link to each allowed package that is not in the standard library and to what it needs to
    import (torch's sympy, jinja2, ...), with what their distributions ship beside them (``numpy.libs``): the
    student's process finds those and nothing else (no reproq, no scikit-learn)."""
    tops, wanted = metadata.packages_distributions(), set()
    for name in allowed:
        if name not in sys.stdlib_module_names:
            for distribution in tops.get(name, [name]):
                _required(distribution, wanted)
    for top, distributions in tops.items():
        spec = util.find_spec(top) if any(_normal(d) in wanted for d in distributions) else None
        if spec is None or not (spec.submodule_search_locations or spec.has_location):
            continue
        where = Path(spec.submodule_search_locations[0] if spec.submodule_search_locations else spec.origin)
        for entry in where.parent.iterdir():
            if entry.name == where.name or entry.name.startswith(f"{where.name}.") and entry.is_dir():
                with contextlib.suppress(FileExistsError):
                    (folder / entry.name).symlink_to(entry)
    return folder


class StudentProcess:
    """The student's solution cells running in a process of their own (module docstring); ``remote(name)`` is a
    callable that calls their function ``name`` there."""

    def __init__(self, cells: list[tuple[str, str]], allowed: tuple[str, ...]):
        self._scratch = tempfile.TemporaryDirectory(prefix="reproq-student-")
        scratch = Path(self._scratch.name).resolve()
        (scratch / "packages").mkdir()
        folder = packages(allowed, scratch / "packages")
        script = Path(__file__).with_name("student_process.py")
        env = {"PATH": os.environ.get("PATH", ""), "HOME": str(scratch), "OMP_NUM_THREADS": "1", "LANG": "C.UTF-8"}
        self._process = subprocess.Popen([sys.executable, "-I", "-S", str(script)], cwd=scratch, env=env, text=True,
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self._send({"packages": str(folder), "allowed": list(allowed), "statements": statements(cells, allowed)})
        self.defined = self._receive()["defined"]  # the functions the cells define (one that failed raises why)

    def _send(self, message: dict) -> None:
        self._process.stdin.write(json.dumps(message) + "\n")
        self._process.stdin.flush()

    def _receive(self) -> dict:
        deadline = time.monotonic() + CALL_SECONDS
        while not select.select([self._process.stdout], [], [], max(0.0, deadline - time.monotonic()))[0]:
            if time.monotonic() >= deadline:
                self.close()
                raise TimeoutError(f"your code ran past the grader's {CALL_SECONDS} s for one call")
        line = self._process.stdout.readline()
        if not line:
            raise RuntimeError(f"your code ended the grader's process (exit status {self._process.wait()})")
        return json.loads(line)

    def call(self, name: str, *args):
        try:
            self._send({"function": name, "args": encode(list(args))})
        except (BrokenPipeError, OSError) as error:
            raise RuntimeError("your code ended the grader's process") from error
        answer = self._receive()
        if "error" in answer:
            raise AssertionError(f"{name} raised {answer['error']}")
        import numpy as np

        # plain numbers, arrays and tensors, never an object of the student's
        return decode(answer["value"], np, sys.modules.get("torch"))

    def call_differentiated(self, name: str, wanted: list[int], *args):
        """``name(*args)`` in the student's process with the gradient of its (scalar) result with respect to each
        argument indexed in ``wanted``, computed there by autograd over the student's operations."""
        try:
            self._send({"function": name, "args": encode(list(args)), "gradients": wanted})
        except (BrokenPipeError, OSError) as error:
            raise RuntimeError("your code ended the grader's process") from error
        answer = self._receive()
        if "error" in answer:
            raise AssertionError(f"{name} raised {answer['error']}")
        import numpy as np
        import torch

        return decode(answer["value"], np, torch), decode(answer["gradients"], np, torch)

    def remote(self, name: str):
        """A callable standing for the student's function ``name``. Called with a tensor that autograd follows here
        (lab 2 trains the grader's network with the student's loss), the call is a step of the grader's autograd
        (:func:`_crossing`): the student's process returns its result and the gradient of it with respect to those
        tensors, and the backward pass carries that gradient on, so the gradients of a loss cross as numbers too."""
        def call(*args):
            torch = sys.modules.get("torch")
            wanted = [i for i, a in enumerate(args) if torch and isinstance(a, torch.Tensor) and a.requires_grad]
            return _crossing().apply(self, name, wanted, *args) if wanted else self.call(name, *args)

        call.__name__ = call.__qualname__ = name
        return call

    def close(self) -> None:
        if self._process.poll() is None:
            self._process.kill()
        self._process.wait()
        for stream in (self._process.stdin, self._process.stdout):
            with contextlib.suppress(OSError):
                stream.close()
        self._scratch.cleanup()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _crossing():
    """The step of the grader's autograd that a call of a student's function is (:meth:`StudentProcess.remote`)."""
    import torch

    class Crossing(torch.autograd.Function):
        @staticmethod
        def forward(ctx, student, name, wanted, *args):
            value, gradients = student.call_differentiated(name, wanted, *args)
            if not isinstance(value, float | torch.Tensor) or torch.as_tensor(value).numel() != 1:
                raise AssertionError(f"{name} returned {type(value).__name__}, not one number the grader can train "
                                     "with")
            ctx.gradients, ctx.n = dict(zip(wanted, gradients)), len(args)
            return torch.as_tensor(value, dtype=args[wanted[0]].dtype).reshape(())

        @staticmethod
        def backward(ctx, upstream):
            found = [ctx.gradients.get(i) for i in range(ctx.n)]
            return (None, None, None, *(None if g is None else upstream * g for g in found))

    return Crossing


def grade(cells: list, allowed: tuple[str, ...]) -> dict[int, str | None]:
    """Each graded cell of a lab's notebook (``cells``: nbformat's, the hidden tests in) by index: None if it passes
    run apart (module docstring), else its error in one line."""
    code = [c for c in cells if c.cell_type == "code"]
    # the lab's own imports of what it allows (``import numpy as np``), then the student's cells
    imports = [ast.get_source_segment(c.source, node) for c in code if not is_solution(c)
               for node in ast.parse(c.source).body if isinstance(node, ast.Import | ast.ImportFrom)
               and refusal(node, allowed) is None]
    solutions = [("the lab's imports", "\n".join(imports)),
                 *((f"your cell {c.metadata.nbgrader.grade_id!r}", c.source) for c in code if is_solution(c))]
    outcome: dict[int, str | None] = {}
    with StudentProcess(solutions, allowed) as student:
        namespace = {"__name__": "__grading__"}
        namespace.update({name: student.remote(name) for name in student.defined})
        for index, cell in enumerate(cells):
            if cell.cell_type != "code" or is_solution(cell):
                continue
            try:
                with contextlib.redirect_stdout(io.StringIO()):
                    exec(compile(cell.source, f"<the lab's cell {index}>", "exec"), namespace)  # the lab's own code
                error = None
            except Exception as raised:  # noqa: BLE001 - a check's failure is the student's to read
                error = f"{type(raised).__name__}: {raised}"
            if is_grade(cell):
                outcome[index] = error
    return outcome


class GradedApart(Preprocessor):
    """nbgrader's autograding step for the labs of :data:`ALLOWED` (:data:`reproq.labs.course.SETTINGS` puts it after
    ``Execute``): each graded cell's outputs become its outcome run apart, nothing or its error."""

    enabled = Bool(True)  # nbconvert's preprocessors are off unless enabled; nbgrader's are on

    def preprocess(self, nb, resources):
        lab = resources.get("nbgrader", {}).get("notebook") or Path(resources.get("unique_key", "")).stem
        if lab not in ALLOWED:
            return nb, resources
        for index, error in grade(nb.cells, ALLOWED[lab]).items():
            name, _, message = (error or "").partition(": ")
            nb.cells[index].outputs = [] if error is None else [
                nbformat.v4.new_output("error", ename=name, evalue=message, traceback=[error])]
        return nb, resources
