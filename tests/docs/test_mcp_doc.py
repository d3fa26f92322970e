"""docs/mcp.md: its python examples run, and the tests they define pass (against real MCP servers)."""

from __future__ import annotations

import json

import pytest
from doc_blocks import ROOT, code_blocks, run_block

PAGE = ROOT / "docs" / "mcp.md"


def test_the_page_has_a_harness_example() -> None:
    assert any("create_test_session(mcp_servers=" in code for _, code in code_blocks(PAGE))


@pytest.mark.parametrize(("line", "code"), [b for b in code_blocks(PAGE) if "def test_" in b[1]])
def test_harness_example_runs(line: int, code: str) -> None:
    ns = run_block(PAGE, line, code, f"doc_mcp_{line}")
    tests = [fn for name, fn in ns.items() if name.startswith("test_") and callable(fn)]
    assert tests
    for fn in tests:
        fn()


def test_mcp_json_example_is_valid_config() -> None:
    from autocue.mcp import parse_config

    [(_, text)] = code_blocks(PAGE, "json")
    servers = parse_config(json.loads(text), "docs/mcp.md")
    assert {n: s.type for n, s in servers.items()} == {"files": "stdio", "docs": "http", "old": "sse"}
