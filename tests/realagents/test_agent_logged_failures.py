"""A real agent's own record of a failed tool call explains a failed run (Claude Code's transcript
under its private home; Codex's rollout: test_codex_bubblewrap.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from autocue.runner import run_scenarios
from autocue.runner.agents import BUILTIN, find_binary

EDIT_MISSES = """\
name: edit-misses
initialPrompt: set the greeting to hello agents
repo:
  files:
    - path: config.json
      contents: |
        {"greeting": "hello world"}
timeline:
  - llmResponse:
      - assistant: [[0, "Reading config.json first."]]
      - readFile: {path: config.json}
  - llmResponse:
      - assistant: [[0, "Changing the greeting."]]
      - editFile: {path: config.json, oldText: "hello wrld", newText: "hello agents"}
  - assert:
      json: {file: {path: config.json, pointer: /greeting, equals: hello agents}}
  - llmResponse:
      - assistant: [[0, "The greeting is now hello agents."]]
"""


@pytest.mark.slow
def test_claude_codes_failed_edit_is_named_in_the_diagnostics_of_the_failed_assert(tmp_path: Path) -> None:
    if find_binary(BUILTIN["claude"]) is None:
        pytest.skip("claude (npm @anthropic-ai/claude-code) is not installed in $AUTOCUE_AGENTS_DIR/bin or on PATH: "
                    "run `autocue agents install claude` or `bash scripts/real-agents.sh`")
    path = tmp_path / "edit.yaml"
    path.write_text(EDIT_MISSES)
    [r] = run_scenarios(path, agent="claude", out=tmp_path / "runs", timeout=90).scenarios
    assert [f.kind for f in r.failures] == ["assert"], [f.line() for f in r.failures]
    assert r.diagnostics[0] == ("claude reported a failed tool call: Edit `config.json`: String to replace not "
                                "found in file. | String: hello wrld"), r.diagnostics
