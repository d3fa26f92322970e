"""``autocue export --atif`` of a real agent CLI's run: its requests as it sent them, its tools' results
as they came back, judged by Harbor's models (the agents: Claude Code over Anthropic Messages, Codex
over Responses, pi over Chat Completions)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from atif_judge import validate

from autocue.runner import run_scenarios
from autocue.runner.agents import BUILTIN, find_binary
from autocue.traces import export_atif, import_atif

CREATE = """\
name: create
initialPrompt: Create hi.txt
timeline:
  - llmResponse:
      - assistant: [[0, "Writing."]]
      - runCmd: {command: "echo hi > hi.txt"}
  - llmResponse:
      - assistant: [[0, "Done."]]
"""

# the agent's own name for the shell tool, and the API it speaks
AGENTS = {"claude": ("Bash", "anthropic"), "codex": ("exec_command", "responses"), "pi": ("bash", "chat")}


@pytest.mark.slow
@pytest.mark.parametrize("agent", sorted(AGENTS))
def test_a_real_agents_run_exports_and_imports_back(tmp_path: Path, agent: str) -> None:
    if find_binary(BUILTIN[agent]) is None:
        pytest.skip(f"{agent} is not installed in $AUTOCUE_AGENTS_DIR/bin or on PATH: run `autocue agents install "
                    f"{agent}` or `bash scripts/real-agents.sh`")
    path = tmp_path / "create.yaml"
    path.write_text(CREATE)
    [r] = run_scenarios(path, agent=agent, out=tmp_path / "runs", timeout=90).scenarios
    assert r.passed, [f.line() for f in r.failures]
    assert r.out_dir is not None
    data = export_atif(r.out_dir)
    validate(data)
    tool, api = AGENTS[agent]
    assert data["extra"]["source"]["api"] == api
    agent_steps = [s for s in data["steps"] if s["source"] == "agent"]
    assert [s["message"] for s in agent_steps] == ["Writing.", "Done."]
    [call] = agent_steps[0]["tool_calls"]
    assert call["function_name"] == tool and "echo hi > hi.txt" in str(call["arguments"])
    [result] = agent_steps[0]["observation"]["results"]
    assert result["source_call_id"] == call["tool_call_id"]
    assert any("Create hi.txt" in s["message"] for s in data["steps"] if s["source"] == "user")

    # and back: the agent's shell call becomes autocue's bash
    out = tmp_path / "create.atif.json"
    out.write_text(json.dumps(data))
    imported = import_atif(out)
    assert '"toolName":"bash"' in imported.text and "echo hi > hi.txt" in imported.text
