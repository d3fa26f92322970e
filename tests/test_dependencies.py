"""Every third-party package ``src/autocue`` imports is declared in pyproject.toml (a dependency or an extra)."""

from __future__ import annotations

import ast
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "autocue"
OPTIONAL = {"uv": "the sandbox check uses the uv binary this package ships when uv is not on PATH, if installed"}


def imported_top_modules(src: Path) -> dict[str, str]:
    """Top-level modules imported anywhere under ``src`` (absolute imports), with one place each."""
    out: dict[str, str] = {}
    for path in sorted(src.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for n in names:
                out.setdefault(n.split(".")[0], f"{path.relative_to(src.parent)}:{node.lineno}")
    return out


def declared(pyproject: Path) -> set[str]:
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    reqs = list(project["dependencies"])
    for extra, items in project.get("optional-dependencies", {}).items():
        if extra not in ("dev", "bench"):
            reqs.extend(items)
    return {canonicalize_name(Requirement(r).name) for r in reqs}


def undeclared(src: Path, pyproject: Path) -> list[str]:
    dists = packages_distributions()
    known = declared(pyproject)
    out = []
    for module, where in imported_top_modules(src).items():
        if module in sys.stdlib_module_names or module in ("autocue", "__future__") or module in OPTIONAL:
            continue
        owners = {canonicalize_name(d) for d in dists.get(module, [module])}
        if not owners & known:
            out.append(f"{where}: imports {module!r} ({', '.join(sorted(owners))}), not declared in pyproject.toml")
    return out


def test_every_imported_package_is_declared() -> None:
    # e.g. `packaging` (the sandbox check's requirement parsing) was used without being declared
    assert undeclared(SRC, ROOT / "pyproject.toml") == []


def test_the_check_finds_an_undeclared_import(tmp_path: Path) -> None:
    src = tmp_path / "autocue"
    src.mkdir()
    (src / "m.py").write_text("import jsonschema\nfrom packaging.version import Version\n")
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\ndependencies = ["jsonschema>=4"]\n')
    problems = undeclared(src, tmp_path / "pyproject.toml")
    assert len(problems) == 1 and "imports 'packaging'" in problems[0] and "m.py:2" in problems[0]
