"""``autocue acp-agent`` judged by the official Python ACP client (``acp``'s ClientSideConnection):
a real subprocess plays tests/fixtures/acp/*.yaml; the client serves fs and terminal calls for real."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from acp import RequestError
from acp_judge import PROTOCOL_VERSION, JudgeClient, capabilities, spawn_acp_agent, text_block

pytestmark = pytest.mark.slow  # each test starts the agent (about a second: acp.schema builds its models)
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "acp"
SESSION = FIXTURES / "session.yaml"


async def test_a_scripted_session_with_permission_fs_and_terminal_served_by_the_client(tmp_path: Path) -> None:
    client = JudgeClient()
    async with spawn_acp_agent(client, SESSION) as (conn, proc):
        init = await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=capabilities())
        assert init.protocol_version == PROTOCOL_VERSION and init.agent_info is not None
        assert init.agent_info.name == "autocue-acp-agent" and init.agent_capabilities.load_session
        sid = (await conn.new_session(cwd=str(tmp_path), mcp_servers=[])).session_id

        first = await conn.prompt(session_id=sid, prompt=[text_block("Create notes.txt and check it")])
        assert first.stop_reason == "end_turn" and first.field_meta is None  # no result differed from the scenario
        notes = str(tmp_path / "notes.txt")
        assert client.calls[:2] == [("fs/write_text_file", notes), ("fs/read_text_file", notes)]
        assert ("terminal/create", ["sh", "-c", "grep -c a notes.txt"]) in client.calls
        assert client.methods()[-2:] == ["fs/read_text_file", "fs/write_text_file"]  # the edit, through the client
        assert (tmp_path / "notes.txt").read_text() == "alpha\ngamma\n"
        [asked] = client.permissions
        assert asked.kind == "execute" and asked.title == "runCmd grep -c a notes.txt"
        assert client.kinds()[:3] == ["agent_thought_chunk", "agent_message_chunk", "plan"]
        plan = client.updates[2]
        assert [(e.content, e.priority, e.status) for e in plan.entries] == [
            ("Write notes.txt", "medium", "in_progress"), ("Check it", "high", "pending")]
        calls = [u for u in client.updates if u.session_update == "tool_call"]
        assert [(c.kind, c.title) for c in calls] == [("edit", "writeFile notes.txt"), ("read", "readFile notes.txt"),
                                                     ("execute", "runCmd grep -c a notes.txt"),
                                                     ("edit", "editFile notes.txt")]
        assert calls[0].locations[0].path == notes
        ends = [u for u in client.updates
                if u.session_update == "tool_call_update" and u.status in ("completed", "failed")]
        assert [u.status for u in ends] == ["completed"] * 4
        grep_end = ends[2]
        assert grep_end.content[-1].content.text == "2" and grep_end.content[0].type == "terminal"
        assert client.text() == "Writing notes.txt.notes.txt has two lines."

        second = await conn.prompt(session_id=sid, prompt=[text_block("Now list the folder")])
        assert second.stop_reason == "refusal"  # the reply's _meta.stopReason
        assert client.calls[-4:][0] == ("terminal/create", ["sh", "-c", "ls"])
        assert client.text().endswith("Done.")
        assert len(client.permissions) == 1

        with pytest.raises(RequestError) as err:
            await conn.prompt(session_id=sid, prompt=[text_block("more?")])
        assert "scenario acp_session: prompt 3 has no turn" in str(err.value)

        # session/load replays the conversation so far
        before = len(client.updates)
        await conn.load_session(cwd=str(tmp_path), session_id=sid, mcp_servers=[])
        replay = client.updates[before:]
        assert [u.session_update for u in replay][:2] == ["user_message_chunk", "agent_thought_chunk"]
    assert proc.returncode is not None or await proc.wait() == 0


async def test_a_rejected_permission_fails_the_call_without_running_it(tmp_path: Path) -> None:
    client = JudgeClient(answers=["reject_once"])
    async with spawn_acp_agent(client, SESSION) as (conn, _proc):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=capabilities())
        sid = (await conn.new_session(cwd=str(tmp_path), mcp_servers=[])).session_id
        done = await conn.prompt(session_id=sid, prompt=[text_block("go")])
    assert "terminal/create" not in client.methods()
    failed = [u for u in client.updates if u.session_update == "tool_call_update" and u.status == "failed"]
    assert len(failed) == 1 and "rejected" in failed[0].content[0].content.text
    # the scenario expected status ok: the agent says so in the response's _meta (and on stderr)
    assert done.stop_reason == "end_turn"
    assert "status error, the scenario expects ok" in done.field_meta["autocue"]["failures"][0]["message"]
    assert (tmp_path / "notes.txt").read_text() == "alpha\ngamma\n"  # the turn went on


async def test_ask_permission_option_and_allow_always(tmp_path: Path) -> None:
    client = JudgeClient(answers=["allow_always"])
    async with spawn_acp_agent(client, SESSION, "--ask-permission", "runCmd") as (conn, _p):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=capabilities())
        sid = (await conn.new_session(cwd=str(tmp_path), mcp_servers=[])).session_id
        await conn.prompt(session_id=sid, prompt=[text_block("go")])
        await conn.prompt(session_id=sid, prompt=[text_block("list")])
    assert len(client.permissions) == 1  # allow_always holds for the second turn's runCmd
    assert client.methods().count("terminal/create") == 2


async def test_without_client_capabilities_the_agent_works_in_its_own_workspace(tmp_path: Path) -> None:
    client = JudgeClient()
    async with spawn_acp_agent(client, SESSION) as (conn, _proc):
        await conn.initialize(protocol_version=PROTOCOL_VERSION)  # no fs, no terminal
        sid = (await conn.new_session(cwd=str(tmp_path), mcp_servers=[])).session_id
        first = await conn.prompt(session_id=sid, prompt=[text_block("go")])
    assert first.stop_reason == "end_turn" and first.field_meta is None
    assert client.calls == [] and len(client.permissions) == 1
    assert (tmp_path / "notes.txt").read_text() == "alpha\ngamma\n"


async def _start_long_job(conn: object, tmp_path: Path, caps: object) -> str:
    await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=caps)  # type: ignore[attr-defined]
    return (await conn.new_session(cwd=str(tmp_path), mcp_servers=[])).session_id  # type: ignore[attr-defined]


async def _pid_file(path: Path) -> int:
    for _ in range(500):
        if path.is_file() and path.read_text().strip():
            return int(path.read_text())
        await asyncio.sleep(0.02)
    raise AssertionError(f"{path} never appeared")


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


async def test_cancel_mid_command_kills_the_agents_own_command_and_the_agent_keeps_serving(tmp_path: Path) -> None:
    client = JudgeClient()
    async with spawn_acp_agent(client, FIXTURES / "long_command.yaml") as (conn, proc):
        sid = await _start_long_job(conn, tmp_path, capabilities(fs=False, terminal=False))
        prompt = asyncio.create_task(conn.prompt(session_id=sid, prompt=[text_block("Run the long job")]))
        pid = await _pid_file(tmp_path / "job.pid")
        assert _alive(pid)
        await conn.cancel(session_id=sid)
        assert (await prompt).stop_reason == "cancelled"
        for _ in range(200):
            if not _alive(pid):
                break
            await asyncio.sleep(0.02)
        assert not _alive(pid), f"the command {pid} outlived the cancelled prompt"
        assert "Job finished." not in client.text()
        again = await conn.prompt(session_id=sid, prompt=[text_block("status?")])  # the next turn plays
        assert again.stop_reason == "end_turn" and client.text().endswith("Still here.")
    assert await proc.wait() == 0


async def test_cancel_mid_terminal_command_kills_and_releases_the_clients_terminal(tmp_path: Path) -> None:
    client = JudgeClient()
    async with spawn_acp_agent(client, FIXTURES / "long_command.yaml") as (conn, _proc):
        sid = await _start_long_job(conn, tmp_path, capabilities())
        prompt = asyncio.create_task(conn.prompt(session_id=sid, prompt=[text_block("Run the long job")]))
        pid = await _pid_file(tmp_path / "job.pid")
        await conn.cancel(session_id=sid)
        assert (await prompt).stop_reason == "cancelled"
        assert client.methods()[-2:] == ["terminal/kill", "terminal/release"]
        assert not _alive(pid) and client.terminals == {}


async def test_agent_edits_stop_reasons_and_a_scripted_model_error(tmp_path: Path) -> None:
    scenario = tmp_path / "edits.yaml"
    scenario.write_text("""\
name: acp_edits
initialPrompt: Update the changelog
timeline:
  - llmResponse:
      - assistant: [[0, "Updating."]]
  - agentEdits: {path: CHANGELOG.md, linesAdded: 2, linesRemoved: 1}
  - llmResponse:
      - assistant: [[0, "Out of room"]]
    _meta: {stopReason: length}
  - userInputs: [[0, "again"]]
  - llmResponse:
      - error: {statusCode: 429, message: slow down}
""")
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "CHANGELOG.md").write_text("old\nkept\n")
    client = JudgeClient()
    async with spawn_acp_agent(client, scenario) as (conn, _proc):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=capabilities())
        sid = (await conn.new_session(cwd=str(ws), mcp_servers=[])).session_id
        first = await conn.prompt(session_id=sid, prompt=[text_block("Update the changelog")])
        with pytest.raises(RequestError) as err:
            await conn.prompt(session_id=sid, prompt=[text_block("again")])
    assert first.stop_reason == "max_tokens" and first.field_meta is None
    assert client.methods() == ["fs/read_text_file", "fs/write_text_file"]
    assert (ws / "CHANGELOG.md").read_text() == ("line 1 added by the autocue mock agent\n"
                                                 "line 2 added by the autocue mock agent\nkept\n")
    [edit] = [u for u in client.updates if u.session_update == "tool_call"]
    assert (edit.kind, edit.title) == ("edit", "Edit CHANGELOG.md")
    assert err.value.code == -32603 and "the scripted model call failed: 429 slow down" in str(err.value)
