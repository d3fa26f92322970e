"""OpenAI Responses over a WebSocket (``GET /v1/responses`` upgraded) against a real server on loopback.

The judge is the official client's WebSocket mode (``client.responses.connect()``); where it cannot say
something (a binary or malformed frame, close codes, what Codex sends: ``stream: true``, a
``generate: false`` warm-up) the ``websockets`` client sends the frames itself."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import openai
import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import ClientConnection, connect

from autocue.mockllm import MockLLMServer, serve

TOOLS: Any = [{"type": "function", "name": "bash", "parameters": {"type": "object"}, "strict": False}]

SCENARIO = """\
name: files
initialPrompt: list the files
server: {llmApiStyle: responses}
timeline:
  - llmResponse:
      - think: [[0, "I should run ls."]]
      - assistant: [[0, "Let me look."]]
      - agentToolUse: {toolName: bash, args: {command: ls}}
  - llmResponse:
      - assistant: [[0, "There are two files: a.txt and b.txt."]]
"""

RATE_LIMITED = """\
name: busy
initialPrompt: hello
timeline:
  - llmResponse:
      - error: {statusCode: 429, message: slow down, retryAfterSeconds: 1}
  - llmResponse:
      - assistant: [[0, "made it"]]
"""


@pytest.fixture
def files(tmp_path: Path) -> Iterator[MockLLMServer]:
    path = tmp_path / "files.yaml"
    path.write_text(SCENARIO)
    with serve(path) as server:
        yield server


def client(server: MockLLMServer, key: str = "k", **kw: Any) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.openai_base_url, api_key=key, **kw)


def until_done(conn: Any) -> list[Any]:
    """The events of one response (up to its ``response.completed``, or an error)."""
    events = []
    for ev in conn:
        events.append(ev)
        if ev.type in ("response.completed", "response.incomplete", "error"):
            return events
    raise AssertionError(f"the socket closed after {[e.type for e in events]}")


def journal(server: MockLLMServer, key: str) -> list[dict[str, Any]]:
    r = httpx2.get(f"{server.base_url}/_autocue/sessions/{key}/requests")
    assert r.status_code == 200, r.text
    entries: list[dict[str, Any]] = r.json()["requests"]
    return entries


def raw(server: MockLLMServer, path: str = "/v1/responses", key: str = "k", chaos: str | None = None,
        **kw: Any) -> ClientConnection:
    url = server.base_url.replace("http://", "ws://") + path
    headers = {"Authorization": f"Bearer {key}"} | ({"x-autocue-chaos": chaos} if chaos else {})
    return connect(url, additional_headers=headers, **kw)


def frames(ws: ClientConnection) -> list[dict[str, Any]]:
    out = []
    while True:
        ev = json.loads(ws.recv(timeout=10))
        out.append(ev)
        if ev["type"] in ("response.completed", "response.incomplete", "error"):
            return out


# ---------------------------------------------------------------------- the official client
@pytest.mark.surface("WEBSOCKET /v1/responses", client="openai")
def test_a_tool_round_trip_continues_by_previous_response_id_with_only_the_new_input(files: MockLLMServer) -> None:
    with client(files).responses.connect() as conn:
        conn.response.create(model="m", input="list the files", tools=TOOLS)
        first = until_done(conn)
        done = first[-1].response
        assert [o.type for o in done.output] == ["reasoning", "message", "function_call"]
        call = done.output[2]
        assert (call.name, json.loads(call.arguments)) == ("bash", {"command": "ls"})
        deltas = "".join(e.delta for e in first if e.type == "response.output_text.delta")
        assert deltas == "Let me look."
        conn.response.create(model="m", previous_response_id=done.id, tools=TOOLS,
                             input=[{"type": "function_call_output", "call_id": call.call_id, "output": "a.txt b.txt"}])
        second = until_done(conn)
    final = second[-1].response
    assert final.output_text == "There are two files: a.txt and b.txt."
    assert final.previous_response_id == done.id
    turns = journal(files, "k")
    assert [(t["transport"], t["outcome"], t["reply"]) for t in turns] == [("websocket", "reply", 1),
                                                                           ("websocket", "reply", 2)]
    # the second request is the whole conversation, as HTTP would have carried it
    types = [i.get("type", "message") for i in turns[1]["body"]["input"]]
    assert types == ["message", "reasoning", "message", "function_call", "function_call_output"]
    assert turns[1]["last"]["text"] == "a.txt b.txt"


def test_http_sse_and_the_websocket_send_the_same_events(files: MockLLMServer) -> None:
    c = client(files, key="over-http")
    http_events = [e.model_dump(exclude={"sequence_number"})
                   for e in c.responses.create(model="m", input="list the files", tools=TOOLS, stream=True)]
    with client(files, key="over-ws").responses.connect() as conn:
        conn.response.create(model="m", input="list the files", tools=TOOLS)
        ws_events = [e.model_dump(exclude={"sequence_number", "stream_id"}) for e in until_done(conn)]

    def same(events: list[dict[str, Any]]) -> list[str]:
        return [json.dumps(e, sort_keys=True).replace("over-http", "K").replace("over-ws", "K") for e in events]

    assert [e["type"] for e in ws_events] == [e["type"] for e in http_events]
    # the ids are the session's (its key differs), the timestamps the second's: compare the rest
    strip = {"id", "item_id", "created_at", "completed_at", "encrypted_content", "call_id"}

    def scrub(v: Any) -> Any:
        if isinstance(v, dict):
            return {k: scrub(x) for k, x in v.items() if k not in strip}
        if isinstance(v, list):
            return [scrub(x) for x in v]
        return v

    assert same([scrub(e) for e in ws_events]) == same([scrub(e) for e in http_events])


def test_an_unknown_previous_response_is_an_error_event_and_the_socket_stays_usable(files: MockLLMServer) -> None:
    with client(files).responses.connect() as conn:
        conn.response.create(model="m", previous_response_id="resp_nope", input="hi")
        [err] = until_done(conn)
        assert err.type == "error" and err.status == 400
        assert (err.error.code, err.error.param, err.error.type) == ("previous_response_not_found",
                                                                      "previous_response_id", "invalid_request_error")
        assert "resp_nope" in err.error.message
        conn.response.create(model="m", input="list the files", tools=TOOLS)
        assert until_done(conn)[-1].type == "response.completed"


def test_a_scripted_429_is_an_error_event_with_its_status_and_retry_after(tmp_path: Path) -> None:
    path = tmp_path / "busy.yaml"
    path.write_text(RATE_LIMITED)
    with serve(path) as server, client(server).responses.connect() as conn:
        conn.response.create(model="m", input="hello")
        [err] = until_done(conn)
        assert (err.type, err.status, err.error.type, err.error.message) == ("error", 429, "rate_limit_exceeded",
                                                                            "slow down")
        assert err.error.headers is not None and err.error.headers["retry-after"] == "1"
        conn.response.create(model="m", input="hello")  # the client's retry gets the reply
        assert until_done(conn)[-1].response.output_text == "made it"
        assert [(t["status"], t["transport"]) for t in journal(server, "k")] == [(429, "websocket"), (200, "websocket")]


def test_lanes_tag_every_event_with_their_stream_id(files: MockLLMServer) -> None:
    with client(files).responses.connect() as conn:
        conn.response.create(model="m", input="list the files", tools=TOOLS, stream_id="lane-a")
        events = until_done(conn)
        assert {e.stream_id for e in events} == {"lane-a"}
        conn.response.create(model="m", previous_response_id="resp_gone", input="x", stream_id="lane-b")
        [err] = until_done(conn)
        assert (err.type, err.stream_id) == ("error", "lane-b")


def test_lanes_run_side_by_side_on_one_socket(tmp_path: Path) -> None:
    """Two lanes (``stream_id``) of one socket stream at once: the second lane's reply starts before the
    first lane's ends; each lane's events are its own, in order."""
    path = tmp_path / "slow.yaml"
    path.write_text("name: slow\ninitialPrompt: go\ntimeline:\n"
                    "  - llmResponse:\n      - assistant: [[0, 'first '], [400, 'reply']]\n"
                    "  - llmResponse:\n      - assistant: [[0, 'second '], [400, 'reply']]\n")
    with serve(path, speed=1.0) as server, raw(server) as ws:
        for lane in ("a", "b"):
            ws.send(json.dumps({"type": "response.create", "input": "go", "stream_id": lane}))
        order: list[tuple[str, str]] = []
        while sum(t == "response.completed" for _, t in order) < 2:
            ev = json.loads(ws.recv(timeout=10))
            order.append((ev["stream_id"], ev["type"]))
    assert order.index(("b", "response.created")) < order.index(("a", "response.completed"))
    for lane in ("a", "b"):
        mine = [t for s, t in order if s == lane]
        assert mine[0] == "response.created" and mine[-1] == "response.completed"


# ---------------------------------------------------------------------- what Codex sends
def test_codex_frames_a_warm_up_then_a_turn_continuing_it(files: MockLLMServer) -> None:
    """Codex sends ``stream: true`` and first a ``generate: false`` warm-up with its instructions, which
    takes no scripted reply; its first turn continues the warm-up with the new items only."""
    dev = {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "be brief"}]}
    user = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "list the files"}]}
    with raw(files) as ws:
        ws.send(json.dumps({"type": "response.create", "model": "m", "stream": True, "store": False,
                            "input": [dev], "tools": TOOLS, "generate": False}))
        warm = frames(ws)
        assert [e["type"] for e in warm] == ["response.created", "response.completed"]
        assert warm[-1]["response"]["output"] == []
        ws.send(json.dumps({"type": "response.create", "model": "m", "stream": True, "store": False, "tools": TOOLS,
                            "previous_response_id": warm[-1]["response"]["id"], "input": [user]}))
        turn = frames(ws)
    assert turn[-1]["type"] == "response.completed"
    assert all("stream_id" not in e for e in turn)
    [entry] = journal(files, "k")
    assert (entry["reply"], entry["messages"], entry["body"]["input"]) == (1, 2, [dev, user])


def test_a_frame_that_is_not_json_gets_an_error_event_and_a_binary_frame_closes_1003(files: MockLLMServer) -> None:
    with raw(files) as ws:
        ws.send("{not json")
        [err] = frames(ws)
        assert (err["type"], err["status"], err["error"]["code"]) == ("error", 400, "invalid_json")
        ws.send(json.dumps({"type": "response.cancel"}))
        [err] = frames(ws)
        assert (err["error"]["code"], err["error"]["param"]) == ("invalid_event", "type")
        ws.send(json.dumps({"type": "response.create", "input": [{"role": "robot", "content": "hi"}]}))
        [err] = frames(ws)
        assert err["status"] == 400 and "input[0].role" in err["error"]["message"]
        ws.send(b"\x00\x01")
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1003


def test_the_clients_close_is_answered_1000(files: MockLLMServer) -> None:
    with raw(files) as ws:
        ws.close(1000)
    assert ws.protocol.close_rcvd is not None and ws.protocol.close_rcvd.code == 1000


def test_the_app_serves_the_websocket_under_plain_uvicorn_too(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The ASGI contract: uvicorn's own protocols (h11, and ``websockets-sansio`` for the socket) serve the app."""
    import uvicorn

    from autocue.mockllm import server as servers
    from autocue.mockllm.app import create_app
    from autocue.mockllm.state import MockState

    path = tmp_path / "files.yaml"
    path.write_text(SCENARIO)
    monkeypatch.setattr(servers, "uvicorn_config", lambda app, log_level="warning": uvicorn.Config(
        app, http="h11", ws="websockets-sansio", lifespan="off", log_level=log_level))
    with servers.LoopbackServer(create_app(MockState(path)), "127.0.0.1", 0) as server:
        conn_manager = openai.OpenAI(base_url=server.openai_base_url, api_key="plain").responses.connect()
        with conn_manager as conn:
            conn.response.create(model="m", input="list the files", tools=TOOLS)
            assert until_done(conn)[-1].response.output[1].content[0].text == "Let me look."


def test_a_message_above_the_limit_is_closed_1009(files: MockLLMServer) -> None:
    with raw(files, max_size=None) as ws:
        ws.send(json.dumps({"type": "response.create", "input": "x" * (16 * 1024 * 1024 + 10)}))
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=20)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009


def test_an_upgrade_on_a_path_without_websocket_mode_is_426(files: MockLLMServer) -> None:
    for path in ("/v1/chat/completions", "/v1/messages", "/_autocue/sessions"):
        with pytest.raises(InvalidStatus) as refused:
            raw(files, path)
        assert refused.value.response.status_code == 426, path


def test_the_session_and_scenario_prefixes_name_the_session(files: MockLLMServer) -> None:
    with raw(files, "/s/mine/scenario/files/v1/responses", key="ignored") as ws:
        ws.send(json.dumps({"type": "response.create", "input": "list the files", "tools": TOOLS}))
        assert frames(ws)[-1]["type"] == "response.completed"
    assert [t["transport"] for t in journal(files, "mine")] == ["websocket"]


# ---------------------------------------------------------------------- chaos
def test_a_chaos_reset_mid_response_drops_the_socket_and_a_new_one_gets_the_reply(files: MockLLMServer) -> None:
    with raw(files, chaos="reset=3") as ws:
        ws.send(json.dumps({"type": "response.create", "input": "list the files", "tools": TOOLS}))
        got = []
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                got.append(json.loads(ws.recv(timeout=10))["type"])
    assert got == ["response.created", "response.in_progress", "response.output_item.added"]
    assert closed.value.rcvd is None  # no close frame: an abnormal closure (1006)
    with raw(files) as ws:  # the step stays unplayed: the client's retry gets it
        ws.send(json.dumps({"type": "response.create", "input": "list the files", "tools": TOOLS}))
        assert frames(ws)[-1]["response"]["output"][1]["content"][0]["text"] == "Let me look."


def test_a_chaos_error_is_an_error_event(files: MockLLMServer) -> None:
    with raw(files, chaos="error=503") as ws:
        ws.send(json.dumps({"type": "response.create", "input": "list the files", "tools": TOOLS}))
        [err] = frames(ws)
    assert (err["status"], err["headers"]["x-autocue-error"]) == (503, "chaos")


def test_a_cut_reply_never_completes_and_drops_the_socket(files: MockLLMServer) -> None:
    with raw(files, chaos="cut=2") as ws:
        ws.send(json.dumps({"type": "response.create", "input": "list the files", "tools": TOOLS}))
        with pytest.raises(ConnectionClosed) as closed:
            for _ in range(10):
                ws.recv(timeout=10)
    assert closed.value.rcvd is None


# ---------------------------------------------------------------------- the protocol's ASGI WebSocket
class Probe:
    """An ASGI app answering a WebSocket by its path: ``/close`` before accepting, ``/deny`` with an HTTP
    answer, ``/boom`` failing after accepting, ``/echo`` echoing text frames until the client leaves."""

    def __init__(self) -> None:
        self.disconnect: list[int] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        assert scope["type"] == "websocket" and (await receive())["type"] == "websocket.connect"
        path = scope["path"]
        if path == "/close":
            await send({"type": "websocket.close", "code": 1008})
        elif path == "/deny":
            await send({"type": "websocket.http.response.start", "status": 401,
                        "headers": [(b"content-type", b"text/plain"), (b"content-length", b"2")]})
            await send({"type": "websocket.http.response.body", "body": b"no"})
        elif path == "/boom":
            await send({"type": "websocket.accept"})
            raise RuntimeError("a bug")
        else:
            await send({"type": "websocket.accept", "headers": [(b"x-probe", b"yes")]})
            while True:
                message = await receive()
                if message["type"] == "websocket.disconnect":
                    self.disconnect.append(message["code"])
                    return
                await send({"type": "websocket.send", "text": message["text"].upper()})


def test_the_protocol_hands_the_app_an_asgi_websocket() -> None:
    from autocue.mockllm.server import LoopbackServer

    probe = Probe()
    with LoopbackServer(probe, "127.0.0.1", 0) as server:
        base = server.base_url.replace("http://", "ws://")
        with pytest.raises(InvalidStatus) as closed:
            connect(base + "/close")
        assert closed.value.response.status_code == 403
        with pytest.raises(InvalidStatus) as denied:
            connect(base + "/deny")
        assert (denied.value.response.status_code, denied.value.response.body) == (401, b"no")
        with connect(base + "/boom") as ws, pytest.raises(ConnectionClosed) as failed:
            ws.recv(timeout=10)
        assert failed.value.rcvd is not None and failed.value.rcvd.code == 1011
        with connect(base + "/echo") as ws:
            assert ws.response is not None and ws.response.headers["x-probe"] == "yes"
            for word in ("hello", "x" * 200_000):  # a long message comes in several reads
                ws.send(word)
                assert ws.recv(timeout=10) == word.upper()
        deadline = time.monotonic() + 5
        while not probe.disconnect and time.monotonic() < deadline:
            time.sleep(0.01)
    assert probe.disconnect == [1000]


def test_a_stopping_server_closes_an_open_socket_1001(tmp_path: Path) -> None:
    path = tmp_path / "files.yaml"
    path.write_text(SCENARIO)
    server = MockLLMServer(path).start()
    try:
        ws = raw(server)
    finally:
        server.stop()
    with ws, pytest.raises(ConnectionClosed) as closed:
        ws.recv(timeout=10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1001
