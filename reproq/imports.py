"""reproq's own import graph, read from its source (``ast``, nothing imported): which of its modules each module
imports, at its top or inside a function, and what a set of modules reaches through it; and what a module's code is,
for a cache: its syntax tree without docstrings or comments (:func:`code_of`).

Both caches are bound to the code through this graph: a run's checkpoint to the modules its training routine reaches
(:class:`reproq.train.checkpoint.Code`), a notebook's run to the modules its cells import and what they reach
(:mod:`reproq.dependencies`). A module that asks :mod:`reproq.papers` for the papers it discovers (:data:`DISCOVERY`:
``from reproq.papers import PAPERS``) reaches every paper module. ``tests/test_imports.py`` checks the same graph for
cycles.

>>> graph = {"p": {"p.a"}, "p.a": {"p.b", "p.c"}, "p.b": set(), "p.c": {"p.d"}, "p.d": set()}
>>> sorted(reached(graph, ["p.a"], not_followed={"p.c"}))
['p', 'p.a', 'p.b']
>>> sorted(reached(graph, ["p.a", "p.c"], not_followed={"p.c", "p.d"}))
['p', 'p.a', 'p.b', 'p.c', 'p.d']
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Collection, Iterable
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent  # reproq/
# what reproq.papers discovers by importing every module of the package (its module __getattr__): importing one of
# these names reaches them all
DISCOVERY = ("reproq.papers", frozenset({"MODULES", "PAPERS", "SECTIONS", "READINGS", "FINDINGS"}))


def module_name(path: Path, root: Path) -> str:
    """``root/models/rcnn.py`` -> ``reproq.models.rcnn`` (``root`` is the package's folder)."""
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def module_files(root: Path = PACKAGE) -> dict[str, Path]:
    """Every module of the package at ``root`` -> its file."""
    return {module_name(p, root): p for p in sorted(root.rglob("*.py"))}


def import_graph(root: Path = PACKAGE) -> dict[str, set[str]]:
    """Every module of the package at ``root`` -> the package's modules it imports (anywhere in its file:
    :func:`imported_by`)."""
    files = module_files(root)
    graph = {}
    for module, path in files.items():
        package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
        graph[module] = imported_by(ast.parse(path.read_text(), str(path)), files, package) - {module}
    return graph


def imported_by(tree: ast.AST, files: dict[str, Path], package: str = "") -> set[str]:
    """The modules of ``files`` (:func:`module_files`) that the code ``tree`` imports anywhere in it (``package``: the
    package its relative imports are relative to). ``from package import name`` counts as the submodule when ``name``
    is one, else as the package; a name of :data:`DISCOVERY` as every module of that package."""
    root = next(iter(files)).split(".")[0] if files else "reproq"

    def known(name: str) -> str:
        while name not in files and "." in name:
            name = name.rsplit(".", 1)[0]
        return name

    targets: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets |= {known(a.name) for a in node.names if a.name.split(".")[0] == root}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1] + [base]).strip(".")
            if base.split(".")[0] == root:
                targets |= {known(f"{base}.{a.name}") if f"{base}.{a.name}" in files else known(base)
                            for a in node.names}
            if base == DISCOVERY[0] and any(a.name in DISCOVERY[1] for a in node.names):
                targets |= {m for m in files if m.startswith(f"{base}.")}
    return targets


def reached(graph: dict[str, set[str]], entries: Iterable[str], *, not_followed: Collection[str] = ()) -> set[str]:
    """``entries`` and the modules they import, directly or through others, with the packages that hold them
    (importing ``a.b.c`` runs ``a`` and ``a.b``); an import of a module of ``not_followed`` is followed only from
    another such module (one built on another: the CTRN on the QRNN), so that one is reached only as an entry or
    from one."""
    entries = list(entries)
    seen, todo = set(), list(entries)
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        parts = module.split(".")
        todo += [".".join(parts[:i]) for i in range(1, len(parts))]
        todo += [m for m in graph.get(module, ()) if m not in not_followed or module in not_followed]
    return seen


@functools.cache
def package_graph() -> dict[str, set[str]]:
    """:func:`import_graph` of reproq itself, read once per process."""
    return import_graph(PACKAGE)


def code_of(path: Path) -> bytes:
    """What ``path``'s code is, for a cache key: a Python file's syntax tree (:func:`ast.dump`) with every docstring
    removed (comments are not in the tree), so that a changed word of prose or layout moves no key; any other file
    (the RCNN kernel's C++ source, package data) as its bytes. Read again whenever the file's size or time changes."""
    stat = path.stat()
    return _code_of(path, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=1024)
def _code_of(path: Path, mtime_ns: int, size: int) -> bytes:
    if path.suffix != ".py":
        return path.read_bytes()
    tree = ast.parse(path.read_text(), str(path))
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]
    return ast.dump(tree).encode()
