"""No import circle inside a package of ``src/autocue``.

``tests/test_architecture.py`` checks that imports between packages point down the layers; it
does not see a loop between two modules of one package (``session/agent_session.py`` importing
``compaction.py``, which imports ``agent_session.py`` back). This test draws the module graph of
``src/autocue`` with ``ast``: every import counts, at module level, inside functions and under
``TYPE_CHECKING`` (the same rule as the layer test; a type-only import still ties the two files
together for a reader). ``from autocue.session import manager`` is an edge to the module
``session/manager.py``; ``from autocue.session import Settings`` one to the package face
``session/__init__.py``. A package's face importing its own modules is not a circle unless one
of them imports the face back. Any strongly connected group of modules of one top-level package
fails, named by one of its circles.
"""

from __future__ import annotations

import ast
import shutil
from collections.abc import Iterable
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "autocue"


def module_name(path: Path, src: Path) -> str:
    """``src/autocue/session/manager.py`` -> ``autocue.session.manager``; a package's
    ``__init__.py`` is the package itself."""
    parts = list(path.relative_to(src.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imported(node: ast.Import | ast.ImportFrom, here: str, is_package: bool, modules: set[str]) -> list[str]:
    """The modules of ``src`` that one import statement names."""
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        base = node.module or ""
        if node.level:
            anchor = here.split(".") if is_package else here.split(".")[:-1]
            anchor = anchor[: len(anchor) - (node.level - 1)]
            base = ".".join([*anchor, *([node.module] if node.module else [])])
        # ``from pkg import name``: the submodule when ``name`` is one, else the package itself
        names = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
    out = []
    for name in names:
        while name and name not in modules:  # ``import autocue.session.manager.x`` is not a thing; trim
            name = name.rpartition(".")[0]
        if name:
            out.append(name)
    return out


def import_graph(src: Path) -> dict[str, set[str]]:
    """``{module: modules it imports}`` over every ``.py`` file of ``src`` (every import counts)."""
    files = {module_name(p, src): p for p in sorted(src.rglob("*.py"))}
    modules = set(files)
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        is_package = path.name == "__init__.py"
        edges: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                edges.update(m for m in _imported(node, name, is_package, modules) if m != name)
        graph[name] = edges
    return graph


def packages(src: Path) -> dict[str, str]:
    """``{module: its top-level package}`` (``autocue.runner.agents.user`` -> ``runner``); the root
    modules (``autocue``, ``autocue.errors``) make one group, ``""``."""
    out = {}
    for p in src.rglob("*.py"):
        parts = p.relative_to(src).parts
        out[module_name(p, src)] = parts[0] if len(parts) > 1 else ""
    return out


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components with more than one module, each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


def shortest_cycle(graph: dict[str, set[str]], start: str, within: Iterable[str]) -> list[str]:
    """The shortest circle from ``start`` back to it inside ``within`` (breadth first)."""
    allowed = set(within)
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(graph[v] & allowed):
                if w == start:
                    path = [v]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return [start, *reversed(path[:-1]), start] if v != start else [start, start]
                if w not in came_from:
                    came_from[w] = v
                    nxt.append(w)
        frontier = nxt
    raise AssertionError(f"{start} is on no circle")  # a strongly connected group always has one


def cycles(src: Path) -> list[str]:
    """One line per circle inside a package: ``package: a -> b -> a``, and the modules the
    circles join when there are more than one circle's."""
    graph = import_graph(src)
    package = packages(src)
    inside = {v: {w for w in ws if package[w] == package[v]} for v, ws in graph.items()}
    out = []
    for group in strongly_connected(inside):
        circle = [m.removeprefix("autocue.") for m in shortest_cycle(inside, group[0], group)]
        line = f"{package[group[0]] or 'autocue'}: {' -> '.join(circle)}"
        if len(group) > len(circle) - 1:
            line += f" (the circles join {len(group)} modules: {', '.join(m.removeprefix('autocue.') for m in group)})"
        out.append(line)
    return out


def test_no_import_circle_inside_a_package() -> None:
    found = cycles(SRC)
    assert found == [], "import circles inside a package (cut one import of each):\n  " + "\n  ".join(found)


def _plant(tmp_path: Path, **files: str) -> Path:
    """A copy of ``src/autocue`` with ``text`` put at the top of each ``file`` (``loop__topics``:
    ``loop/topics.py``)."""
    src = tmp_path / "autocue"
    shutil.copytree(SRC, src, ignore=shutil.ignore_patterns("__pycache__"))
    for file, text in files.items():
        target = src / (file.replace("__", "/") + ".py")
        target.write_text(text + target.read_text())
    return src


def _new(found: list[str]) -> list[str]:
    """The circles of a planted copy less those of the real tree (the first test reports those)."""
    real = set(cycles(SRC))
    return [c for c in found if c not in real]


def test_a_type_only_import_back_is_a_circle(tmp_path: Path) -> None:
    src = _plant(tmp_path, loop__topics="from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                        "    from autocue.loop.bus import HatBus\n")
    assert _new(cycles(src)) == ["loop: loop.bus -> loop.topics -> loop.bus"]


def test_an_import_inside_a_function_and_a_relative_one_count(tmp_path: Path) -> None:
    src = _plant(tmp_path, loop__topics="def f():\n    from . import bus\n")
    assert _new(cycles(src)) == ["loop: loop.bus -> loop.topics -> loop.bus"]


def test_a_longer_circle_is_named_in_order(tmp_path: Path) -> None:
    src = _plant(tmp_path, loop__topics="import autocue.loop.paths\n", loop__paths="from autocue.loop import bus\n")
    assert _new(cycles(src)) == ["loop: loop.bus -> loop.topics -> loop.paths -> loop.bus"]


def test_the_face_importing_its_modules_is_no_circle_until_one_imports_it_back(tmp_path: Path) -> None:
    assert "autocue.loop.topics" in import_graph(SRC)["autocue.loop"], "the face of loop imports topic_matches"
    src = _plant(tmp_path, loop__topics="from autocue.loop import EventLoop\n")
    found = _new(cycles(src))
    assert len(found) == 1 and found[0].startswith("loop: loop -> loop.topics -> loop"), found


def test_a_circle_across_packages_is_left_to_the_layer_test(tmp_path: Path) -> None:
    src = _plant(tmp_path, errors="def f():\n    from autocue.loop import topics\n")
    assert "autocue.loop.topics" in import_graph(src)["autocue.errors"]
    assert _new(cycles(src)) == []
