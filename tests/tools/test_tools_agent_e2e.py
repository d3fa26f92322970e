"""The built-in tools driven by a real Agent and the scripted provider, including a replay of
the tool calls in session files written by the real pi CLI (their result texts must match)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conformance import PI_SESSIONS

from autocue.agent import Agent, ToolExecutionEndEvent, ToolExecutionUpdateEvent
from autocue.llm import ImageContent, TextContent, ToolResultMessage
from autocue.script import ScriptedProvider, ScriptedResponse, ScriptedToolCall, scripted_model
from autocue.tools import BUILTIN_TOOL_NAMES, DEFAULT_TOOL_NAMES, create_builtin_tools

ROOT = Path(__file__).resolve().parents[2]


def call(name: str, **args: Any) -> ScriptedResponse:
    return ScriptedResponse([ScriptedToolCall(name, args)])


def results(agent: Agent) -> list[ToolResultMessage]:
    return [m for m in agent.state.messages if isinstance(m, ToolResultMessage)]


def test_registry_names_and_errors(tmp_path: Path) -> None:
    assert BUILTIN_TOOL_NAMES == ("read", "bash", "edit", "write", "grep", "find", "ls")
    assert DEFAULT_TOOL_NAMES == ("read", "bash", "edit", "write")
    tools = create_builtin_tools(tmp_path)
    assert list(tools) == list(DEFAULT_TOOL_NAMES)
    assert all(t.name == n and t.label == n and t.description for n, t in tools.items())
    assert list(create_builtin_tools(tmp_path, ["ls", "grep"])) == ["ls", "grep"]
    with pytest.raises(ValueError, match=r"Unknown built-in tool.*nope.*Available: read, bash"):
        create_builtin_tools(tmp_path, ["read", "nope"])


async def test_agent_runs_every_tool(tmp_path: Path) -> None:
    steps = [
        call("write", path="src/app.py", content="def greet():\n    return 'hi'\n"),
        call("edit", path="src/app.py", oldText="'hi'", newText="'hello'"),
        ScriptedResponse(
            [  # parallel calls in one reply
                ScriptedToolCall("read", {"path": "src/app.py"}),
                ScriptedToolCall("grep", {"pattern": "hello"}),
                ScriptedToolCall("find", {"pattern": "*.py"}),
                ScriptedToolCall("ls", {}),
            ]
        ),
        call("bash", command="python3 -c 'import sys; sys.path.insert(0, \"src\"); import app; print(app.greet())'"),
        call("bash", command="echo boom >&2; exit 7"),
        call("edit", path="src/app.py", oldText="missing", newText="x"),
        ScriptedResponse([TextContent("done")]),
    ]
    agent = Agent(
        provider=ScriptedProvider(steps),
        model=scripted_model(),
        tools=list(create_builtin_tools(tmp_path, BUILTIN_TOOL_NAMES).values()),
    )
    updates: list[ToolExecutionUpdateEvent] = []
    ends: list[ToolExecutionEndEvent] = []
    agent.subscribe(lambda e: updates.append(e) if isinstance(e, ToolExecutionUpdateEvent) else None)
    agent.subscribe(lambda e: ends.append(e) if isinstance(e, ToolExecutionEndEvent) else None)
    await agent.prompt("build it")

    got = [
        (r.tool_name, r.is_error, "\n".join(b.text for b in r.content if isinstance(b, TextContent)))
        for r in results(agent)
    ]
    assert got == [
        ("write", False, "Successfully wrote 29 bytes to src/app.py"),
        ("edit", False, "Successfully replaced text in src/app.py."),
        ("read", False, "def greet():\n    return 'hello'\n"),
        ("grep", False, "src/app.py:2:     return 'hello'"),
        ("find", False, "src/app.py"),
        ("ls", False, "src/"),
        ("bash", False, "hello\n"),
        ("bash", True, "boom\n\n\nCommand exited with code 7"),
        (
            "edit",
            True,
            "Could not find the exact text in src/app.py. The old text must match exactly including all "
            "whitespace and newlines.",
        ),
    ]
    assert results(agent)[1].details == {
        "diff": " 1 def greet():\n-2     return 'hi'\n+2     return 'hello'",
        "firstChangedLine": 2,
    }
    assert {u.tool_name for u in updates} == {"bash"} and len(updates) >= 2  # bash streamed its output
    assert updates[-1].partial_result.text_content == "boom\n"
    assert [e.tool_name for e in ends][:6] == ["write", "edit", "read", "grep", "find", "ls"]
    assert (tmp_path / "src/app.py").read_text() == "def greet():\n    return 'hello'\n"


async def test_agent_gets_images_back(tmp_path: Path) -> None:
    from builtin_tool_helpers import png_bytes

    (tmp_path / "shot.png").write_bytes(png_bytes())
    agent = Agent(
        provider=ScriptedProvider([call("read", path="shot.png"), ScriptedResponse([TextContent("ok")])]),
        model=scripted_model(),
        tools=list(create_builtin_tools(tmp_path).values()),
    )
    await agent.prompt("look")
    (r,) = results(agent)
    assert not r.is_error and isinstance(r.content[1], ImageContent) and r.content[1].mime_type == "image/png"
    assert r.to_json()["content"][1]["mimeType"] == "image/png"


def _pi_tool_exchanges(path: Path) -> list[tuple[list[dict[str, Any]], list[dict[str, Any]]]]:
    """(tool calls of one assistant message, the tool results that follow it)."""
    out: list[tuple[list[dict[str, Any]], list[dict[str, Any]]]] = []
    for line in path.read_text().splitlines():
        entry = json.loads(line)
        if entry.get("type") != "message":
            continue
        msg = entry["message"]
        if msg["role"] == "assistant":
            calls = [c for c in msg["content"] if c["type"] == "toolCall"]
            if calls:
                out.append((calls, []))
        elif msg["role"] == "toolResult" and out:
            out[-1][1].append(msg)
    return out


@pytest.mark.parametrize("session", sorted(p.name for p in PI_SESSIONS.glob("*.jsonl")))
async def test_replaying_pi_sessions_gives_pi_results(session: str, tmp_path: Path) -> None:
    path = PI_SESSIONS / session
    assert path.is_file(), f"conformance files missing under {PI_SESSIONS}"
    exchanges = _pi_tool_exchanges(path)
    ws = tmp_path / "workspace"
    ws.mkdir()
    (ws / "hello.txt").write_text("Hello from pi fixtures!\n")  # what the recorded workspace held
    steps: list[Any] = [
        ScriptedResponse([ScriptedToolCall(c["name"], c["arguments"], c["id"]) for c in calls])
        for calls, _ in exchanges
    ]
    steps.append(ScriptedResponse([TextContent("end")]))
    agent = Agent(
        provider=ScriptedProvider(steps),
        model=scripted_model(),
        tools=list(create_builtin_tools(ws, BUILTIN_TOOL_NAMES).values()),
    )
    await agent.prompt("replay")
    ours = {r.tool_call_id: r for r in results(agent)}
    compared = 0
    for _, recorded in exchanges:
        for rec in recorded:
            if rec["toolName"] not in BUILTIN_TOOL_NAMES:
                continue
            mine = ours[rec["toolCallId"]]
            want = [dict(b, text=b["text"].replace("/workspace", str(ws))) for b in rec["content"]]
            assert [b.to_json() for b in mine.content] == want, rec["toolName"]
            assert mine.is_error == rec["isError"]
            if rec["toolName"] == "edit" and not rec["isError"]:
                assert mine.details == rec["details"]
            compared += 1
    assert compared or not exchanges


async def test_agent_abort_kills_running_bash_group(tmp_path: Path) -> None:
    import asyncio
    import os
    import signal

    from builtin_tool_helpers import pid_alive

    agent = Agent(
        provider=ScriptedProvider([call("bash", command="sleep 60 & echo $!; sleep 60"), ScriptedResponse([])]),
        model=scripted_model(),
        tools=list(create_builtin_tools(tmp_path).values()),
    )
    updates: list[ToolExecutionUpdateEvent] = []
    agent.subscribe(lambda e: updates.append(e) if isinstance(e, ToolExecutionUpdateEvent) else None)
    run = asyncio.ensure_future(agent.prompt("wait"))
    for _ in range(1000):
        if updates:
            break
        await asyncio.sleep(0.01)
    child = int(updates[0].partial_result.text_content)
    agent.abort()
    await run
    try:
        (r,) = results(agent)
        assert r.is_error and r.content == [TextContent(f"{child}\n\n\nCommand aborted")]
        for _ in range(500):
            if not pid_alive(child):
                break
            await asyncio.sleep(0.01)
        assert not pid_alive(child)
    finally:
        if pid_alive(child):
            os.kill(child, signal.SIGKILL)
