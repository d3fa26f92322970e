"""Tool calls a real agent logged as failed (``autocue.runner.diagnose.tool_failures``): read from its
session logs (a profile's ``session_logs``: Codex's rollout, Claude Code's transcript), each a
diagnostic of a failed run, and a call the agent could not run at all (its sandbox failed) a
``tool_result`` failure even when the scenario checks nothing.

The records are Codex 0.169's (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``) and Claude Code
2.1's (``~/.claude/projects/DIR/SESSION.jsonl``), trimmed. The end to end tests run a Python
program in the CLI's place, against the embedded server, in a real pty.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest
from runner_helpers import one, scenario

from autocue.runner.diagnose import ToolFailure, diagnose, tool_failures


def call(call_id: str, cmd: str) -> dict[str, object]:
    return {"timestamp": "2026-11-27T22:05:18.101Z", "type": "response_item",
            "payload": {"type": "function_call", "name": "exec_command", "arguments": json.dumps({"cmd": cmd}),
                        "call_id": call_id}}


def output(call_id: str, code: int, text: str) -> dict[str, object]:
    return {"timestamp": "2026-11-27T22:05:18.288Z", "type": "response_item",
            "payload": {"type": "function_call_output", "call_id": call_id,
                        "output": f"Chunk ID: fef69b\nWall time: 0.0000 seconds\nProcess exited with code {code}\n"
                                  f"Original token count: 16\nOutput:\n{text}"}}


WRITE = "printf '%s' 'hello from the agent\n' > hello.txt"
BWRAP = "bwrap: execvp codex-linux-sandbox: No such file or directory\n"


def rollout(path: Path, *records: dict[str, object]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps({"type": "session_meta", "payload": {"session_id": "s1"}}), "not json",
             *(json.dumps(r) for r in records)]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_codex_call_its_sandbox_could_not_start_is_read_as_unrunnable(tmp_path: Path) -> None:
    rollout(tmp_path / "sessions/2026/11/27/rollout-1.jsonl", call("c1", WRITE), output("c1", 1, BWRAP))
    [f] = tool_failures(str(tmp_path / "sessions/**/rollout-*.jsonl"))
    assert f == ToolFailure("exec_command", "printf '%s' 'hello from the agent\\n' > hello.txt", BWRAP, 1)
    assert f.unrunnable
    assert f.describe() == ("exec_command `printf '%s' 'hello from the agent\\n' > hello.txt`: exit 1: "
                            "bwrap: execvp codex-linux-sandbox: No such file or directory")


def test_a_command_that_ran_and_failed_is_a_failure_but_not_unrunnable_and_a_success_is_none(tmp_path: Path) -> None:
    rollout(tmp_path / "r/rollout-1.jsonl",
            call("c1", "cat number.txt"), output("c1", 0, "4242\n"),
            call("c2", "grep x missing.txt"), output("c2", 2, "grep: missing.txt: No such file or directory\n"),
            {"type": "response_item", "payload": {"type": "custom_tool_call", "name": "apply_patch", "call_id": "c3",
                                                  "input": "*** Begin Patch\n*** End Patch"}},
            {"type": "response_item", "payload": {"type": "custom_tool_call_output", "call_id": "c3",
                                                  "output": json.dumps({"output": "patch rejected",
                                                                        "metadata": {"exit_code": 1}})}})
    found = tool_failures(str(tmp_path / "r/rollout-*.jsonl"))
    assert [(f.tool, f.exit_code, f.unrunnable) for f in found] == [("exec_command", 2, False),
                                                                     ("apply_patch", 1, False)]
    assert found[0].output == "grep: missing.txt: No such file or directory\n"
    assert found[1].call == "*** Begin Patch\\n*** End Patch" and found[1].output == "patch rejected"
    assert tool_failures(str(tmp_path / "nothing/*.jsonl")) == [] and tool_failures(None) == []


def test_a_claude_code_tool_result_marked_as_an_error_is_a_failure(tmp_path: Path) -> None:
    records = [{"type": "assistant", "message": {"role": "assistant", "content": [
                   {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "config.json"}},
                   {"type": "tool_use", "id": "toolu_2", "name": "Edit",
                    "input": {"file_path": "config.json", "old_string": "nothing", "new_string": "x"}},
                   {"type": "tool_use", "id": "toolu_3", "name": "Bash", "input": {"command": "ls /nope"}}]}},
               {"type": "user", "message": {"role": "user", "content": [
                   {"tool_use_id": "toolu_1", "type": "tool_result", "content": "1\t{}"},
                   {"type": "tool_result", "is_error": True, "tool_use_id": "toolu_2",
                    "content": "<tool_use_error>String to replace not found in file.\nString: nothing"
                               "</tool_use_error>"},
                   {"type": "tool_result", "is_error": True, "tool_use_id": "toolu_3",
                    "content": [{"type": "text", "text": "bwrap: No permissions to create a new namespace"}]}]}}]
    rollout(tmp_path / "projects/-ws/s1.jsonl", *records)
    found = tool_failures(str(tmp_path / "projects/*/*.jsonl"))
    assert found == [ToolFailure("Edit", "config.json", "String to replace not found in file.\nString: nothing"),
                     ToolFailure("Bash", "ls /nope", "bwrap: No permissions to create a new namespace")]
    assert [f.unrunnable for f in found] == [False, True]
    assert found[0].describe() == "Edit `config.json`: String to replace not found in file. | String: nothing"


def test_the_failed_calls_come_first_in_the_diagnostics_named_by_the_agent(tmp_path: Path) -> None:
    f = ToolFailure("exec_command", "printf x > a", BWRAP, 1)
    lines = diagnose(None, None, [f], "codex")
    assert lines == ["codex reported a failed tool call: exec_command `printf x > a`: exit 1: "
                     "bwrap: execvp codex-linux-sandbox: No such file or directory"]


FAKE_CLI = textwrap.dedent("""\
    import json, os, sys, urllib.request
    prompt = sys.argv[sys.argv.index("--prompt") + 1]
    body = {"model": "m", "messages": [{"role": "user", "content": prompt}],
            "tools": [{"type": "function", "function": {"name": "bash", "parameters": {"type": "object"}}}]}
    headers = {"content-type": "application/json", "authorization": "Bearer " + os.environ["FAKE_KEY"]}
    req = urllib.request.Request(os.environ["FAKE_URL"] + "/chat/completions", json.dumps(body).encode(), headers)
    print("reply:", json.load(urllib.request.urlopen(req))["choices"][0]["message"]["content"], flush=True)
    log = os.path.join(os.environ["HOME"], ".fake", "sessions", "rollout-1.jsonl")
    os.makedirs(os.path.dirname(log))
    with open(log, "w") as f:
        f.write(os.environ["FAKE_LOG"])
""")


@pytest.fixture
def fake_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A CLI that asks the server once, says the reply and logs one tool call (``$FAKE_LOG``) in a
    Codex-style rollout under its private home; its profile names the log."""
    exe = tmp_path / "agents" / "bin" / "fakecli"
    exe.parent.mkdir(parents=True)
    exe.write_text(f"#!{sys.executable}\n{FAKE_CLI}")
    exe.chmod(0o755)
    monkeypatch.setenv("AUTOCUE_AGENTS_DIR", str(tmp_path / "agents"))
    prof = tmp_path / "agents.yaml"
    prof.write_text("agents:\n  fakecli:\n    binary: fakecli\n    print_args: ['--prompt', '{prompt}']\n"
                    "    env: {FAKE_URL: '{openai_base_url}', FAKE_KEY: '{api_key}'}\n"
                    "    session_logs: .fake/sessions/rollout-*.jsonl\n")
    return prof


def logged(cmd: str, code: int, text: str) -> str:
    return "\n".join(json.dumps(r) for r in (call("c1", cmd), output("c1", code, text))) + "\n"


NO_CHECKS = """
name: no-checks
initialPrompt: create hello.txt
timeline:
  - llmResponse:
      - assistant: [[0, "Done."]]
"""

WITH_ASSERT = """
name: with-assert
initialPrompt: create hello.txt
timeline:
  - llmResponse:
      - assistant: [[0, "Done."]]
  - assert:
      fs: {exists: [hello.txt]}
"""


def test_a_call_the_agent_could_not_run_fails_a_scenario_that_checks_nothing(
        tmp_path: Path, fake_cli: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_LOG", logged(WRITE, 1, BWRAP))
    r = one(scenario(tmp_path, NO_CHECKS), agent="fakecli", agents_files=(str(fake_cli),))
    assert r.exit_code == 0 and "reply: Done." in r.last_screen
    assert [(f.kind, f.position) for f in r.failures] == [("tool_result", f"{tmp_path / 's.yaml'}:2:1")]
    assert r.failures[0].message == (
        "fakecli could not run a tool call, its sandbox failed on this machine: exec_command "
        "`printf '%s' 'hello from the agent\\n' > hello.txt`: exit 1: bwrap: execvp codex-linux-sandbox: "
        "No such file or directory (see 'Sandboxes and bubblewrap' in docs/agents.md)")
    assert r.diagnostics[0].startswith("fakecli reported a failed tool call: exec_command `printf ")


def test_a_failed_assert_is_explained_by_the_call_the_agent_logged_as_failed(
        tmp_path: Path, fake_cli: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_LOG", logged("cp a hello.txt", 1, "cp: cannot stat 'a': No such file or directory\n"))
    r = one(scenario(tmp_path, WITH_ASSERT), agent="fakecli", agents_files=(str(fake_cli),))
    assert [f.kind for f in r.failures] == ["assert"]
    assert r.diagnostics[0] == ("fakecli reported a failed tool call: exec_command `cp a hello.txt`: exit 1: "
                                "cp: cannot stat 'a': No such file or directory")


def test_a_command_that_failed_is_no_failure_of_a_scenario_whose_checks_pass(
        tmp_path: Path, fake_cli: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_LOG", logged("grep x missing.txt", 2, "grep: missing.txt: No such file\n"))
    r = one(scenario(tmp_path, NO_CHECKS), agent="fakecli", agents_files=(str(fake_cli),))
    assert r.passed and r.diagnostics == [], (r.failures, r.diagnostics)
