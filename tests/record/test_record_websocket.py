"""``autocue record`` relaying a Responses WebSocket, frames as Codex sends them: a ``generate: false``
warm-up (not a turn), then turns continuing by ``previous_response_id`` with only the new items. The
upstream is a mock server on loopback playing a scenario; the recording replays the same events."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from autocue.mockllm.server import serve
from autocue.record import RecordingServer
from autocue.scenario import load_scenario

UPSTREAM = """\
name: upstream-files
initialPrompt: list the files
timeline:
  - llmResponse:
      - assistant: [[0, "Let me look."]]
      - agentToolUse: {toolName: bash, toolCallId: call_ls, args: {command: ls}}
  - llmResponse:
      - assistant: [[0, "Two files."]]
"""
KEY = "sk-live-websocket-0123456789abcdef"
TOOLS = [{"type": "function", "name": "bash", "parameters": {"type": "object"}, "strict": False}]


def codex_like(base_url: str, key: str) -> list[list[tuple[str, Any]]]:
    """A warm-up and two turns on one socket; per response, its (event type, text or call) pairs."""
    dev = {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "be brief"}]}
    user = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "list the files"}]}
    seen: list[list[tuple[str, Any]]] = []
    url = base_url.replace("http://", "ws://") + "/v1/responses"
    with connect(url, additional_headers={"Authorization": f"Bearer {key}"}) as ws:
        prev = None
        for extra in ({"input": [dev], "generate": False}, {"input": [user]}, {"input": "result"}):
            frame: dict[str, Any] = {"type": "response.create", "model": "m", "stream": True, "tools": TOOLS, **extra}
            if prev is not None:
                frame["previous_response_id"] = prev
            if extra["input"] == "result":
                frame["input"] = [{"type": "function_call_output", "call_id": "call_ls", "output": "a b"}]
            ws.send(json.dumps(frame))
            events: list[tuple[str, Any]] = []
            while True:
                ev = json.loads(ws.recv(timeout=10))
                events.append((ev["type"], ev.get("delta") or (ev.get("item") or {}).get("name")))
                if ev["type"] in ("response.completed", "error"):
                    prev = ev.get("response", {}).get("id")
                    break
            seen.append(events)
    return seen


def test_a_relayed_socket_is_recorded_turn_by_turn_and_replays_the_same(tmp_path: Path) -> None:
    upstream = tmp_path / "upstream.yaml"
    upstream.write_text(UPSTREAM)
    with serve(upstream) as up:
        direct = codex_like(up.base_url, KEY + "-direct")
        with RecordingServer(upstream=up.base_url, out_dir=tmp_path / "rec") as rec:
            proxied = codex_like(rec.base_url, KEY)
            files = rec.files
        assert [e["transport"] for e in up.session(KEY)["journal"]] == ["websocket", "websocket"]
    assert proxied == direct
    [path] = files
    text = path.read_text()
    assert KEY not in text
    sc = load_scenario(path)
    assert sc.initial_prompt == "list the files"
    assert [len(t.steps) for t in sc.compile().turns] == [2]  # the warm-up is no turn
    with serve(path) as replay:
        assert codex_like(replay.base_url, "replay-key-123") == proxied
        assert replay.session("replay-key-123")["remaining"] == 0


def test_the_proxy_answers_426_where_no_websocket_mode_is(tmp_path: Path) -> None:
    upstream = tmp_path / "upstream.yaml"
    upstream.write_text(UPSTREAM)
    with serve(upstream) as up, RecordingServer(upstream=up.base_url, out_dir=tmp_path / "rec") as rec:
        with pytest.raises(InvalidStatus) as refused:
            connect(rec.base_url.replace("http://", "ws://") + "/v1/chat/completions")
        assert refused.value.response.status_code == 426
