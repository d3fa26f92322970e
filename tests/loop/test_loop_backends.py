"""Command and agent backends: prompt delivery, process-group kill on timeout, the autocue agent."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

from autocue.llm import TextContent
from autocue.loop import (
    AgentBackend,
    CommandBackend,
    EventLoop,
    TerminationReason,
    config_from_dict,
    read_session,
)
from autocue.script import ScriptedProvider, ScriptedResponse


def _loop(tmp_path: Path, backend: dict[str, Any], **event_loop: Any) -> Any:
    cfg = config_from_dict({"event_loop": event_loop, "backend": backend})
    return EventLoop(cfg, prompt="the task text", workspace=tmp_path).run_sync()


def test_command_backend_prompt_on_stdin(tmp_path: Path) -> None:
    script = 'cat > got.txt; echo "<event topic=\\"x.y\\">$AUTOCUE_HAT $AUTOCUE_ITERATION</event>"; echo LOOP_COMPLETE'
    result = _loop(tmp_path, {"command": "sh", "args": ["-c", script]})
    assert result.reason is TerminationReason.COMPLETION_PROMISE
    assert "the task text" in (tmp_path / "got.txt").read_text()
    recs = read_session(tmp_path / ".autocue" / "session.jsonl")
    pub = [r for r in recs if r.event == "bus.publish" and r.topic == "x.y"]
    assert pub[0].payload_text == "default 1"


def test_command_backend_prompt_as_argument(tmp_path: Path) -> None:
    code = "import sys, pathlib; pathlib.Path('arg.txt').write_text(sys.argv[-1]); print('LOOP_COMPLETE')"
    result = _loop(tmp_path, {"command": sys.executable, "args": ["-c", code], "prompt_mode": "arg"})
    assert result.exit_code == 0 and "the task text" in (tmp_path / "arg.txt").read_text()


def test_command_failures_count_and_stderr_is_captured(tmp_path: Path) -> None:
    result = _loop(tmp_path, {"command": "sh", "args": ["-c", "echo oops >&2; exit 4"]}, max_consecutive_failures=2)
    assert result.reason is TerminationReason.CONSECUTIVE_FAILURES and result.iterations == 2
    assert "oops" in result.stderr
    recs = read_session(tmp_path / ".autocue" / "session.jsonl")
    assert any(r.event == "ux.terminal.write" and r.data["stdout"] is False for r in recs)


def test_missing_program_is_a_clear_fatal_error(tmp_path: Path) -> None:
    result = _loop(tmp_path, {"command": "definitely-not-a-program-xyz"})
    assert result.reason is TerminationReason.VALIDATION_FAILURE
    assert "not found on PATH" in (result.error or "")


def test_program_that_cannot_be_started_is_a_clear_fatal_error(tmp_path: Path) -> None:
    (tmp_path / "agent.sh").write_text("#!/bin/sh\necho LOOP_COMPLETE\n")  # not executable
    result = _loop(tmp_path, {"command": "./agent.sh"})
    assert result.reason is TerminationReason.VALIDATION_FAILURE
    assert "'./agent.sh' could not be started" in (result.error or "") and "Permission denied" in result.error


def _dead(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] == "Z"
    except OSError:
        return True


def test_timeout_kills_the_whole_process_group_and_keeps_partial_session(tmp_path: Path) -> None:
    script = "sleep 30 & echo $! > child.pid; echo started; wait"
    cfg = config_from_dict({"event_loop": {"max_runtime_seconds": 1},
                            "backend": {"command": "sh", "args": ["-c", script], "kill_grace_secs": 0.5}})
    result = EventLoop(cfg, prompt="p", workspace=tmp_path).run_sync()
    assert (result.reason, result.exit_code) == (TerminationReason.MAX_RUNTIME, 2)
    assert "started" in result.stdout
    child = int((tmp_path / "child.pid").read_text())
    deadline = time.monotonic() + 5
    while not _dead(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _dead(child), "the grandchild survived the timeout"
    recs = read_session(tmp_path / ".autocue" / "session.jsonl")
    assert recs[-1].data["reason"] == "MaxRuntime"
    assert any(r.event == "ux.terminal.write" for r in recs)


def test_agent_backend_with_scripted_provider(tmp_path: Path) -> None:
    provider = ScriptedProvider([
        ScriptedResponse([TextContent('Planning.\n<event topic="build.task">step</event>')]),
        ScriptedResponse([TextContent("Built.\nLOOP_COMPLETE")]),
    ])
    cfg = config_from_dict({"hats": {"planner": {"triggers": ["task.start"]}, "builder": {"triggers": ["build.task"]}}})
    result = EventLoop(cfg, prompt="p", workspace=tmp_path, backend=AgentBackend(provider)).run_sync()
    assert result.reason is TerminationReason.COMPLETION_PROMISE and result.hats_run == ["planner", "builder"]
    assert "Planning." in result.stdout and provider.remaining == 0


def test_agent_backend_with_a_provider_factory_and_exhaustion(tmp_path: Path) -> None:
    made: list[ScriptedProvider] = []

    def factory() -> ScriptedProvider:
        p = ScriptedProvider([ScriptedResponse([TextContent("<event topic=\"again\">x</event>")])] if not made else [])
        made.append(p)
        return p

    cfg = config_from_dict({"event_loop": {"max_iterations": 5}})
    result = EventLoop(cfg, prompt="p", workspace=tmp_path, backend=AgentBackend(factory)).run_sync()
    assert len(made) == 2  # a fresh provider per activation
    assert result.reason is TerminationReason.VALIDATION_FAILURE
    assert "No more scripted responses" in (result.error or "")


def test_agent_backend_from_config_factory(tmp_path: Path) -> None:
    mod = tmp_path / "my_agent_factory.py"
    mod.write_text(
        "from autocue.llm import TextContent\n"
        "from autocue.script import ScriptedProvider, ScriptedResponse\n"
        "def make():\n    return ScriptedProvider([ScriptedResponse([TextContent('LOOP_COMPLETE')])])\n"
    )
    sys.path.insert(0, str(tmp_path))
    try:
        result = _loop(tmp_path, {"type": "agent", "factory": "my_agent_factory:make"})
    finally:
        sys.path.remove(str(tmp_path))
    assert result.exit_code == 0


def test_command_backend_direct_use(tmp_path: Path) -> None:
    b = CommandBackend("sh", ["-c", "echo LOOP_COMPLETE"])
    result = EventLoop(config_from_dict({}), prompt="p", workspace=tmp_path, backend=b).run_sync()
    assert result.exit_code == 0 and b.stats()["runs"] == 1


def test_children_left_running_are_killed_when_the_program_exits(tmp_path: Path) -> None:
    script = "sleep 30 & echo $! > child.pid; echo LOOP_COMPLETE"
    result = _loop(tmp_path, {"command": "sh", "args": ["-c", script], "kill_grace_secs": 0.3})
    assert result.reason is TerminationReason.COMPLETION_PROMISE
    child = int((tmp_path / "child.pid").read_text())
    deadline = time.monotonic() + 5
    while not _dead(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _dead(child)


def test_agent_backend_from_http_provider_options(monkeypatch: Any) -> None:
    from autocue.loop.agent_backend import agent_backend_from_options

    monkeypatch.setenv("MY_KEY", "sk-test")
    b = agent_backend_from_options({"api": "openai-completions", "model": "gpt-test",
                                    "base_url": "http://127.0.0.1:9/v1", "api_key_env": "MY_KEY"})
    assert b.model is not None and (b.model.id, b.model.api, b.model.base_url) == (
        "gpt-test", "openai-completions", "http://127.0.0.1:9/v1")
    assert hasattr(b._get_provider(), "stream")
