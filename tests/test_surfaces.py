"""The surface table of docs/mock-server.md is generated from the wire modules and the tests' marks
(``scripts/surfaces.py``): it is current, every mark names a surface, every surface is routed, and
enough of them are judged by an official client."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("surfaces_script", ROOT / "scripts" / "surfaces.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def test_the_published_table_is_current_and_every_mark_and_path_is_real() -> None:
    s = _script()
    rows, problems = s.rows()
    problems += s.unrouted(rows)
    assert not problems, "\n".join(problems)
    page = (ROOT / "docs" / "mock-server.md").read_text()
    stale = "the surface table is stale: run python scripts/surfaces.py --write"
    assert s.page_with(s.table(rows), page) == page, stale


def test_a_mark_naming_no_surface_is_reported_with_its_place(tmp_path: Path) -> None:
    s = _script()
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text(
        'import pytest\n\n\n@pytest.mark.surface("POST /v9/nothing", client="openai")\ndef test_a():\n    pass\n'
        '\n\n@pytest.mark.surface("POST /v1/embeddings")\ndef test_b():\n    pass\n')
    _, problems = s.rows(tmp_path / "tests")
    assert problems[0].startswith("tests/test_x.py:4: pytest.mark.surface('POST /v9/nothing') names no surface")
    assert problems[1] == ("tests/test_x.py:9: pytest.mark.surface('POST /v1/embeddings') needs "
                           "client='<official client>'")


def test_a_surface_no_route_answers_is_reported() -> None:
    s = _script()
    from autocue.mockllm.wire.api import Surface
    from autocue.mockllm.wire.registry import wire_api

    row = s.Row(wire_api("chat"), Surface("POST", "/v1/nowhere"))
    assert s.unrouted([row]) == ["chat: POST /v1/nowhere is answered by no route of the mock server"]


def test_at_least_twelve_surfaces_are_judged() -> None:
    rows, _ = _script().rows()
    assert sum(1 for r in rows if r.judges) >= 12
