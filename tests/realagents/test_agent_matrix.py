"""The examples/agents/ matrix: every scenario against every real agent CLI through its launch profile
(``autocue run --agent NAME``), in print mode and, where the CLI has one, in its TUI.

A test runs when the CLI is installed (``$AUTOCUE_AGENTS_DIR/bin`` or ``PATH``; ``bash
scripts/real-agents.sh`` or ``autocue agents install NAME`` installs the pinned versions) and is
skipped otherwise, with the reason naming the CLI and how to install it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from doc_blocks import ROOT

from autocue.runner import run_scenarios
from autocue.runner.agents import BUILTIN, find_binary

EXAMPLES = ROOT / "examples" / "agents"
PRINT = sorted(p.name for p in EXAMPLES.glob("*.yaml") if not p.name.startswith("tui_"))
TUI = sorted(p.name for p in EXAMPLES.glob("tui_*.yaml"))
AGENTS = ["claude", "codex", "opencode", "pi", "gemini", "aider"]
TUI_AGENTS = ["claude", "codex", "opencode", "pi", "gemini", "aider"]
NOT_APPLICABLE = {("aider", "shell_answer.yaml"): "aider makes no tool calls: it cannot run a shell command"}


def need(agent: str) -> None:
    if find_binary(BUILTIN[agent]) is None:
        p = BUILTIN[agent]
        pytest.skip(f"{p.binary} ({p.installer} {p.package}) is not installed in $AUTOCUE_AGENTS_DIR/bin or on "
                    f"PATH: run `autocue agents install {agent}` or `bash scripts/real-agents.sh`")


def check(agent: str, scenario: str, tmp_path: Path, timeout: float) -> None:
    report = run_scenarios(EXAMPLES / scenario, agent=agent, out=tmp_path / "runs", timeout=timeout)
    [r] = report.scenarios
    lines = [f.line() for f in r.failures] + r.diagnostics + ["last screen:", r.last_screen]
    assert r.passed, f"{agent} {scenario}:\n" + "\n".join(lines)
    assert not [s for s in r.side_requests if s["kind"] == "suspected"], r.side_requests


@pytest.mark.slow
@pytest.mark.parametrize("scenario", PRINT)
@pytest.mark.parametrize("agent", AGENTS)
def test_print_mode(agent: str, scenario: str, tmp_path: Path) -> None:
    if (agent, scenario) in NOT_APPLICABLE:
        pytest.skip(NOT_APPLICABLE[agent, scenario])
    need(agent)
    check(agent, scenario, tmp_path, 100)


@pytest.mark.slow
@pytest.mark.parametrize("scenario", TUI)
@pytest.mark.parametrize("agent", TUI_AGENTS)
def test_tui_mode(agent: str, scenario: str, tmp_path: Path) -> None:
    need(agent)
    check(agent, scenario, tmp_path, 110)


def test_every_cli_of_the_matrix_has_a_launch_profile_with_a_pinned_version() -> None:
    for name in AGENTS:
        p = BUILTIN[name]
        assert p.version and p.version in p.verified and p.package, name
    assert all(BUILTIN[a].tui_args is not None for a in TUI_AGENTS)
    assert PRINT == ["create_file.yaml", "edit_file.yaml", "rate_limit.yaml", "shell_answer.yaml"]
