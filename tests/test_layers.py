"""The packages form layers, and every import (at module level or inside a function) runs
downward: kernel (simcore) -> bots -> runtime (kernels assembled, results frames) ->
experiments (store, studies) -> reports -> playlab (public API, CLI).  Within a package no
two modules import each other at module level (no cycles)."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("simcore", "bots", "runtime", "experiments", "reports", "playlab")


def imports(path: Path, package: str) -> list[tuple[str, bool]]:
    """(imported module, at module level) for every import statement of ``path``."""
    tree = ast.parse(path.read_text())
    mod = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    top_level = {id(n) for n in tree.body}
    for node in tree.body:  # `if TYPE_CHECKING:` / try blocks at module level count as top level
        for sub in ast.walk(node):
            top_level.add(id(sub))
    functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    nested = {id(s) for f in functions for s in ast.walk(f) if s is not f}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = mod.split(".")
                if path.name != "__init__.py":
                    base = base[:-1]
                base = base[:len(base) - node.level + 1]
                names = [".".join(base + ([node.module] if node.module else []))]
            else:
                names = [node.module]
        else:
            continue
        for n in names:
            out.append((n, id(node) not in nested))
    return out


def modules():
    for pkg in LAYERS:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            yield pkg, path


def test_imports_run_downward_only():
    upward = []
    for pkg, path in modules():
        for name, _ in imports(path, pkg):
            top = name.split(".")[0]
            if top in LAYERS and LAYERS.index(top) > LAYERS.index(pkg):
                upward.append(f"{path.relative_to(ROOT)} imports {name}")
    assert not upward, "imports that run upward:\n" + "\n".join(upward)


def import_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for pkg, path in modules():
        mod = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        graph[mod] = {n for n, _ in imports(path, pkg) if n.split(".")[0] in LAYERS and n != mod}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in graph:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in list(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycles_between_modules():
    """Function-level imports count too: a cycle postponed into a function is still one."""
    found = cycles(import_graph())
    assert not found, "modules importing each other: " + "; ".join(" <-> ".join(c) for c in found)


def test_the_checks_find_what_they_look_for():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []
