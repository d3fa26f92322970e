"""A wire API over a WebSocket (OpenAI Responses' WebSocket mode, which Codex uses by default).

The protocol (``protocol.py``) frames the connection and hands the app an ASGI ``websocket``
scope; ``SocketSession`` serves it for the API whose ``websocket_paths`` hold the path
(``WireApi.socket``, a ``SocketMode``: the frames and events of that API). Per text frame (the
frames of one lane, ``stream_id``, in order, one turn at a time; lanes side by side, each
turn's events tagged with its lane):

- the API's mode turns the frame into the body an HTTP ``POST`` would carry (a frame that
  continues an earlier response by its id gets that response's history in front of its new
  items: ``Contexts``, a bounded LRU per server), or refuses it (an error event);
- the body goes the HTTP way (``MockApp.handle``: the session key from the upgrade request's
  headers, validation, history caching, the scenario's next step, the journal (``transport:
  websocket``), ``expect``, chaos, fuzzing), streamed;
- each event of the streamed answer is one JSON text frame (no SSE framing); an HTTP error
  answer (a scripted error, an exhausted scenario, a malformed request) is one error event with
  its status; the event that ends a response stores its context under its id.

A frame that is not JSON gets an error event; a binary frame closes the socket (1003); the
client's close is answered in kind (1000); a message above the server's limit is closed by
the protocol (1009), a server bug with 1011. Chaos acts on the connection: a reset (or a cut
reply, which never completes) closes the socket mid-stream without a close frame; an injected
error status becomes an error event.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import AsyncIterator
from typing import Any, Protocol

import orjson

from autocue.mockllm.asgi import Message, Receive, Request, Response, Scope, Send, StreamingResponse
from autocue.mockllm.ids import make_id
from autocue.mockllm.wire.api import SocketMode, SocketRefusal, WireApi

CONTEXTS = 512
"""Responses whose context a server keeps for ``previous_response_id`` (least recently used go first)."""
TRANSPORT_KEY = "autocue_transport"
log = logging.getLogger(__name__)


class Contexts:
    """Each response's history (its input and output) by response id, the last ``cap`` kept."""

    def __init__(self, cap: int = CONTEXTS) -> None:
        self.cap = cap
        self.items: OrderedDict[str, list[Any]] = OrderedDict()
        self.warmups = 0

    def warmup_id(self) -> str:
        """A new response id for a warm-up (the server's n-th: deterministic for a run)."""
        self.warmups += 1
        return make_id("resp_", "warmup", self.warmups)

    def get(self, rid: str) -> list[Any] | None:
        got = self.items.get(rid)
        if got is not None:
            self.items.move_to_end(rid)
        return got

    def put(self, rid: str, history: list[Any]) -> None:
        self.items[rid] = history
        self.items.move_to_end(rid)
        while len(self.items) > self.cap:
            self.items.popitem(last=False)


class SocketHost(Protocol):
    """What a socket session uses of the app (``MockApp``)."""

    socket_contexts: Contexts

    async def handle(self, request: Request, wire: WireApi, model: str | None, stream: bool | None) -> Response: ...


class SocketSession:
    """One accepted WebSocket of ``api`` (see the module's doc)."""

    def __init__(self, app: SocketHost, api: WireApi, mode: SocketMode, scope: Scope, receive: Receive,
                 send: Send) -> None:
        self.app = app
        self.api = api
        self.mode = mode
        self.scope = scope
        self.receive = receive
        self._send = send
        self.open = True

    async def run(self) -> None:
        if (await self.receive())["type"] != "websocket.connect":
            return
        await self._send({"type": "websocket.accept"})
        lanes: dict[str | None, asyncio.Queue[dict[str, Any]]] = {}
        tasks: list[asyncio.Task[None]] = []
        try:
            while self.open:
                message = await self.receive()
                if message["type"] == "websocket.disconnect":
                    return
                text = message.get("text")
                if text is None:
                    await self.close(1003, "binary frames are not taken: send JSON text frames")
                    return
                try:
                    frame = orjson.loads(text)
                except orjson.JSONDecodeError as e:
                    await self.refuse(SocketRefusal(400, f"the frame is not JSON: {e}", "invalid_json"))
                    continue
                if not isinstance(frame, dict):
                    await self.refuse(SocketRefusal(400, f"the frame must be a JSON object, got "
                                                         f"{type(frame).__name__}", "invalid_request"))
                    continue
                lane = frame.get("stream_id")
                key = lane if isinstance(lane, str) else None
                queue = lanes.get(key)
                if queue is None:  # a lane's turns run in order; lanes run side by side
                    queue = lanes[key] = asyncio.Queue()
                    tasks.append(asyncio.ensure_future(self._lane(queue)))
                queue.put_nowait(frame)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _lane(self, queue: asyncio.Queue[dict[str, Any]]) -> None:
        while self.open:
            frame = await queue.get()
            try:
                await self.turn(frame)
            except Exception:  # a bug in the server: the socket closes as the protocol says for one
                log.exception("autocue mock LLM: internal error answering a WebSocket frame on %s", self.scope["path"])
                if self.open:
                    await self.close(1011, "internal error")

    async def turn(self, frame: dict[str, Any]) -> None:
        contexts: Contexts = self.app.socket_contexts
        got = self.mode.turn(frame, contexts.get)
        if isinstance(got, SocketRefusal):
            await self.refuse(got)
            return
        if not got.generate:  # a warm-up: no scripted reply, only a response id to continue
            for event in self.mode.warmup(got.body, contexts.warmup_id()):
                done = self.mode.finished(event, got.body)
                if done is not None:
                    contexts.put(*done)
                await self.event(event, got.lane)
            return
        call = self.api.call(self.scope["path"])
        response = await self.app.handle(_post(self.scope, orjson.dumps(got.body)), self.api,
                                         call.model if call is not None else None, True)
        media = dict(response.raw_headers).get(b"content-type", b"")
        if response.status != 200 or not media.startswith(b"text/event-stream"):
            if not response.body and response.status >= 500:  # a chaos reset: the connection is gone
                self.open = False
                return
            try:
                body = orjson.loads(response.body)
            except orjson.JSONDecodeError:
                body = self.api.error_body(response.status, response.body.decode(errors="replace"))
            headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in response.raw_headers
                       if k not in (b"content-type", b"content-length")}
            await self.send(self.mode.error_event(response.status, body, headers, got.lane))
            return
        chunks = response.content if isinstance(response, StreamingResponse) else _one(response.body)
        ended = False
        async for payload in _events(chunks):
            if not self.open:
                break
            try:
                event = orjson.loads(payload)
            except orjson.JSONDecodeError:  # chaos: a malformed event goes as it is
                await self.send_text(payload.decode(errors="replace"))
                continue
            done = self.mode.finished(event, got.body)
            if done is not None:
                contexts.put(*done)
                ended = True
            await self.event(event, got.lane)
        aclose = getattr(chunks, "aclose", None)
        if aclose is not None:
            await aclose()
        if not ended and self.open:  # the reply was cut (chaos): the socket drops mid-response
            await self.drop()

    async def event(self, event: dict[str, Any], lane: str | None) -> None:
        if lane is not None:
            self.mode.tag(event, lane)
        await self.send_text(orjson.dumps(event).decode())

    async def refuse(self, refusal: SocketRefusal) -> None:
        body = self.api.error_body(refusal.status, refusal.message, code=refusal.code)
        if isinstance(body.get("error"), dict):
            body["error"]["param"] = refusal.param
        await self.send(self.mode.error_event(refusal.status, body, {}, refusal.lane))

    async def send(self, event: dict[str, Any]) -> None:
        await self.send_text(orjson.dumps(event).decode())

    async def send_text(self, text: str) -> None:
        if not self.open:
            return
        try:
            await self._send({"type": "websocket.send", "text": text})
        except OSError:  # the client left
            self.open = False

    async def close(self, code: int, reason: str) -> None:
        self.open = False
        await self._send({"type": "websocket.close", "code": code, "reason": reason})

    async def drop(self) -> None:
        """Close the connection without a close frame (the client sees an abnormal closure, 1006)."""
        transport = self.scope.get("state", {}).get(TRANSPORT_KEY)
        if transport is not None:
            self.open = False
            transport.abort()
        else:  # another server than autocue's: the nearest an ASGI app can say
            await self.close(1011, "the reply was cut")


def _post(scope: Scope, raw: bytes) -> Request:
    """The frame's body as the ``POST`` HTTP would send, with the upgrade request's headers."""
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if sent:
            await asyncio.Future()  # nothing more: the session reads no further body
        sent = True
        return {"type": "http.request", "body": raw, "more_body": False}

    http = {**scope, "type": "http", "method": "POST", "autocue_via": "websocket",
            "headers": [(k, v) for k, v in scope["headers"] if k not in (b"content-length", b"content-type")]}
    return Request(http, receive)


async def _one(body: bytes) -> AsyncIterator[bytes]:
    yield body


async def _events(chunks: Any) -> AsyncIterator[bytes]:
    """The ``data`` of each SSE event in the streamed chunks, as each event completes."""
    buf = held = b""
    async for chunk in chunks:
        text = (held + chunk).replace(b"\r\n", b"\n")
        held = b"\r" if text.endswith(b"\r") else b""  # maybe half of a CRLF
        buf += (text[:-1] if held else text).replace(b"\r", b"\n")
        while True:
            head, sep, rest = buf.partition(b"\n\n")
            if not sep:
                break
            buf = rest
            data = [line[5:].lstrip(b" ") for line in head.split(b"\n") if line.startswith(b"data:")]
            if data:
                yield b"\n".join(data)
    if buf.strip():  # a cut stream's last, unfinished event
        data = [line[5:].lstrip(b" ") for line in buf.split(b"\n") if line.startswith(b"data:")]
        if data:
            yield b"\n".join(data)
