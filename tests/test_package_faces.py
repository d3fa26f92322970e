"""Each package's face: an ``__all__`` whose every name a type checker can see with its real type.

A name only ``__getattr__`` provides is ``object`` to mypy; a lazily loaded name is also imported
under ``if TYPE_CHECKING:``. A submodule named in ``__all__`` is a real module to mypy too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "autocue"
NO_FACE = {"cli": "the command line is its face (autocue.cli.main:main)"}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def bound_names(tree: ast.Module) -> set[str]:
    """Names bound at module level, or under ``if TYPE_CHECKING:``."""
    out: set[str] = set()
    body = list(tree.body)
    for node in list(body):
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            body.extend(node.body)
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            out.update(t.id for t in targets if isinstance(t, ast.Name))
    return out


def declared_all(tree: ast.Module) -> list[str] | None:
    """The names ``__all__`` lists (literal strings; a ``*spread`` of another list is not followed)."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            elts = node.value.elts if isinstance(node.value, (ast.List, ast.Tuple)) else []
            return [e.value for e in elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return None


def face_problems(init: Path) -> list[str]:
    tree = ast.parse(init.read_text(encoding="utf-8"))
    names = declared_all(tree)
    if names is None:
        return [f"{init}: no __all__"]
    bound = bound_names(tree)
    here = init.parent
    return [f"{init}: {n!r} is in __all__ but only __getattr__ gives it (mypy sees object)" for n in names
            if n not in bound and not (here / f"{n}.py").is_file() and not (here / n / "__init__.py").is_file()]


PACKAGES = sorted(p for p in SRC.iterdir() if (p / "__init__.py").is_file() and p.name not in NO_FACE)


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.name)
def test_the_face_is_typed(package: Path) -> None:
    assert face_problems(package / "__init__.py") == []


def test_testing_exports_the_scenario_runner_and_the_sandbox_check() -> None:
    import autocue.testing as testing
    from autocue.sandbox import SandboxResult, verify_sandbox_install
    from autocue.testing.scenario_runner import run_scenario

    assert {"run_scenario", "verify_sandbox_install", "SandboxResult"} <= set(testing.__all__)
    assert (testing.run_scenario, testing.verify_sandbox_install, testing.SandboxResult) == (
        run_scenario, verify_sandbox_install, SandboxResult)


def test_the_check_fails_on_a_name_only_getattr_gives(tmp_path: Path) -> None:
    init = tmp_path / "__init__.py"
    init.write_text('from x import a\n__all__ = ["a", "lazy"]\ndef __getattr__(name):\n    return 1\n')
    assert face_problems(init) == [f"{init}: 'lazy' is in __all__ but only __getattr__ gives it (mypy sees object)"]
    init.write_text("x = 1\n")
    assert face_problems(init) == [f"{init}: no __all__"]
