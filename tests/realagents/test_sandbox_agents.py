"""Every agent profile inside ``--sandbox bwrap``: examples/agents scenarios in print mode and in the TUI.

The CLI runs with a read-only root, its private HOME and workspace writable, and a private network
whose only reachable service is the run's mock server (forwarded to 127.0.0.1:PORT inside). What a
CLI tries to reach besides it (update checks, telemetry, plug-in downloads) fails at once and is in
the result's ``egress``. Codex's own bubblewrap cannot nest in autocue's: its profile turns it off
under a sandbox (``in_sandbox``). A test skips when the CLI is not installed or bwrap cannot run.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from doc_blocks import ROOT
from sandbox_helpers import bwrap_or_skip

from autocue.runner import run_scenarios
from autocue.runner.agents import BUILTIN, find_binary
from autocue.runner.report import ScenarioResult

EXAMPLES = ROOT / "examples" / "agents"
SCENARIOS = ["create_file.yaml", "shell_answer.yaml", "tui_two_turns.yaml"]
AGENTS = ["claude", "codex", "opencode", "pi", "gemini", "aider", "autocue", "mock"]
NOT_APPLICABLE = {("aider", "shell_answer.yaml"): "aider makes no tool calls: it cannot run a shell command"}


def run_in_bwrap(agent: str, scenario: str, tmp_path: Path) -> ScenarioResult:
    copy = tmp_path / "scenario" / scenario  # goldens of this first run are written beside the copy
    copy.parent.mkdir()
    shutil.copy(EXAMPLES / scenario, copy)
    report = run_scenarios(copy, agent=agent, out=tmp_path / "runs", timeout=110, ci=False, sandbox="bwrap")
    [r] = report.scenarios
    return r


@pytest.mark.slow
@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("agent", AGENTS)
def test_agent_in_bwrap(agent: str, scenario: str, tmp_path: Path) -> None:
    if (agent, scenario) in NOT_APPLICABLE:
        pytest.skip(NOT_APPLICABLE[agent, scenario])
    bwrap_or_skip()
    if agent in BUILTIN and find_binary(BUILTIN[agent]) is None:
        pytest.skip(f"{BUILTIN[agent].binary} is not installed: `autocue agents install {agent}`")
    r = run_in_bwrap(agent, scenario, tmp_path)
    lines = [f.line() for f in r.failures] + r.diagnostics + ["last screen:", r.last_screen]
    assert r.passed, f"{agent} {scenario} in bwrap:\n" + "\n".join(lines)
    assert r.sandbox == "bwrap"
    assert not [e for e in r.egress if e["destination"].startswith("127.")], r.egress  # the mock server is not egress
