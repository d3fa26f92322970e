"""docs/architecture.md's registries table is true: each registry exists and lists exactly the
variants on disk, a new variant takes the files the table names (the count says how many, and
each named file exists), and the toy that proves it is there."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

import autocue
from autocue.catalog import apis
from autocue.catalog.clis import CLIS
from autocue.mockllm.wire.api import WireApi
from autocue.scenario.events import KINDS

ROOT = Path(__file__).resolve().parents[1]
SRC = Path(autocue.__path__[0])
DOC = ROOT / "docs" / "architecture.md"
EXAMPLE = {"<api>": "chat", "<cli>": "claude"}
"""A variant that exists, standing in for a placeholder of the table."""


def _rows() -> dict[str, list[str]]:
    text = DOC.read_text()
    block = text.split("<!-- registries: tests/test_registries.py reads this table -->", 1)
    assert len(block) == 2, "docs/architecture.md lost its registries table"
    rows: dict[str, list[str]] = {}
    for line in block[1].strip().splitlines()[2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        rows[cells[0]] = cells
    return rows


def _paths(cell: str) -> list[str]:
    """The file paths a cell names (backticked, with a ``/`` and ending in ``.py``), in order, once each."""
    found = re.findall(r"`([\w<>/.]+\.py)`", cell)
    return list(dict.fromkeys(found))


ROWS = _rows()


def test_the_table_names_the_three_kinds_of_variant() -> None:
    assert list(ROWS) == ["wire API", "timeline event", "agent CLI"]


@pytest.mark.parametrize("variant", list(ROWS))
def test_a_new_variant_takes_the_files_the_table_counts(variant: str) -> None:
    _, registry, new, count, proof = ROWS[variant]
    files = _paths(new)
    assert len(files) == int(count), f"{variant}: the table says {count} files, and names {files}"
    for f in files + _paths(registry):
        for placeholder, example in EXAMPLE.items():
            f = f.replace(placeholder, example)
        assert (SRC / f).is_file(), f"{variant}: {f} (named in docs/architecture.md) is not in src/autocue"
    for f in _paths(proof):
        assert (ROOT / f).is_file(), f"{variant}: its toy {f} is missing"


def _modules_defining_api() -> set[str]:
    """The modules of ``mockllm/wire/`` that define a module-level ``API``."""
    out = set()
    for f in sorted((SRC / "mockllm" / "wire").glob("*.py")):
        tree = ast.parse(f.read_text())
        for node in tree.body:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] \
                if isinstance(node, ast.AnnAssign) else []
            if any(isinstance(t, ast.Name) and t.id == "API" for t in targets):
                out.add(f"autocue.mockllm.wire.{f.stem}")
    return out


def test_every_wire_module_is_registered_and_every_entry_has_its_module() -> None:
    assert {e.module for e in apis.APIS.values()} == _modules_defining_api()
    for entry in apis.APIS.values():
        api = importlib.import_module(entry.module).API
        assert isinstance(api, WireApi), entry.module
        assert entry.module == f"autocue.mockllm.wire.{entry.name}", "a wire module is named after its API"


def test_every_cli_module_is_registered_once() -> None:
    on_disk = sorted(f.stem for f in (SRC / "catalog" / "clis").glob("*.py") if f.stem != "__init__")
    entries = [importlib.import_module(f"autocue.catalog.clis.{m}").CLI for m in on_disk]
    assert sorted(map(id, entries)) == sorted(map(id, CLIS)), "each catalog/clis/<cli>.py is one line of CLIS"
    assert len({c.name for c in CLIS}) == len(CLIS)


def test_every_timeline_event_class_has_one_kind() -> None:
    classes = [k.cls for k in KINDS if k.cls is not None]
    assert len(classes) == len(set(classes))
    from typing import get_args

    from autocue.scenario.timeline import TimelineEvent

    assert set(get_args(TimelineEvent)) == set(classes)


def _api_literals() -> set[str]:
    """Every string that names a wire API: its name, its style, its aliases and its agent key."""
    out: set[str] = set()
    for e in apis.APIS.values():
        out.update((e.name, *e.names))
    return out


def _api_branches(source: str, literals: set[str]) -> list[tuple[int, str]]:
    """Comparisons (``==``, ``!=``, ``in``, ``match``/``case``) of an expression that reads an API or a
    style (a name or attribute spelled with ``api`` or ``style``) against a literal naming a wire API."""
    tree = ast.parse(source)
    found: list[tuple[int, str]] = []

    def reads_api(node: ast.AST) -> bool:
        text = ast.unparse(node).lower()
        return "api" in text or "style" in text

    def names(node: ast.AST) -> list[str]:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return [node.value]
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return [v for elt in node.elts for v in names(elt)]
        return []

    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            hits = [v for s in sides for v in names(s) if v in literals]
            if hits and any(reads_api(s) for s in sides if not names(s)):
                found.append((node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.Match) and reads_api(node.subject):
            for case in node.cases:
                for sub in ast.walk(case.pattern):
                    if isinstance(sub, ast.MatchValue) and any(v in literals for v in names(sub.value)):
                        text = f"match {ast.unparse(node.subject)}: case {ast.unparse(case.pattern)}"
                        found.append((case.pattern.lineno, text))
    return found


ALLOWED_TO_BRANCH = ("mockllm/wire/", "catalog/apis.py", "llm/")
"""Where a wire API's name may be compared: its own module, the names' registry, and the LLM client's
providers (``llm/providers/<api>.py``, their own registry of the client side)."""


def test_no_module_outside_wire_branches_on_an_api_name() -> None:
    literals = _api_literals()
    offenders = []
    for f in sorted(SRC.rglob("*.py")):
        rel = f.relative_to(SRC).as_posix()
        if rel.startswith(ALLOWED_TO_BRANCH):
            continue
        offenders += [f"src/autocue/{rel}:{line}: {text}" for line, text in _api_branches(f.read_text(), literals)]
    assert not offenders, "an API's knowledge belongs in its mockllm/wire/<api>.py:\n" + "\n".join(offenders)


@pytest.mark.parametrize("source", [
    "if incoming.api == 'anthropic':\n    pass\n",
    "x = style in ('openai', 'responses')\n",
    "match view.api:\n    case 'bedrock':\n        pass\n",
])
def test_the_branch_check_finds_a_branch_on_an_api_name(source: str) -> None:
    assert _api_branches(source, _api_literals())


def test_the_branch_check_leaves_other_comparisons_alone() -> None:
    assert not _api_branches("if cli.name == 'gemini' or kind == 'chat':\n    pass\n", _api_literals())
