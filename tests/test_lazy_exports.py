"""Packages whose ``__init__`` exports names lazily (``autocue.lazy``) export what they say.

For each one: the ``lazy_exports`` table and the ``if TYPE_CHECKING:`` imports (what type
checkers see) name the same modules and names, every name of ``__all__`` is in the table or
imported eagerly, no lazy name is also a submodule of the package (importing the submodule
would bind the module to that name), and in a fresh interpreter importing the package imports
none of the table's modules while every name of ``__all__`` resolves to its module's object.
"""

from __future__ import annotations

import ast
import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "autocue"
LAZY = sorted(p for p in SRC.rglob("__init__.py") if "lazy_exports(" in p.read_text(encoding="utf-8"))


def _package(init: Path) -> str:
    return ".".join(init.parent.relative_to(SRC.parent).parts)


def _tables(init: Path) -> tuple[dict[str, set[str]], dict[str, set[str]], set[str], list[str]]:
    """(lazy table, TYPE_CHECKING imports, eager names, __all__) of an ``__init__``."""
    tree = ast.parse(init.read_text(encoding="utf-8"))
    lazy: dict[str, set[str]] = {}
    checking: dict[str, set[str]] = {}
    eager: set[str] = set()
    names: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for imp in node.body:
                assert isinstance(imp, ast.ImportFrom) and imp.module
                checking.setdefault(imp.module, set()).update(a.name for a in imp.names)
        elif isinstance(node, ast.ImportFrom):
            eager.update(a.asname or a.name for a in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            eager.add(node.name)
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            call = node.value
            if isinstance(call.func, ast.Name) and call.func.id == "lazy_exports":
                table = call.args[1]
                assert isinstance(table, ast.Dict)
                for k, v in zip(table.keys, table.values, strict=True):
                    assert isinstance(k, ast.Constant) and isinstance(v, ast.List)
                    lazy[k.value] = {e.value for e in v.elts if isinstance(e, ast.Constant)}
        elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            names = list(ast.literal_eval(node.value))
    return lazy, checking, eager, names


def test_the_lazy_packages_are_found() -> None:
    assert {_package(p) for p in LAZY} >= {"autocue.agent", "autocue.llm", "autocue.tools", "autocue.runner"}


@pytest.mark.parametrize("init", LAZY, ids=_package)
def test_the_table_matches_the_static_imports_and_all(init: Path) -> None:
    lazy, checking, eager, names = _tables(init)
    assert lazy, f"{init}: no lazy_exports table"
    for module, lazy_names in lazy.items():
        assert lazy_names <= checking.get(module, set()), f"{module}: not imported under TYPE_CHECKING"
    exported = set().union(*lazy.values())
    for module, static_names in checking.items():
        missing = (static_names & set(names)) - lazy.get(module, set())
        assert not missing, f"{module}: {sorted(missing)} exported but not in the lazy_exports table"
    assert set(names) <= exported | eager, sorted(set(names) - exported - eager)
    submodules = {m.name for m in pkgutil.iter_modules([str(init.parent)])}
    assert not exported & submodules, f"lazy names that are also submodules: {sorted(exported & submodules)}"


@pytest.mark.parametrize("init", LAZY, ids=_package)
def test_importing_the_package_imports_no_table_module_and_every_name_resolves(init: Path) -> None:
    package = _package(init)
    lazy, _, _, names = _tables(init)
    code = f"""
import importlib, json, sys
pkg = importlib.import_module({package!r})
loaded = sorted(m for m in {sorted(lazy)!r} if m in sys.modules)
wrong = [n for m, ns in {json.dumps({m: sorted(n) for m, n in lazy.items()})}.items() for n in ns
         if getattr(pkg, n) is not getattr(importlib.import_module(m), n)]
missing = [n for n in {names!r} if not hasattr(pkg, n)]
print(json.dumps([loaded, wrong, missing, set({names!r}) <= set(dir(pkg))]))
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    loaded, wrong, missing, in_dir = json.loads(proc.stdout)
    assert (loaded, wrong, missing, in_dir) == ([], [], [], True)


def test_a_lazy_name_is_resolved_once() -> None:
    """The first look-up binds the name in the package, so later ones are plain attribute hits
    that never reach ``__getattr__`` (a hot loop may look a lazy name up per step)."""
    code = """
import json, autocue.script as pkg
calls = []
inner = pkg.__getattr__
pkg.__getattr__ = lambda name: calls.append(name) or inner(name)
first = pkg.scripted_model
again = [pkg.scripted_model for _ in range(3)]
print(json.dumps([calls, "scripted_model" in vars(pkg), all(a is first for a in again)]))
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == [["scripted_model"], True, True]
