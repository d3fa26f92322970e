"""``autocue -p`` and ``--mode json`` as subprocesses against a loopback Chat Completions server."""

from __future__ import annotations

import json
from pathlib import Path

from cli_helpers import chat_text, chat_tool, run_cli, setup_home
from provider_wire_server import WireServer, json_reply


def test_print_mode_answers_and_writes_a_session(tmp_path: Path, server: WireServer) -> None:
    env = setup_home(tmp_path, server)
    work = tmp_path / "work"
    work.mkdir()
    server.push(chat_text("Hello there"))
    r = run_cli(["-p", "say hello"], env, work)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "Hello there\n"
    req = server.requests[0]
    assert req.path == "/v1/chat/completions" and req.headers["authorization"] == "Bearer k-test"
    assert req.body["model"] == "mock-gpt" and req.body["messages"][-1] == {
        "role": "user", "content": [{"type": "text", "text": "say hello"}]
    }
    files = list((tmp_path / "home" / "sessions").glob("*/*.jsonl"))
    assert len(files) == 1
    slug = files[0].parent.name
    assert slug == "--" + str(work)[1:].replace("/", "-") + "--"
    lines = [json.loads(x) for x in files[0].read_text().splitlines()]
    assert lines[0]["type"] == "session" and lines[0]["version"] == 3 and lines[0]["cwd"] == str(work)
    msgs = [e["message"] for e in lines if e["type"] == "message"]
    assert [m["role"] for m in msgs] == ["user", "assistant"]
    assert msgs[1]["content"] == [{"type": "text", "text": "Hello there"}] and msgs[1]["provider"] == "mock"

    # --continue resumes that file and sends the earlier turn again
    server.push(chat_text("Again"))
    r2 = run_cli(["-p", "--continue", "once more"], env, work)
    assert r2.returncode == 0, r2.stderr
    assert r2.stdout == "Again\n"
    sent = server.requests[1].body["messages"]
    assert [m["role"] for m in sent[1:]] == ["user", "assistant", "user"]
    assert list((tmp_path / "home" / "sessions").glob("*/*.jsonl")) == files
    assert len([x for x in files[0].read_text().splitlines() if '"type":"message"' in x]) == 4


def test_print_mode_error_exits_1_with_message(tmp_path: Path, server: WireServer) -> None:
    env = setup_home(tmp_path, server)
    server.push(json_reply({"error": {"message": "model not found", "type": "invalid_request_error"}}, 400))
    r = run_cli(["-p", "--no-session", "hi"], env, tmp_path)
    assert r.returncode == 1
    assert r.stdout == ""
    assert "400 invalid_request_error: model not found" in r.stderr
    assert not (tmp_path / "home" / "sessions").exists()


def test_print_mode_retries_529_then_answers(tmp_path: Path, server: WireServer) -> None:
    env = setup_home(tmp_path, server)
    server.push(
        json_reply({"error": {"message": "Overloaded", "type": "overloaded_error"}}, 529, {"retry-after-ms": "1"}),
        chat_text("after retry"),
    )
    r = run_cli(["-p", "--no-session", "hi"], env, tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "after retry\n" and len(server.requests) == 2


def test_json_mode_tool_round_trip(tmp_path: Path, server: WireServer) -> None:
    env = setup_home(tmp_path, server)
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text("the secret is 42\n")
    server.push(chat_tool("read", {"path": "notes.txt"}), chat_text("It is 42."))
    r = run_cli(["--mode", "json", "--tools", "read", "--no-session", "what is the secret?"], env, work)
    assert r.returncode == 0, r.stderr
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert lines[0]["type"] == "session" and lines[0]["cwd"] == str(work)
    kinds = [x["type"] for x in lines[1:]]
    assert kinds[0] == "agent_start" and kinds[-1] == "agent_end"
    assert "tool_execution_start" in kinds and "tool_execution_end" in kinds
    updates = [x["assistantMessageEvent"]["type"] for x in lines if x["type"] == "message_update"]
    assert "toolcall_delta" in updates and "text_delta" in updates
    end = next(x for x in lines if x["type"] == "tool_execution_end")
    assert end["toolName"] == "read" and end["isError"] is False
    # the second request carries the tool call and its result
    sent = server.requests[1].body["messages"]
    assert sent[-2]["tool_calls"][0]["function"] == {"name": "read", "arguments": '{"path":"notes.txt"}'}
    assert sent[-1]["role"] == "tool" and sent[-1]["tool_call_id"] == "call_1" and "42" in sent[-1]["content"]
    assert [t["function"]["name"] for t in server.requests[0].body["tools"]] == ["read"]


def test_cli_errors_are_clear(tmp_path: Path, server: WireServer) -> None:
    env = setup_home(tmp_path, server)
    r = run_cli(["-p", "--model", "nope/x", "hi"], env, tmp_path)
    assert r.returncode == 1 and "unknown provider 'nope'" in r.stderr
    r = run_cli(["-p", "--thinking", "huge", "hi"], env, tmp_path)
    assert r.returncode == 1 and "--thinking huge" in r.stderr
    r = run_cli(["-p"], env, tmp_path, stdin="")
    assert r.returncode == 1 and "no prompt" in r.stderr
    r = run_cli(["-p", "--tools", "nosuch", "--no-session", "hi"], env, tmp_path)
    assert r.returncode == 1 and "unknown tool(s) nosuch" in r.stderr


def test_piped_stdin_is_the_prompt(tmp_path: Path, server: WireServer) -> None:
    env = setup_home(tmp_path, server)
    server.push(chat_text("piped ok"))
    r = run_cli(["--no-session"], env, tmp_path, stdin="from stdin\n")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "piped ok\n"
    assert server.requests[0].body["messages"][-1]["content"] == [{"type": "text", "text": "from stdin\n"}]
