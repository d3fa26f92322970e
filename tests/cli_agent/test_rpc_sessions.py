"""RPC fork / switch_session / get_fork_messages / new_session{parentSession}, user_bash, and the
events that used to never fire (session_before_fork, session_fork, session_directory)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from autocue.llm.registry import ModelRegistry
from autocue.llm.types import TextContent
from autocue.modes.rpc_mode import RpcServer
from autocue.script import ScriptedProvider, ScriptedResponse
from autocue.session import AgentSession, SessionManager


def say(text: str) -> ScriptedResponse:
    return ScriptedResponse([TextContent(text)])


class Rpc:
    def __init__(self, session: AgentSession) -> None:
        self.out = io.BytesIO()
        self.server = RpcServer(session, ModelRegistry(load_files=False, env={}), None, self.out)

    async def __call__(self, **cmd: Any) -> dict[str, Any]:
        start = len(self.out.getvalue())
        await self.server.handle_line(json.dumps({"id": "1", **cmd}).encode())
        lines = [json.loads(x) for x in self.out.getvalue()[start:].splitlines()]
        (resp,) = [x for x in lines if x.get("type") == "response"]
        return resp


def session(tmp_path: Path, replies: list[ScriptedResponse], **kw: Any) -> AgentSession:
    sm = SessionManager.create(str(tmp_path), str(tmp_path / "sessions"))
    return AgentSession(provider=ScriptedProvider(replies), session_manager=sm, cwd=tmp_path, tools=[], **kw)


async def test_fork_get_fork_messages_and_switch_session(tmp_path: Path) -> None:
    log: list[str] = []

    def ext(api: Any) -> None:
        api.on("session_before_fork", lambda e: log.append(f"before_fork:{e.entry_id}"))
        api.on("session_fork", lambda e: log.append(f"fork:{bool(e.previous_session_file)}"))
        api.on("session_before_switch", lambda e: log.append(f"before_switch:{e.reason}"))
        api.on("session_switch", lambda e: log.append(f"switch:{e.reason}"))

    s = session(tmp_path, [say("one"), say("two")], extension_factories=[ext])
    await s.prompt("first")
    await s.prompt("second")
    rpc = Rpc(s)
    msgs = (await rpc(type="get_fork_messages"))["data"]["messages"]
    assert [m["text"] for m in msgs] == ["first", "second"]
    old = s.session_file
    r = await rpc(type="fork", entryId=msgs[1]["entryId"])
    assert r["data"] == {"text": "second", "cancelled": False}
    assert s.session_file != old and [m.role for m in s.messages] == ["user", "assistant"]
    header = json.loads(Path(s.session_file or "").read_text().splitlines()[0])
    assert header["parentSession"] == old
    assert log == [f"before_fork:{msgs[1]['entryId']}", "fork:True"]
    r = await rpc(type="switch_session", sessionPath=old)
    assert r["data"] == {"cancelled": False} and s.session_file == old and len(s.messages) == 4
    assert log[-2:] == ["before_switch:resume", "switch:resume"]
    bad = await rpc(type="fork", entryId="nope")
    assert bad["success"] is False and bad["error"].startswith("fork: Entry nope not found in")
    missing = await rpc(type="switch_session", sessionPath=str(tmp_path / "gone.jsonl"))
    assert missing["success"] is False and "gone.jsonl" in missing["error"] and s.session_file == old
    await s.dispose()


async def test_fork_of_the_first_message_and_a_cancelled_fork(tmp_path: Path) -> None:
    def cancel(api: Any) -> None:
        api.on("session_before_fork", lambda e: {"cancel": True})

    s = session(tmp_path, [say("one")])
    await s.prompt("first")
    (m,) = s.get_fork_messages()
    r = await s.fork(m["entryId"])
    assert not r.cancelled and s.messages == [] and r.text == "first"
    s2 = session(tmp_path, [say("one")], extension_factories=[cancel])
    await s2.prompt("first")
    old = s2.session_file
    r2 = await s2.fork(s2.get_fork_messages()[0]["entryId"])
    assert r2.cancelled and s2.session_file == old
    await s.dispose()
    await s2.dispose()


async def test_new_session_takes_a_parent_session(tmp_path: Path) -> None:
    s = session(tmp_path, [say("one"), say("two")])
    await s.prompt("a")
    parent = s.session_file
    assert (await Rpc(s)(type="new_session", parentSession=parent))["data"] == {"cancelled": False}
    await s.prompt("b")
    assert json.loads(Path(s.session_file or "").read_text().splitlines()[0])["parentSession"] == parent
    bad = await Rpc(s)(type="new_session", parentSession=3)
    assert bad["success"] is False and "parentSession must be a session file path" in bad["error"]
    await s.dispose()


async def test_user_bash_can_answer_for_the_command(tmp_path: Path) -> None:
    seen: list[Any] = []

    def ext(api: Any) -> None:
        def on_bash(e: Any) -> Any:
            seen.append((e.command, e.cwd))
            return {"result": {"output": "faked", "exit_code": 0}} if e.command == "fake" else None

        api.on("user_bash", on_bash)

    s = session(tmp_path, [], extension_factories=[ext])
    rpc = Rpc(s)
    r = await rpc(type="bash", command="fake")
    assert r["data"] == {"output": "faked", "exitCode": 0, "cancelled": False, "truncated": False}
    real = await rpc(type="bash", command="echo real")
    assert real["data"]["output"].strip() == "real"
    assert seen == [("fake", str(tmp_path)), ("echo real", str(tmp_path))]
    assert [m.output for m in s.messages] == ["faked", "real\n"]
    await s.dispose()


@pytest.mark.slow
def test_session_directory_picks_where_the_cli_writes_a_new_session(tmp_path: Path) -> None:
    ext = tmp_path / "dir_ext.py"
    ext.write_text("def extension(api):\n"
                   "    api.on('session_directory', lambda e, ctx: {'session_dir': 'my-sessions'} if ctx is None "
                   "else None)\n")
    playbook = tmp_path / "p.json"
    playbook.write_text(json.dumps([{"text": "hi"}]))
    env = {**os.environ, "AUTOCUE_DIR": str(tmp_path / "home")}
    r = subprocess.run([sys.executable, "-m", "autocue", "-p", "--model", "autocue/playbook", "--playbook",
                        str(playbook), "-e", str(ext), "--no-discover", "hello"],
                       capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60)
    assert r.returncode == 0, r.stderr
    (f,) = (tmp_path / "my-sessions").glob("*.jsonl")
    assert json.loads(f.read_text().splitlines()[0])["cwd"] == str(tmp_path)


def test_a_test_session_warns_about_events_it_never_emits() -> None:
    from autocue.testing import create_test_session

    def ext(api: Any) -> None:
        api.on("session_directory", lambda e: None)
        api.on("agent_end", lambda e: None)

    with create_test_session(extension_factories=[ext]) as t:
        (w,) = t.events.warnings
        assert "subscribes to 'session_directory', which only the autocue CLI when it starts a new session" in str(w)


@pytest.mark.slow
def test_the_cli_names_skipped_agent_and_rule_files(tmp_path: Path) -> None:
    (tmp_path / ".autocue" / "agents").mkdir(parents=True)
    (tmp_path / ".autocue" / "agents" / "bad.md").write_text("---\ncolour: red\n---\nx\n")
    (tmp_path / ".autocue" / "rules").mkdir(parents=True)
    (tmp_path / ".autocue" / "rules" / "r.md").write_text("---\ntrigger: '('\n---\nx\n")
    playbook = tmp_path / "p.json"
    playbook.write_text(json.dumps([{"text": "hi"}]))
    env = {**os.environ, "AUTOCUE_DIR": str(tmp_path / "home")}
    r = subprocess.run([sys.executable, "-m", "autocue", "-p", "--model", "autocue/playbook", "--playbook",
                        str(playbook), "--no-session", "hello"],
                       capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60)
    assert r.returncode == 0 and r.stdout.strip() == "hi", r.stderr
    lines = r.stderr.splitlines()
    assert any(x.startswith("autocue: skipped ") and "bad.md: unknown front matter key(s) ['colour']" in x
               for x in lines), r.stderr
    assert any("r.md: TTSR rule 'r': trigger '(' is not a regular expression" in x for x in lines), r.stderr
