"""The ACP column of the matrix: examples/agents/' print scenarios against each real agent CLI over its ACP server
(``autocue run --agent NAME --via acp``): the runner is the agent's ACP client (``autocue.runner.acp_client``).

A test runs when the CLI and its ACP server are installed (``$AUTOCUE_AGENTS_DIR/bin`` or ``PATH``; ``autocue
agents install NAME`` installs both, pinned) and is skipped otherwise, with the reason naming what to install.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from doc_blocks import ROOT

from autocue.runner import run_scenarios
from autocue.runner.agents import BUILTIN, find_binary

EXAMPLES = ROOT / "examples" / "agents"
SCENARIOS = ["create_file.yaml", "shell_answer.yaml"]
"""The issue's "write hello" and "two-turn shell"."""
AGENTS = ["claude", "codex", "opencode", "pi", "gemini"]


def need(agent: str) -> None:
    p = BUILTIN[agent]
    if find_binary(p) is None:
        pytest.skip(f"{p.binary} ({p.installer} {p.package}) is not installed: run `autocue agents install {agent}`")
    assert p.acp is not None
    if find_binary(p, acp=True) is None:
        pytest.skip(f"{agent}'s ACP server {p.acp.binary} (npm {p.acp.package}@{p.acp.version}) is not installed in "
                    f"$AUTOCUE_AGENTS_DIR/bin or on PATH: run `autocue agents install {agent}`")


@pytest.mark.slow
@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("agent", AGENTS)
def test_over_acp(agent: str, scenario: str, tmp_path: Path) -> None:
    need(agent)
    copy = tmp_path / scenario
    shutil.copy(EXAMPLES / scenario, copy)
    [r] = run_scenarios(copy, agent=agent, via="acp", out=tmp_path / "runs", timeout=120, ci=False).scenarios
    lines = [f.line() for f in r.failures] + r.diagnostics + ["streamed text:", r.last_screen]
    assert r.passed, f"{agent} {scenario} over ACP:\n" + "\n".join(lines)
    entries = [json.loads(x) for x in (Path(r.out_dir) / "acp.jsonl").read_text().splitlines()]
    msgs = [e["msg"] for e in entries if "msg" in e]
    updates = [m["params"]["update"] for m in msgs if m.get("method") == "session/update"]
    calls = [u for u in updates if u.get("sessionUpdate") in ("tool_call", "tool_call_update")]
    assert calls, f"{agent} reported no tool call over ACP"  # the scripted writeFile / runCmd, seen as ACP events
    results = [m["result"] for m in msgs if isinstance(m.get("result"), dict)]
    stops = [res["stopReason"] for res in results if "stopReason" in res]
    assert stops == ["end_turn"]
