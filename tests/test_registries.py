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
