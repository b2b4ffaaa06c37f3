"""reproq's modules import each other without a cycle: a module's imports, at its top and inside its functions, name
only modules that do not import it back, directly or through others."""

from __future__ import annotations

import ast
from pathlib import Path

from reproq import paths


def module_name(path: Path, root: Path) -> str:
    """``root/models/rcnn.py`` -> ``reproq.models.rcnn`` (``root`` is the package's folder)."""
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(root: Path) -> dict[str, set[str]]:
    """Every module of the package at ``root`` -> the package's modules it imports (anywhere in its file; ``from
    package import name`` counts as the submodule when ``name`` is one, else as the package)."""
    files = {module_name(p, root): p for p in sorted(root.rglob("*.py"))}

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


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def parts(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The graph between reproq's parts: its subpackages and top-level modules (``reproq.data``, ``reproq.paths``)."""
    def part(module: str) -> str:
        return ".".join(module.split(".")[:2])

    return {part(m): {part(t) for ts in (graph[n] for n in graph if part(n) == part(m)) for t in ts} - {part(m)}
            for m in graph}


def test_no_import_cycle_in_reproq():
    assert cycles(import_graph(paths.ROOT / "reproq")) == []


def test_reproqs_parts_depend_on_each_other_one_way():
    """data reads, the synthetic stand-in writes in its formats, models and baselines build on data, the tasks on
    those, the papers and the report on the tasks: no part imports one that imports it back."""
    assert cycles(parts(import_graph(paths.ROOT / "reproq"))) == []


def test_the_walk_finds_a_cycle_through_an_import_inside_a_function(tmp_path):
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "a.py").write_text("from pkg.sub import b\n")
    (package / "sub" / "b.py").write_text("def f():\n    from pkg import c  # hidden in a function\n")
    (package / "c.py").write_text("from . import a\n")
    assert cycles(import_graph(package)) == [["pkg.a", "pkg.c", "pkg.sub.b"]]
    (package / "sub" / "b.py").write_text("def f():\n    return 1\n")
    assert cycles(import_graph(package)) == []
