"""The import rule of docs/architecture.md: imports point down the layers.

The layer table and the table of allowed same-layer imports are read from the page itself, so
the page and the rule cannot drift apart. Every import of ``src/autocue`` counts (module level,
inside functions, under ``TYPE_CHECKING``), relative ones resolved.
"""

from __future__ import annotations

import ast
import re
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "architecture.md"
SRC = ROOT / "src" / "autocue"


def _table_after(marker: str) -> list[list[str]]:
    """The rows (cells stripped of backticks) of the first markdown table after ``marker``."""
    text = PAGE.read_text()
    start = text.index(marker)
    rows: list[list[str]] = []
    for line in text[start:].splitlines()[1:]:
        if not line.startswith("|"):
            if rows:
                break
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if set("".join(cells)) <= set("-: "):
            continue
        rows.append(cells)
    return rows[1:]  # drop the header


def page_layers() -> dict[str, int]:
    """``{package: layer}``; the ``base`` layer sits below layer 0."""
    layers: dict[str, int] = {}
    for level, packages, _what in _table_after("<!-- layers:"):
        for name in re.findall(r"`([a-z_]+)`", packages):
            layers[name] = -1 if level == "base" else int(level)
    return layers


def page_allowed() -> dict[tuple[str, str], str]:
    """``{(importer, imported): reason}`` of the same-layer imports the page allows."""
    out: dict[tuple[str, str], str] = {}
    for importer, imported, why in _table_after("<!-- same-layer imports:"):
        out[(importer.strip("`"), imported.strip("`"))] = why
    return out


def page_reexports() -> dict[tuple[str, str], str]:
    """``{(package, higher package): reason}``: the face re-exports the page allows."""
    out: dict[tuple[str, str], str] = {}
    for importer, imported, why in _table_after("<!-- face re-exports:"):
        out[(importer.strip("`"), imported.strip("`"))] = why
    return out


def type_checking_lines(path: Path) -> set[int]:
    """Lines of the imports that sit in a module-level ``if TYPE_CHECKING:`` block."""
    out: set[int] = set()
    for node in ast.parse(path.read_text(), str(path)).body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            out |= {n.lineno for n in node.body if isinstance(n, (ast.Import, ast.ImportFrom))}
    return out


def _package_of(module: str) -> str | None:
    """``autocue.session.manager`` -> ``session``; the root package ``autocue`` -> None."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def imports_of(path: Path, src: Path) -> list[tuple[int, str]]:
    """``(line, absolute module)`` of every ``autocue`` import in ``path``."""
    package = list(path.relative_to(src.parent).parts[:-1])  # a relative import starts from here
    out: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            if module == "autocue":  # ``from autocue import x``: x may be a subpackage
                out += [(node.lineno, f"autocue.{a.name}") for a in node.names]
            else:
                out.append((node.lineno, module))
    return [(line, m) for line, m in out if m == "autocue" or m.startswith("autocue.")]


def violations(src: Path, layers: dict[str, int], allowed: dict[tuple[str, str], str],
               reexports: dict[tuple[str, str], str]) -> list[str]:
    """One line per import that breaks the rule, as ``file:line: what``.

    A face re-export (``reexports``) is allowed only in the package's own ``__init__.py`` and
    only under ``if TYPE_CHECKING:`` (the name itself loads on first use), so importing the
    lower package never imports the higher one."""
    out: list[str] = []
    for path in sorted(src.rglob("*.py")):
        rel = path.relative_to(src.parent)
        here = rel.parts[1].removesuffix(".py")  # a package, or a module of the root (``errors``)
        if here == "__init__":
            continue  # the package root: version and the AutocueError re-export
        if here not in layers:
            out.append(f"{rel}: package {here!r} has no layer in docs/architecture.md (add it to the layer table)")
            continue
        face = len(rel.parts) == 3 and rel.parts[2] == "__init__.py"
        checking = type_checking_lines(path) if face else set()
        for line, module in imports_of(path, src):
            there = _package_of(module)
            if there is None or there == here or there == "__init__":
                continue
            if there not in layers:
                continue  # a module of the root (``autocue.errors``) missing from the table is reported above
            if layers[there] < layers[here] or (here, there) in allowed:
                continue
            if line in checking and (here, there) in reexports:
                continue
            kind = "upward" if layers[there] > layers[here] else "same-layer"
            out.append(
                f"{rel}:{line}: {kind} import of {module} ({here} is layer {layers[here]}, "
                f"{there} is layer {layers[there]}); move the code down or list the exception in docs/architecture.md"
            )
    return out


def optional_autocue_imports(src: Path) -> list[str]:
    """``file:line`` of every ``import autocue...`` inside a ``try`` that catches ``ImportError``
    (or ``ModuleNotFoundError``): a real import error must not turn into a missing feature."""
    out: list[str] = []
    for path in sorted(src.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.Try):
                continue
            caught = {n.id for h in node.handlers if h.type is not None for n in ast.walk(h.type)
                      if isinstance(n, ast.Name)}
            if not caught & {"ImportError", "ModuleNotFoundError"}:
                continue
            for stmt in node.body:
                for sub in ast.walk(stmt):
                    names = [a.name for a in sub.names] if isinstance(sub, ast.Import) else (
                        [sub.module or ""] if isinstance(sub, ast.ImportFrom) and not sub.level else [])
                    if any(n == "autocue" or n.startswith("autocue.") for n in names) or (
                            isinstance(sub, ast.ImportFrom) and sub.level):
                        out.append(f"{path.relative_to(src.parent)}:{sub.lineno}")
    return out


def test_no_autocue_import_is_optional(tmp_path: Path) -> None:
    assert optional_autocue_imports(SRC) == []
    planted = tmp_path / "autocue" / "x.py"
    planted.parent.mkdir()
    planted.write_text("try:\n    from autocue.tools import create_builtin_tools\nexcept ImportError:\n    pass\n")
    assert optional_autocue_imports(tmp_path / "autocue") == ["autocue/x.py:2"]


def test_the_page_names_every_package_once() -> None:
    layers = page_layers()
    present = {p.name for p in SRC.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    present |= {p.stem for p in SRC.glob("*.py") if p.stem != "__init__"}
    assert present <= set(layers), f"packages without a layer: {sorted(present - set(layers))}"
    for importer, imported in page_allowed():
        assert layers[importer] == layers[imported], f"{importer} -> {imported} is not a same-layer pair"
    for importer, imported in page_reexports():
        assert layers[importer] < layers[imported], f"{importer} re-exports {imported}: not a higher package"


def test_src_imports_point_down_the_layers() -> None:
    assert violations(SRC, page_layers(), page_allowed(), page_reexports()) == []


def test_the_face_reexport_is_lazy() -> None:
    """``import autocue.testing`` does not import the sandbox check it re-exports."""
    import subprocess
    import sys

    code = "import sys, autocue.testing as t; print(sorted(m for m in sys.modules if m.startswith('autocue.sandbox')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


@pytest.mark.parametrize(
    ("planted", "expect"),
    [
        # a face re-export at run time, not under TYPE_CHECKING
        ("from autocue.sandbox import SandboxResult\n", "testing/__init__.py:1: upward import of autocue.sandbox"),
        # a pair the table does not list
        ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from autocue.runner import Runner\n",
         "testing/__init__.py:3: upward import of autocue.runner"),
    ],
)
def test_a_face_reexport_is_checked(tmp_path: Path, planted: str, expect: str) -> None:
    src = tmp_path / "autocue"
    shutil.copytree(SRC, src, ignore=shutil.ignore_patterns("__pycache__"))
    target = src / "testing" / "__init__.py"
    target.write_text(planted + target.read_text())
    found = violations(src, page_layers(), page_allowed(), page_reexports())
    assert len(found) == 1 and found[0].startswith(f"autocue/{expect}"), found


def test_a_face_reexport_outside_the_init_is_an_upward_import(tmp_path: Path) -> None:
    src = tmp_path / "autocue"
    shutil.copytree(SRC, src, ignore=shutil.ignore_patterns("__pycache__"))
    target = src / "testing" / "dsl.py"
    target.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from autocue.sandbox import Problem\n"
                      + target.read_text())
    found = violations(src, page_layers(), page_allowed(), page_reexports())
    assert len(found) == 1 and found[0].startswith("autocue/testing/dsl.py:3: upward import of autocue.sandbox"), found


def test_an_exception_is_one_way_only() -> None:
    allowed = page_allowed()
    assert ("session", "extensions") in allowed
    assert ("extensions", "session") not in allowed, "a two-way exception is a cycle"
    assert all((b, a) not in allowed for a, b in allowed)


@pytest.mark.parametrize(
    ("file", "planted", "expect"),
    [
        ("llm/types.py", "import autocue.cli.main\n", "llm/types.py:1: upward import of autocue.cli.main"),
        (
            "extensions/context.py",
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from autocue.session.agent_session import X\n",
            "extensions/context.py:3: same-layer import of autocue.session.agent_session",
        ),
        (
            "agent/loop.py",
            "def f():\n    from ..testing import dsl\n",
            "agent/loop.py:2: upward import of autocue.testing",
        ),
        ("script/model.py", "from autocue import scenario\n", "script/model.py:1: upward import of autocue.scenario"),
    ],
)
def test_the_check_fails_on_a_planted_import(tmp_path: Path, file: str, planted: str, expect: str) -> None:
    src = tmp_path / "autocue"
    shutil.copytree(SRC, src, ignore=shutil.ignore_patterns("__pycache__"))
    target = src / file
    target.write_text(planted + target.read_text())
    found = violations(src, page_layers(), page_allowed(), page_reexports())
    assert len(found) == 1 and found[0].startswith(f"autocue/{expect}"), found


def test_the_check_fails_on_a_package_without_a_layer(tmp_path: Path) -> None:
    src = tmp_path / "autocue"
    (src / "newpkg").mkdir(parents=True)
    (src / "newpkg" / "__init__.py").write_text("")
    found = violations(src, page_layers(), page_allowed(), page_reexports())
    assert found == ["autocue/newpkg/__init__.py: package 'newpkg' has no layer in docs/architecture.md "
                     "(add it to the layer table)"]


def test_a_broken_import_of_autocue_is_an_error_not_a_missing_feature() -> None:
    """``autocue.tools`` failing to import must fail loudly, not leave sessions without built-in tools."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "sys.modules['autocue.tools'] = None  # any import of it now raises ImportError\n"
        "try:\n"
        "    from autocue.session import AgentSession\n"
        "    from autocue.script import ScriptedProvider\n"
        "    s = AgentSession(provider=ScriptedProvider([]))\n"
        "    print('tools:', [t.name for t in s.get_all_tools()])\n"
        "except ImportError as e:\n"
        "    print('ImportError:', e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.startswith("ImportError:"), out.stdout + out.stderr
