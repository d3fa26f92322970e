"""``autocue mock-agent``: real tools, result/status/edit checks, checkpoints, user input, formats."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from runner_helpers import at, kinds, one, scenario

from autocue.runner.mockagent import MockAgent
from autocue.runner.mockplan import plan_from_scenario
from autocue.scenario import load_scenario

MOCK = """\
name: mock_demo
agent: mock
initialPrompt: "create hello.py"
repo:
  files:
    - {path: README.md, contents: "hello\\nworld\\n"}
timeline:
  - llmResponse:
      - think: [[10, "I should write it"]]
      - assistant: [[10, "Writing hello.py."]]
      - writeFile: {path: hello.py, content: "print('Hello')\\n"}
  - llmResponse:
      - runCmd: {cmd: python3 hello.py}
        result: "Hello  \\r\\n"
        status: ok
  - agentEdits: {path: README.md, linesAdded: 2, linesRemoved: 1}
  - screenshot: after_tools
  - userInputs: [[0, "thanks"]]
  - llmResponse:
      - assistant: [[0, "You're welcome."]]
  - assert:
      fs: {exists: [hello.py]}
      text: {contains: ["You're welcome."]}
expect: {exitCode: 0}
"""


@pytest.mark.slow
def test_the_mock_agent_under_the_runner(tmp_path: Path) -> None:
    r = one(scenario(tmp_path, MOCK), keep=True)
    assert r.passed, r.failures
    assert r.runner == "mock"
    assert Path(r.screenshots["after_tools"]).read_text() == (
        "autocue mock-agent · mock_demo\n"
        "> create hello.py\n"
        "I should write it\n"
        "Writing hello.py.\n"
        '→ writeFile {"path": "hello.py", "content": "print(\'Hello\')\\n"}\n'
        "✓ writeFile: Successfully wrote 15 bytes to hello.py\n"
        '→ runCmd {"cmd": "python3 hello.py"}\n'
        "✓ runCmd: Hello\n"
        "✎ README.md (+2 -1)\n"
        ">\n"
    )
    ws = Path(r.workspace or "")
    assert (ws / "README.md").read_text() == ("line 1 added by the autocue mock agent\n"
                                              "line 2 added by the autocue mock agent\nworld\n")
    assert r.last_screen.endswith("> thanks\nYou're welcome.")


@pytest.mark.slow
def test_result_status_and_edit_mismatches_are_tool_result_failures(tmp_path: Path) -> None:
    path = scenario(tmp_path, """\
name: mismatches
agent: mock
timeline:
  - agentToolUse: {toolName: runCmd, args: {cmd: "echo hi"}, result: "bye"}
  - agentToolUse: {toolName: runCmd, args: {cmd: "exit 3"}, status: ok}
  - agentEdits: {path: new.txt, linesAdded: 1, linesRemoved: 4}
  - assistant: [[0, "the end"]]
""")
    r = one(path)
    assert kinds(r) == ["tool_result"] * 3
    first, second, third = r.failures[:3]
    lines = [f.position.rsplit(":", 1)[0] for f in r.failures]  # file:line of each event
    assert lines == [at(path, needle).rsplit(":", 1)[0] for needle in ("echo hi", "exit 3", "agentEdits")]
    assert first.message == "runCmd: the result 'hi' differs from the scenario's 'bye'"
    assert first.detail.endswith("-bye\n+hi")
    assert "status error, the scenario expects ok" in second.message
    assert "cannot remove 4 line(s), the file has 0" in third.message
    assert r.exit_code == 1 and "the end" in r.last_screen  # it went on


def test_checkpoint_command_runs_after_each_tool_and_edit(tmp_path: Path) -> None:
    path = scenario(tmp_path, """\
name: checkpoints
timeline:
  - runCmd: {cmd: "echo one"}
  - agentEdits: {path: a.txt, linesAdded: 3, linesRemoved: 0}
  - readFile: {path: a.txt}
""")
    out = io.StringIO()
    plan = plan_from_scenario(load_scenario(path))
    agent = MockAgent(plan, tmp_path, out, lambda: "", checkpoint_cmd="echo x >> checkpoints.log")
    assert agent.run() == 0, out.getvalue()
    assert (tmp_path / "checkpoints.log").read_text() == "x\nx\nx\n"
    assert "✓ readFile: line 1 added by the autocue mock agent (+2 lines)" in out.getvalue()


def test_a_failing_checkpoint_fails_the_run(tmp_path: Path) -> None:
    path = scenario(tmp_path, "name: cp\ntimeline:\n  - runCmd: {cmd: 'true'}\n")
    out = io.StringIO()
    plan = plan_from_scenario(load_scenario(path))
    agent = MockAgent(plan, tmp_path, out, lambda: "", checkpoint_cmd="echo nope >&2; exit 4")
    assert agent.run() == 1
    assert "--checkpoint-cmd exited with 4: nope" in out.getvalue()


FORMATS = """\
name: formats
initialPrompt: go
timeline:
  - llmResponse:
      - think: [[0, "hmm"]]
      - assistant: [[0, "Running."]]
      - runCmd: {cmd: "echo out"}
  - agentEdits: {path: f.txt, linesAdded: 1, linesRemoved: 0}
  - userInputs: [[0, "more"]]
  - assistant: [[0, "Done."]]
"""


@pytest.mark.parametrize("fmt", ["pi-json", "claude-stream-json", "codex-json"])
def test_json_formats_of_other_clis(tmp_path: Path, fmt: str) -> None:
    path = scenario(tmp_path, FORMATS)
    proc = subprocess.run([sys.executable, "-m", "autocue.cli.main", "mock-agent", str(path), "--format", fmt,
                           "--cwd", str(tmp_path)], input="more\n", capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    types = [e["type"] for e in events]
    if fmt == "pi-json":
        assert types[:2] == ["session", "agent_start"] and types[-1] == "agent_end"
        end = next(e for e in events if e["type"] == "tool_execution_end")
        assert end["result"]["content"][0]["text"] == "out\n" and end["isError"] is False
        first = next(e for e in events if e["type"] == "message_end" and e["message"]["role"] == "assistant")
        assert {"type": "thinking", "thinking": "hmm"} in first["message"]["content"]
    elif fmt == "claude-stream-json":
        assert types[0] == "system" and types[-1] == "result"
        assert events[-1]["result"] == "Done." and events[-1]["is_error"] is False
        blocks = [b for e in events if e["type"] == "assistant" for b in e["message"]["content"]]
        uses = [b for b in blocks if b["type"] == "tool_use"]
        assert [u["name"] for u in uses] == ["runCmd", "Edit"]
    else:
        assert types[:2] == ["thread.started", "turn.started"] and types.count("turn.completed") == 2
        cmd = next(e["item"] for e in events if e["type"] == "item.completed"
                   and e["item"]["type"] == "command_execution")
        assert (cmd["command"], cmd["aggregated_output"], cmd["exit_code"]) == ("echo out", "out\n", 0)
        assert any(e["item"]["type"] == "file_change" for e in events if e["type"] == "item.completed")


def test_usage_errors(tmp_path: Path) -> None:
    two = scenario(tmp_path, "name: a\ntimeline: []\n---\nname: b\ntimeline: []\n")
    for argv, message in (([str(two)], "2 scenarios: pass --scenario NAME"),
                          ([str(two), "--scenario", "c"], "no scenario named 'c'"),
                          ([str(tmp_path / "none.yaml")], "no such scenario file")):
        proc = subprocess.run([sys.executable, "-m", "autocue.cli.main", "mock-agent", *argv], capture_output=True,
                              text=True, timeout=60)
        assert proc.returncode == 2 and message in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr


@pytest.mark.slow
def test_the_mock_agent_is_a_backend_of_autocue_loop(tmp_path: Path) -> None:
    from autocue.loop import EventLoop, config_from_dict
    from autocue.loop.command_backend import CommandBackend

    path = scenario(tmp_path, """\
name: loop_agent
timeline:
  - llmResponse:
      - writeFile: {path: hello.py, content: "print('hello')\\n"}
  - llmResponse:
      - runCmd: {cmd: python3 hello.py}
        result: hello
  - assistant: [[0, "built it\\nLOOP_COMPLETE"]]
""")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    config = config_from_dict({"event_loop": {"max_iterations": 3},
                               "hats": {"builder": {"triggers": ["task.start"], "publishes": ["build.done"]}}})
    backend = CommandBackend(sys.executable, ["-m", "autocue.cli.main", "mock-agent", str(path)], prompt_mode="arg")
    result = EventLoop(config, prompt="build hello", workspace=str(workspace), backend=backend).run_sync()
    assert (result.termination_reason, result.exit_code) == ("CompletionPromise", 0)
    assert (workspace / "hello.py").read_text() == "print('hello')\n"
