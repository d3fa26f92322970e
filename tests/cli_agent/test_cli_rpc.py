"""``autocue --mode rpc`` as a subprocess: commands, streamed events and the extension UI exchange."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from cli_helpers import chat_text, chat_tool, setup_home
from provider_wire_server import WireServer

EXTENSION = """
def extension(api):
    async def on_tool_call(event, ctx):
        ok = await ctx.ui.confirm("Allow " + event.tool_name + "?", "path: " + str(event.input.get("path")))
        ctx.ui.notify("decided: " + str(ok))
        if not ok:
            return {"block": True, "reason": "user said no"}

    api.on("tool_call", on_tool_call)
    api.register_command("hello", {"description": "say hello", "handler": lambda args, ctx: None})
"""


class Rpc:
    def __init__(self, args: list[str], env: dict[str, str], cwd: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "autocue.cli.main", "--mode", "rpc", *args],
            env=env,
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.lines: queue.Queue[Any] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.seen: list[dict[str, Any]] = []

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(json.loads(line))
        self.lines.put(None)

    def send(self, obj: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(obj).encode() + b"\n")
        self.proc.stdin.flush()

    def until(self, pred: Any, timeout: float = 30) -> dict[str, Any]:
        while True:
            item = self.lines.get(timeout=timeout)
            if item is None:
                raise AssertionError(f"rpc ended early; stderr: {self.proc.stderr.read().decode()}")  # type: ignore[union-attr]
            self.seen.append(item)
            if pred(item):
                return item

    def response(self, rid: str) -> dict[str, Any]:
        return self.until(lambda x: x.get("type") == "response" and x.get("id") == rid)

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        return self.proc.wait(30)


def test_rpc_round_trip_with_ui_confirm(tmp_path: Path, server: WireServer) -> None:
    env = setup_home(tmp_path, server)
    work = tmp_path / "work"
    work.mkdir()
    (work / "a.txt").write_text("alpha\n")
    ext = tmp_path / "confirm_ext.py"
    ext.write_text(EXTENSION)
    server.push(
        chat_tool("read", {"path": "a.txt"}),
        chat_text("Read it: alpha"),
        chat_tool("read", {"path": "a.txt"}, "call_2"),
        chat_text("Blocked, fine."),
    )
    rpc = Rpc(["--extension", str(ext), "--tools", "read", "--no-session"], env, work)
    try:
        rpc.send({"id": "s1", "type": "get_state"})
        st = rpc.response("s1")
        assert st["success"] is True and st["data"]["model"]["id"] == "mock-gpt"
        assert st["data"]["isStreaming"] is False and st["data"]["thinkingLevel"] == "off"

        rpc.send({"id": "p1", "type": "prompt", "message": "read a.txt"})
        assert rpc.response("p1")["success"] is True
        req = rpc.until(lambda x: x.get("type") == "extension_ui_request" and x.get("method") == "confirm")
        assert req["title"] == "Allow read?" and req["message"] == "path: a.txt"
        rpc.send({"type": "extension_ui_response", "id": req["id"], "confirmed": True})
        note = rpc.until(lambda x: x.get("type") == "extension_ui_request" and x.get("method") == "notify")
        assert note["message"] == "decided: True"
        end = rpc.until(lambda x: x.get("type") == "tool_execution_end")
        assert end["isError"] is False
        rpc.until(lambda x: x.get("type") == "agent_end")
        assert "alpha" in server.requests[1].body["messages"][-1]["content"]

        # second prompt: the client cancels the dialog -> the tool call is blocked
        rpc.send({"id": "p2", "type": "prompt", "message": "again"})
        req2 = rpc.until(lambda x: x.get("type") == "extension_ui_request" and x.get("method") == "confirm")
        rpc.send({"type": "extension_ui_response", "id": req2["id"], "cancelled": True})
        end2 = rpc.until(lambda x: x.get("type") == "tool_execution_end")
        assert end2["isError"] is True
        rpc.until(lambda x: x.get("type") == "agent_end")
        assert "user said no" in server.requests[3].body["messages"][-1]["content"]

        rpc.send({"id": "m1", "type": "get_messages"})
        msgs = rpc.response("m1")["data"]["messages"]
        assert [m["role"] for m in msgs] == ["user", "assistant", "toolResult", "assistant"] * 2
        rpc.send({"id": "t1", "type": "get_last_assistant_text"})
        assert rpc.response("t1")["data"] == {"text": "Blocked, fine."}
        rpc.send({"id": "c1", "type": "get_commands"})
        assert any(c["name"] == "hello" for c in rpc.response("c1")["data"]["commands"])
        rpc.send({"id": "b1", "type": "bash", "command": "echo hi-from-bash"})
        bash = rpc.response("b1")["data"]
        assert bash["output"] == "hi-from-bash\n" and bash["exitCode"] == 0
        rpc.send({"id": "x1", "type": "nonsense"})
        assert rpc.response("x1") == {
            "id": "x1",
            "type": "response",
            "command": "nonsense",
            "success": False,
            "error": "Unknown command: nonsense",
        }
        assert rpc.proc.stdin is not None
        rpc.proc.stdin.write(b"{not json\n")
        rpc.proc.stdin.flush()
        bad = rpc.until(lambda x: x.get("type") == "response" and x.get("command") == "parse")
        assert bad["success"] is False
        rpc.send({"id": "sm", "type": "set_model", "provider": "mock", "modelId": "zzz"})
        assert rpc.response("sm")["data"]["id"] == "zzz"
        rpc.send({"id": "th", "type": "set_thinking_level", "level": "bogus"})
        assert rpc.response("th")["success"] is False
    finally:
        code = rpc.close()
    assert code == 0


def test_rpc_abort_mid_stream(tmp_path: Path, server: WireServer) -> None:
    from provider_wire_server import Reply, sse

    env = setup_home(tmp_path, server)
    server.push(
        Reply(
            chunks=[
                sse(
                    None,
                    {"id": "c", "choices": [{"index": 0, "delta": {"content": "Partial"}, "finish_reason": None}]},
                )
            ],
            hold=True,
        )
    )
    rpc = Rpc(["--no-session", "--no-tools"], env, tmp_path)
    try:
        rpc.send({"id": "p", "type": "prompt", "message": "talk"})
        rpc.until(lambda x: x.get("type") == "message_update" and x["assistantMessageEvent"]["type"] == "text_delta")
        rpc.send({"id": "a", "type": "abort"})
        end = rpc.until(lambda x: x.get("type") == "message_end" and x["message"]["role"] == "assistant")
        assert end["message"]["stopReason"] == "aborted"
        assert end["message"]["content"] == [{"type": "text", "text": "Partial"}]
        assert rpc.response("a")["success"] is True
        rpc.send({"id": "s", "type": "get_state"})
        assert rpc.response("s")["data"]["isStreaming"] is False
    finally:
        code = rpc.close()
    assert code == 0
    for _ in range(100):
        if server.closed_early:
            break
        import time

        time.sleep(0.02)
    assert server.closed_early == 1
