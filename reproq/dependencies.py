"""What a notebook's run depends on, read from its source: the parts of its cache key (:func:`parts`), each hashed
apart, so that the runner can say in one line what changed (:func:`why`).

- ``cells``: its cells, code and Markdown (its reading cells aside: their words are its outputs,
  :mod:`reproq.report.readings`), so that its executed copy says what its source says;
- ``code <module>``: each reproq module the notebook reaches, by its code (:func:`reproq.imports.code_of`: no
  docstring, no comment) — the modules its code cells import, the paper module that declares the profile section its
  ``setup(section=...)`` call asks for, and what these import, through the same import graph the checkpoint key reads
  (:mod:`reproq.imports`); with them the package data a reached module names (``registry.tsv``, ``paper_numbers.csv``);
- ``data <dataset>``: the state of each dataset a reached module names (:func:`reproq.data.sources.status`);
- ``parameters`` and ``threads``: what the run was asked for, and torch's thread count (another count changes the
  order of float sums, hence trained numbers).

Nothing else: an edited module the notebook does not reach, a dataset it does not read, a docstring or a comment
executes nothing again. (The report's notebook reads every other notebook's records: the batch runs it last, after
them.)
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
from pathlib import Path

from reproq import imports, notebook_json

PAPERS = "reproq.papers"
REGISTRY = "reproq.data.registry"  # the table of every dataset: naming them all, it reads none
MAGIC = re.compile(r"^\s*[%!].*$", re.M)  # IPython's line magics and shell escapes: not Python


def code_cells(notebook: dict) -> list[str]:
    """The source of each code cell of a notebook's JSON, its IPython magics blanked."""
    return [MAGIC.sub("", "".join(c["source"])) for c in notebook["cells"] if c["cell_type"] == "code"]


def imported(cells: list[str]) -> set[str]:
    """The reproq modules ``cells`` import (:func:`reproq.imports.imported_by`), and the paper modules declaring the
    profile sections their ``setup(section="...")`` calls ask for."""
    files = imports.module_files()
    trees = [ast.parse(cell) for cell in cells]
    calls = [node for tree in trees for node in ast.walk(tree) if isinstance(node, ast.Call)
             and getattr(node.func, "id", getattr(node.func, "attr", "")) == "setup"]
    return set().union(*(imports.imported_by(tree, files) for tree in trees)) | {
        declaring(k.value.value) for call in calls for k in call.keywords
        if k.arg == "section" and isinstance(k.value, ast.Constant) and k.value.value}


def declaring(section: str) -> str:
    """The module of :mod:`reproq.papers` whose ``SECTION`` is ``section``, read from the sources (nothing imported);
    ValueError naming the sections there are."""
    declared = sections()
    if section not in declared:
        raise ValueError(f"no profile section {section!r}; there are: {', '.join(sorted(declared))}")
    return declared[section]


def sections() -> dict[str, str]:
    """Every profile section a module of :mod:`reproq.papers` declares (``SECTION = "..."`` at its top) -> that
    module."""
    found = {}
    for module, path in imports.module_files().items():
        if module.startswith(f"{PAPERS}."):
            for node in ast.parse(path.read_text()).body:
                if (isinstance(node, ast.Assign) and [getattr(t, "id", "") for t in node.targets] == ["SECTION"]
                        and isinstance(node.value, ast.Constant)):
                    found[node.value.value] = module
    return found


def reached(cells: list[str]) -> set[str]:
    """The reproq modules ``cells`` reach: those they import (:func:`imported`) and what these import."""
    return imports.reached(imports.package_graph(), sorted(imported(cells)))


def data_files(modules: set[str]) -> list[Path]:
    """The package's data files (not Python) whose names the source of one of ``modules`` holds."""
    files = imports.module_files()
    data = [p for p in sorted(imports.PACKAGE.rglob("*")) if p.is_file() and p.suffix in (".tsv", ".csv")]
    texts = [files[m].read_text() for m in modules if m in files]
    return [p for p in data if any(p.name in text for text in texts)]


def datasets(modules: set[str]) -> list[str]:
    """The registered datasets whose names the code of one of ``modules`` holds as a string (``"trecqa"``,
    ``DATASET = "semeval2016"``), the registry itself aside (it names them all)."""
    from reproq.data.registry import DATASETS

    files = imports.module_files()
    trees = [ast.parse(files[m].read_text()) for m in sorted(modules - {REGISTRY}) if m in files]
    strings = {node.value for tree in trees for node in ast.walk(tree)
               if isinstance(node, ast.Constant) and isinstance(node.value, str)}
    return [d for d in DATASETS if d in strings]


def _hash(value) -> str:
    return hashlib.sha256(value if isinstance(value, bytes) else json.dumps(value, sort_keys=True, default=str)
                          .encode()).hexdigest()[:16]


def parts(notebook: Path, parameters: dict, threads: int) -> dict[str, str]:
    """The parts of ``notebook``'s cache key (module docstring), each by its hash."""
    from reproq.data import sources

    source = notebook_json.without_readings(notebook_json.read(notebook))
    modules = reached(code_cells(source))
    files = imports.module_files()
    out = {"cells": _hash([(c["cell_type"], "".join(c["source"])) for c in source["cells"]]),
           "parameters": _hash(parameters), "threads": str(threads)}
    out |= {f"code {m}": _hash(imports.code_of(files[m])) for m in sorted(modules) if m in files}
    cpp = [files[m].with_suffix(".cpp") for m in sorted(modules) if m in files]
    out |= {f"code {p.relative_to(imports.PACKAGE)}": _hash(p.read_bytes())
            for p in [*cpp, *data_files(modules)] if p.is_file()}
    out |= {f"data {d}": _hash(sources.status([d])) for d in datasets(modules)}
    return out


def digest(parts_: dict[str, str]) -> str:
    """One hash of :func:`parts`."""
    return _hash(parts_)


def why(before: dict[str, str] | None, after: dict[str, str]) -> str:
    """In one line, why a notebook whose last run had the key parts ``before`` runs again with ``after``.

    >>> why({"cells": "a", "threads": "1", "code reproq.metrics": "b"}, {"cells": "a", "threads": "2",
    ...      "code reproq.metrics": "c", "data trecqa": "d"})
    'the thread count changed (1 -> 2); reproq.metrics changed; it now reads dataset trecqa'
    """
    if not before:
        return "no finished run of it is recorded here"
    said = []
    for key in sorted(set(before) | set(after), key=lambda k: (k.split(" ")[0] != "threads", k)):
        if before.get(key) == after.get(key):
            continue
        kind, _, name = key.partition(" ")
        if kind == "threads":
            said.append(f"the thread count changed ({before.get(key)} -> {after.get(key)})")
        elif not name:
            said.append(f"its {'code cells' if kind == 'cells' else kind} changed")
        elif key not in before or key not in after:
            verb = ("now reads" if key in after else "no longer reads") if kind == "data" else \
                ("now reaches" if key in after else "no longer reaches")
            said.append(f"it {verb} {'dataset ' if kind == 'data' else ''}{name}")
        else:
            said.append(f"dataset {name} changed (its files' state)" if kind == "data" else f"{name} changed")
    if not said:
        return "its inputs are unchanged, but an output it recorded is missing or unreadable"
    return "; ".join(said[:3] + ([f"and {len(said) - 3} more"] if len(said) > 3 else []))
