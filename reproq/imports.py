"""reproq's own import graph, read from its source (``ast``, nothing imported): which of its modules each module
imports, at its top or inside a function, and what a set of modules reaches through it.

A run's checkpoint is bound to the code its numbers depend on (:class:`reproq.train.checkpoint.Code`): the modules
its training routine reaches. ``tests/test_imports.py`` checks the same graph for cycles.

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


def module_name(path: Path, root: Path) -> str:
    """``root/models/rcnn.py`` -> ``reproq.models.rcnn`` (``root`` is the package's folder)."""
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def module_files(root: Path = PACKAGE) -> dict[str, Path]:
    """Every module of the package at ``root`` -> its file."""
    return {module_name(p, root): p for p in sorted(root.rglob("*.py"))}


def import_graph(root: Path = PACKAGE) -> dict[str, set[str]]:
    """Every module of the package at ``root`` -> the package's modules it imports (anywhere in its file; ``from
    package import name`` counts as the submodule when ``name`` is one, else as the package)."""
    files = module_files(root)

    def known(name: str) -> str:
        while name not in files and "." in name:
            name = name.rsplit(".", 1)[0]
        return name

    graph = {}
    for module, path in files.items():
        package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
        targets = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets |= {known(a.name) for a in node.names if a.name.split(".")[0] == root.name}
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1] + [base]).strip(".")
                if base.split(".")[0] == root.name:
                    targets |= {known(f"{base}.{a.name}") if f"{base}.{a.name}" in files else known(base)
                                for a in node.names}
        graph[module] = targets - {module}
    return graph


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
