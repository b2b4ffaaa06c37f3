"""reproq's modules import each other without a cycle: a module's imports, at its top and inside its functions, name
only modules that do not import it back, directly or through others; and a module that must be long says why."""

from __future__ import annotations

import re

from reproq import paths
from reproq.imports import import_graph


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


def test_a_module_over_300_lines_says_why_in_its_docstring():
    """STYLE.md 2: library modules aim under ~300 lines; a file that must be larger says why in its docstring."""
    import ast

    long = {path: ast.get_docstring(ast.parse(path.read_text())) or ""
            for path in sorted((paths.ROOT / "reproq").rglob("*.py")) if len(path.read_text().splitlines()) > 300}
    assert len(long) >= 10
    silent = [str(path.relative_to(paths.ROOT)) for path, doc in long.items()
              if not re.search(r"\b[Ll]onger than\b", doc)]
    assert not silent, f"modules over 300 lines that do not say why: {silent}"
