"""docs/subagents.md and docs/ttsr.md: their examples run and the tests they define pass."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from doc_blocks import ROOT, code_blocks, run_block

SUBAGENTS = ROOT / "docs" / "subagents.md"
TTSR = ROOT / "docs" / "ttsr.md"


@pytest.mark.parametrize(("page", "line", "code"), [(p, *b) for p in (SUBAGENTS, TTSR) for b in code_blocks(p)],
                         ids=lambda v: v.name if isinstance(v, Path) else str(v)[:30])
def test_python_examples_run_and_their_tests_pass(page: Path, line: int, code: str) -> None:
    ns = run_block(page, line, code, f"doc_{page.stem}_{line}")
    for name, fn in list(ns.items()):
        if name.startswith("test_") and callable(fn):
            fn()


def test_each_page_has_a_harness_example() -> None:
    assert any("subagent(" in c and "def test_" in c for _, c in code_blocks(SUBAGENTS))
    assert any("ttsr_rules=" in c and "def test_" in c for _, c in code_blocks(TTSR))


def test_the_task_call_settings_and_agent_file_examples_are_valid(tmp_path: Path) -> None:
    from autocue.session.subagent_types import AgentTypes, load_agent_type
    from autocue.session.subagents import SubagentConfig, normalize_task_args

    call, settings = (json.loads(c) for _, c in code_blocks(SUBAGENTS, "json"))
    p = normalize_task_args(call, AgentTypes())
    assert [t.id for t in p.tasks] == ["api", "db"] and p.schema is not None
    assert SubagentConfig.parse(settings["task"], "docs").mode == "process"
    [(_, md)] = code_blocks(SUBAGENTS, "markdown")
    (tmp_path / "security.md").write_text(md)
    t = load_agent_type(tmp_path / "security.md")
    assert (t.name, t.tools, t.model) == ("security", ("read", "grep"), "anthropic/claude-*")
