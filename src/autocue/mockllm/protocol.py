"""The HTTP/1.1 protocol of autocue's servers: httptools (llhttp, C) calling the ASGI app
directly, without uvicorn's per-request cycle (an event, a task and a message check per
request: about a third of a short request's CPU).

uvicorn still runs the server (sockets, signals, graceful shutdown); this protocol is the
class it builds per connection (``uvicorn.Config(http=DirectHttpProtocol)``). Per request:

- the request head is parsed into the ASGI scope (``scope["state"]`` holds the connection's
  transport under ``autocue_transport``: chaos resets a connection through it);
- the app runs (one task per request) once the bytes received so far are parsed, so a
  request that arrived whole is answered without waiting for its body; an app that says it
  needs no current task (``needs_no_task``, as the mock server's does) starts in a loop
  callback instead and becomes a task only if it waits (most answers do not: no task);
- ``receive`` hands over the buffered body (``Expect: 100-continue`` gets its ``100`` when
  the app first asks for a body that has not come), then waits for the client to leave;
- ``send`` writes the head with the first body bytes: ``Content-Length`` when the body is
  whole, else chunked (HTTP/1.1) or close-delimited (HTTP/1.0); a ``HEAD`` answer has no
  body; a full write buffer makes ``send`` wait (flow control);
- keep-alive (closed after ``timeout_keep_alive`` idle seconds); pipelined requests answered
  in order, one at a time (reading pauses while one waits); a body the app did not read is
  read and dropped, so the connection stays usable; malformed HTTP gets a plain 400 and the
  connection closes;
- a WebSocket upgrade (``GET`` with ``Upgrade: websocket``, the only request on its
  connection so far) becomes an ASGI ``websocket`` scope: the framing (handshake, masking,
  fragments, ping/pong, ``permessage-deflate``, the closing handshake, messages above
  ``ws_max_size`` closed with 1009) is the sans-io ``websockets.server.ServerProtocol``'s; a
  handshake the library refuses (a missing key, a wrong version) is answered 400 without the
  app; an app that closes before accepting answers 403, and one that sends
  ``websocket.http.response`` answers with that response. Another ``Upgrade`` request is
  answered as plain HTTP (the app says 426) and the connection closes;
- the client leaving sets every waiting ``receive`` to ``http.disconnect``;
- on shutdown an idle connection closes at once, a busy one after its answer.
"""

from __future__ import annotations

import asyncio
import contextvars
import http
import logging
from collections import deque
from collections.abc import Coroutine, Generator
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

import httptools

from autocue.mockllm.asgi import ASGIApp, Message, Scope

if TYPE_CHECKING:
    from websockets.server import ServerProtocol

TRANSPORT_KEY = "autocue_transport"
log = logging.getLogger("uvicorn.error")
READ_BUFFER = 65536
"""Bytes read at most at once."""
HIGH_WATER = 65536
"""Unread request body bytes buffered before reading pauses."""
_STATUS: dict[int, bytes] = {int(code): f"HTTP/1.1 {code.value} {code.phrase}\r\n".encode() for code in http.HTTPStatus}
_BAD_REQUEST = (b"HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain; charset=utf-8\r\n"
                b"content-length: 29\r\nconnection: close\r\n\r\nInvalid HTTP request received")
_CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"
_DISCONNECT: Message = {"type": "http.disconnect"}
WS_MAX_SIZE = 16 * 1024 * 1024
"""The largest WebSocket message taken when the server's config names none (uvicorn's default)."""
WS_CLOSE_WAIT = 2.0
"""Seconds the server waits for the client's answer to its close frame before closing the TCP connection."""


def _status_line(code: int) -> bytes:
    return _STATUS.get(code) or f"HTTP/1.1 {code} \r\n".encode()


class _Exchange:
    """One request and its answer."""

    __slots__ = ("body", "buffered", "chunked", "complete", "conn", "disconnected", "done", "expect_100", "head",
                 "head_only", "keep_alive", "length", "read_all", "said_close", "scope", "started", "status", "task",
                 "waiters")

    def __init__(self, conn: DirectHttpProtocol, scope: Scope) -> None:
        self.conn = conn
        self.scope = scope
        self.body: list[bytes] = []
        self.buffered = 0
        self.complete = False
        """The whole request body has arrived."""
        self.read_all = False
        """The app was given the whole body."""
        self.expect_100 = False
        self.keep_alive = True
        self.head_only = False
        self.started = False
        self.head: bytes | None = None
        """The response head, written with the first body bytes."""
        self.chunked = False
        self.length: int | None = None
        self.done = False
        """The response is complete."""
        self.disconnected = False
        self.waiters: list[asyncio.Future[None]] = []
        """``receive`` calls waiting for body bytes or the end (a stream's watcher and a body read may wait at once)."""
        self.status = 0
        self.said_close = False
        self.task: asyncio.Task[None] | None = None
        """The task answering it."""

    def wake(self) -> None:
        if self.waiters:
            for waiter in self.waiters:
                if not waiter.done():
                    waiter.set_result(None)
            self.waiters = []

    async def receive(self) -> Message:
        while True:
            if self.disconnected or self.done:
                return _DISCONNECT
            if not self.read_all and (self.body or self.complete):
                body = self.body[0] if len(self.body) == 1 else b"".join(self.body)
                self.body = []
                self.buffered = 0
                self.read_all = self.complete
                self.conn.resume_reading()
                return {"type": "http.request", "body": body, "more_body": not self.complete}
            if self.expect_100:
                self.expect_100 = False
                self.conn.transport.write(_CONTINUE)
            self.conn.resume_reading()
            waiter = self.conn.loop.create_future()
            self.waiters.append(waiter)
            await waiter

    async def send(self, message: Message) -> None:
        kind = message["type"]
        if kind == "http.response.start":
            if self.started:
                raise RuntimeError(f"unexpected ASGI message {kind!r}: the response has started")
            self.started = True
            self._start(message["status"], message.get("headers", ()))
            return
        if kind != "http.response.body":
            raise RuntimeError(f"unexpected ASGI message {kind!r}")
        if not self.started or self.done:
            raise RuntimeError(f"unexpected ASGI message {kind!r}: " +
                               ("the response has not started" if not self.started else "the response is complete"))
        if self.disconnected:
            return
        body: bytes = message.get("body", b"")
        more: bool = message.get("more_body", False)
        out = b""
        if self.head is not None:
            out = self._head(len(body) if not more else None)
        if body and not self.head_only:
            if self.chunked:
                out += b"%x\r\n" % len(body) + body + b"\r\n"
            else:
                out += body
        if not more:
            if self.chunked and not self.head_only:
                out += b"0\r\n\r\n"
            self.done = True
        conn = self.conn
        if out:
            conn.transport.write(out)
        if self.done:
            self.wake()
            conn.finished(self)
        elif conn.write_paused is not None:
            await conn.drained()

    def _start(self, status: int, headers: Any) -> None:
        self.length = None
        parts = [_status_line(status)]
        for name, value in self.conn.server_state.default_headers:
            parts += [name, b": ", value, b"\r\n"]
        for name, value in headers:
            low = name.lower()
            if low == b"content-length":
                self.length = int(value)
            elif low == b"transfer-encoding":
                self.chunked = b"chunked" in value.lower()
            elif low == b"connection" and b"close" in value.lower():
                self.keep_alive = False
                self.said_close = True
            parts += [name, b": ", value, b"\r\n"]
        self.head = b"".join(parts)
        self.status = status

    def _head(self, whole: int | None) -> bytes:
        """The head to write, with the framing the first body message decides."""
        head = self.head or b""
        self.head = None
        extra = b""
        if self.length is None and not self.chunked and self.status >= 200 and self.status not in (204, 304):
            if whole is not None:
                extra = b"content-length: %d\r\n" % whole
            elif self.scope["http_version"] == "1.1":
                self.chunked = True
                extra = b"transfer-encoding: chunked\r\n"
            else:
                self.keep_alive = False
        if not self.keep_alive and not self.said_close:
            extra += b"connection: close\r\n"
        return head + extra + b"\r\n"


class DirectHttpProtocol(asyncio.BufferedProtocol, asyncio.Protocol):
    """One client connection (see the module's doc). Bytes are received into one buffer per
    connection (a ``BufferedProtocol``: asyncio then calls ``get_buffer``/``buffer_updated``), not
    a new 256 KB ``bytes`` per read."""

    def __init__(self, config: Any, server_state: Any, app_state: dict[str, Any],
                 _loop: asyncio.AbstractEventLoop | None = None) -> None:
        if not config.loaded:
            config.load()
        self.app: ASGIApp = config.loaded_app
        self.loop = _loop or asyncio.get_event_loop()
        self.root_path: str = config.root_path
        self.keep_alive_timeout: float = config.timeout_keep_alive
        self.server_state = server_state
        self.app_state = app_state
        self.parser = httptools.HttpRequestParser(self)
        try:  # answer the first of pipelined requests even when the client closes after sending them
            self.parser.set_dangerous_leniencies(lenient_data_after_close=True)
        except AttributeError:  # httptools < 0.6.3
            pass
        self.transport: asyncio.Transport = None  # type: ignore[assignment]
        self.buffer = memoryview(bytearray(READ_BUFFER))
        self.state: dict[str, Any] = {}
        self.server: tuple[str, int] | None = None
        self.client: tuple[str, int] | None = None
        self.queue: deque[_Exchange] = deque()
        """Requests in arrival order; the first is being answered."""
        self.parsing: _Exchange | None = None
        self.url = b""
        self.headers: list[tuple[bytes, bytes]] = []
        self.expect_100 = False
        self.running: _Exchange | None = None
        self.reading_paused = False
        self.write_paused: asyncio.Future[None] | None = None
        self.keep_alive_timer: asyncio.TimerHandle | None = None
        self.idle_since = 0.0
        self.closing = False
        self.ignore_input = False
        self.shutting_down = False
        self.websocket: _WebSocket | None = None
        """The WebSocket this connection became (an upgrade), else None."""
        self.ws_max_size: int = getattr(config, "ws_max_size", WS_MAX_SIZE) or WS_MAX_SIZE
        self.first_step_in_callback: bool = getattr(self.app, "needs_no_task", False)
        """The app says its calls need no current task (``asyncio.timeout`` does): each starts in a loop
        callback and becomes a task only if it waits (``_first_step``)."""

    # ------------------------------------------------------------------ connection
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.server_state.connections.add(self)
        self.state = {**self.app_state, TRANSPORT_KEY: transport}
        self.server = _address(transport.get_extra_info("sockname"))
        self.client = _address(transport.get_extra_info("peername"))

    def connection_lost(self, exc: Exception | None) -> None:
        self.server_state.connections.discard(self)
        self.closing = True
        for ex in self.queue:
            if not ex.done:
                ex.disconnected = True
            ex.wake()
        if self.write_paused is not None and not self.write_paused.done():
            self.write_paused.set_result(None)
        self._cancel_keep_alive()
        self.parser = None  # type: ignore[assignment]
        if self.websocket is not None:
            self.websocket.lost()

    def eof_received(self) -> bool | None:
        return None

    def get_buffer(self, sizehint: int) -> memoryview:
        return self.buffer

    def buffer_updated(self, nbytes: int) -> None:
        self.data_received(self.buffer[:nbytes])  # httptools copies what it hands on

    def data_received(self, data: bytes | memoryview) -> None:
        if self.websocket is not None:
            self.websocket.feed(bytes(data))
            return
        if self.ignore_input:
            return
        self.idle_since = self.loop.time()
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade as e:
            queue = self.queue  # the upgrade request is complete: the last one queued
            if self.running is None and len(queue) == 1 and _wants_websocket(queue[0].scope):
                self._upgrade(queue[0], bytes(data[int(e.args[0]) if e.args else len(data):]))
                return
            self._stop_input(self.parsing)  # answered as plain HTTP (426), then the connection closes
        except httptools.HttpParserError:
            log.warning("Invalid HTTP request received.")
            bad = self.parsing
            self._stop_input(None)
            if bad is not None and not bad.complete:  # its head came, its body is broken: not answered
                bad.disconnected = True
                bad.wake()
                if bad is not self.running:
                    self.queue.remove(bad)
                elif not bad.started:
                    self.transport.write(_BAD_REQUEST)
                    self.transport.close()
                    return
            if not self.queue:
                self.transport.write(_BAD_REQUEST)
                self.transport.close()
                return
        if self.running is None and self.queue:
            self._run(self.queue[0])

    def _stop_input(self, last: _Exchange | None) -> None:
        """Read no more requests: ``last`` (the one being parsed, if any) is the last one
        answered, and the connection closes after the answers."""
        self.ignore_input = True
        self.parsing = None
        if last is not None:
            last.complete = True
        for ex in self.queue:
            ex.keep_alive = False

    def shutdown(self) -> None:
        """The server stops: close now when idle, else after the answer being written."""
        self.shutting_down = True
        if self.websocket is not None:
            self.websocket.going_away()
            return
        if self.running is None:
            self.transport.close()
            return
        for ex in self.queue:
            ex.keep_alive = False

    def pause_writing(self) -> None:
        if self.write_paused is None:
            self.write_paused = self.loop.create_future()

    def resume_writing(self) -> None:
        if self.write_paused is not None:
            if not self.write_paused.done():
                self.write_paused.set_result(None)
            self.write_paused = None

    async def drained(self) -> None:
        if self.write_paused is not None:
            await self.write_paused

    def resume_reading(self) -> None:
        if self.reading_paused and not self.closing and len(self.queue) <= 1:
            self.reading_paused = False
            self.transport.resume_reading()

    def _pause_reading(self) -> None:
        if not self.reading_paused and not self.closing:
            self.reading_paused = True
            self.transport.pause_reading()

    def _cancel_keep_alive(self) -> None:
        if self.keep_alive_timer is not None:
            self.keep_alive_timer.cancel()
            self.keep_alive_timer = None

    def _idle_timeout(self) -> None:
        """Close the connection once idle for ``timeout_keep_alive`` seconds (one timer per
        connection, moved on lazily, not one per request)."""
        self.keep_alive_timer = None
        if self.closing or self.running is not None or self.queue or self.websocket is not None:
            return  # the answer's end arms it again
        left = self.idle_since + self.keep_alive_timeout - self.loop.time()
        if left > 0:
            self.keep_alive_timer = self.loop.call_later(left, self._idle_timeout)
        else:
            self.closing = True
            self.transport.close()

    # ------------------------------------------------------------------ parser callbacks
    def on_message_begin(self) -> None:
        self.url = b""
        self.headers = []
        self.expect_100 = False

    def on_url(self, url: bytes) -> None:
        self.url += url

    def on_header(self, name: bytes, value: bytes) -> None:
        name = name.lower()
        if name == b"expect" and value.lower() == b"100-continue":
            self.expect_100 = True
        self.headers.append((name, value))

    def on_headers_complete(self) -> None:
        parser = self.parser
        url = httptools.parse_url(self.url)
        raw_path: bytes = url.path
        path = raw_path.decode("ascii")
        if "%" in path:
            path = unquote(path)
        version = parser.get_http_version()
        scope: Scope = {
            "type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"}, "http_version": version,
            "server": self.server, "client": self.client, "scheme": "http", "root_path": self.root_path,
            "method": parser.get_method().decode("ascii"), "path": self.root_path + path,
            "raw_path": self.root_path.encode("ascii") + raw_path, "query_string": url.query or b"",
            "headers": self.headers, "state": self.state.copy(),
        }
        ex = _Exchange(self, scope)
        ex.expect_100 = self.expect_100
        ex.keep_alive = version != "1.0" and parser.should_keep_alive() and not self.shutting_down
        ex.head_only = scope["method"] == "HEAD"
        self.parsing = ex
        self.queue.append(ex)
        if len(self.queue) > 1:  # pipelined: one at a time
            self._pause_reading()

    def on_body(self, body: bytes) -> None:
        ex = self.parsing
        if ex is None or ex.done:
            return  # a body the answer did not need: dropped
        ex.body.append(body)
        ex.buffered += len(body)
        if ex.buffered > HIGH_WATER:
            self._pause_reading()
        ex.wake()

    def on_message_complete(self) -> None:
        ex = self.parsing
        if ex is not None:
            ex.complete = True
            ex.wake()
            self.parsing = None

    # ------------------------------------------------------------------ running the app
    def _run(self, ex: _Exchange) -> None:
        self.running = ex
        if self.first_step_in_callback:
            context = contextvars.copy_context()
            self.loop.call_soon(self._first_step, ex, context, context=context)
            return
        ex.task = task = self.loop.create_task(self._call(ex))
        if not task.done():  # (an eager task factory may have run it whole)
            self.server_state.tasks.add(task)  # ``_call`` takes it out as it ends

    def _first_step(self, ex: _Exchange, context: contextvars.Context) -> None:
        """Run the app for ``ex`` until it waits (when a task's first step would, the loop turn after
        the request came); an answer that needs no wait costs no task. One that waits goes on in a
        task, in the same context."""
        work = self._call(ex)
        try:
            waiting = work.send(None)
        except StopIteration:
            return
        ex.task = task = self.loop.create_task(_rest(work, waiting), context=context)
        self.server_state.tasks.add(task)

    def _task(self, work: Coroutine[Any, Any, None]) -> None:
        task = self.loop.create_task(work)
        tasks = self.server_state.tasks
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    def _upgrade(self, ex: _Exchange, rest: bytes) -> None:
        """``ex`` asks for a WebSocket: the connection is one from now on (``rest``: bytes after its head)."""
        self.queue.clear()
        self.parsing = None
        self.ignore_input = True
        self._cancel_keep_alive()
        self.websocket = _WebSocket(self, ex.scope, self.url, rest)

    async def _call(self, ex: _Exchange) -> None:
        try:
            await self.app(ex.scope, ex.receive, ex.send)
        except BaseException as e:
            self._app_done(ex, e)
            if not isinstance(e, Exception | asyncio.CancelledError):
                raise
        else:
            self._app_done(ex, None)
        finally:  # the task ends here: no done callback (a loop turn per request) to take it out, and no
            # ``asyncio.current_task()`` (CPython 3.11 asks the kernel for the process id on each call)
            if ex.task is not None:
                self.server_state.tasks.discard(ex.task)

    def _app_done(self, ex: _Exchange, exc: BaseException | None) -> None:
        if exc is not None and not isinstance(exc, asyncio.CancelledError):
            log.error("Exception in ASGI application", exc_info=exc)
        if not ex.done and not ex.disconnected and not self.closing:
            if not ex.started:
                ex.keep_alive = False
                ex.started = True
                ex._start(500, [(b"content-type", b"text/plain; charset=utf-8")])
                ex.done = True
                self.transport.write(ex._head(21) + b"Internal Server Error")
            else:
                log.error("ASGI callable returned without completing response.")
                self.transport.close()
                self.closing = True
        ex.done = True
        ex.wake()
        self.finished(ex)
        if self.running is ex:
            self.running = None
            if self.closing:
                return
            if self.queue:
                self._run(self.queue[0])
            elif self.ignore_input:
                self.closing = True
                self.transport.close()
            else:
                self._arm_keep_alive()

    def finished(self, ex: _Exchange) -> None:
        """``ex``'s answer is complete: the next request may be answered."""
        if self.queue and self.queue[0] is ex:
            self.queue.popleft()
            self.server_state.total_requests += 1
            if not ex.keep_alive or self.closing:
                self.closing = True
                self.transport.close()
                return
            self.resume_reading()  # the rest of an unread body is read and dropped

    def _arm_keep_alive(self) -> None:
        self.idle_since = self.loop.time()
        if self.keep_alive_timer is None and not self.closing:
            self.keep_alive_timer = self.loop.call_later(self.keep_alive_timeout, self._idle_timeout)


async def _rest(work: Coroutine[Any, Any, None], waiting: Any) -> None:
    """The rest of ``work``, whose first step yielded ``waiting`` (what a task waits on)."""
    await _Resumed(work, waiting)


class _Resumed:
    """Awaited in a task: yields what ``work`` yields, and passes in what the task sends or throws
    (a cancellation)."""

    __slots__ = ("waiting", "work")

    def __init__(self, work: Coroutine[Any, Any, None], waiting: Any) -> None:
        self.work = work
        self.waiting = waiting

    def __await__(self) -> Generator[Any, None, None]:
        work, waiting = self.work, self.waiting
        while True:
            try:
                yield waiting
            except BaseException as e:  # thrown in by the task: the app's to handle
                try:
                    waiting = work.throw(e)
                except StopIteration:
                    return
            else:
                try:
                    waiting = work.send(None)
                except StopIteration:
                    return


def _wants_websocket(scope: Scope) -> bool:
    if scope["method"] != "GET":
        return False
    for name, value in scope["headers"]:
        if name == b"upgrade":
            return b"websocket" in value.lower()
    return False


class _WebSocket:
    """One WebSocket connection: ``websockets``' sans-io ``ServerProtocol`` frames it, the app
    sees ASGI ``websocket`` messages (see the module's doc)."""

    __slots__ = ("accepted", "conn", "gone", "handshake", "messages", "proto", "rest", "scope",
                 "started", "waiter")

    def __init__(self, conn: DirectHttpProtocol, http_scope: Scope, url: bytes, rest: bytes) -> None:
        from websockets.extensions.permessage_deflate import ServerPerMessageDeflateFactory
        from websockets.http11 import Request
        from websockets.server import ServerProtocol

        self.conn = conn
        self.proto: ServerProtocol = ServerProtocol(extensions=[ServerPerMessageDeflateFactory()],
                                                    max_size=conn.ws_max_size)
        self.rest = rest
        self.messages: deque[Message] = deque()
        self.waiter: asyncio.Future[None] | None = None
        self.accepted = False
        self.started = False
        self.gone = False
        """The connection is closed (or closing): the app gets ``websocket.disconnect``."""
        head = [b"GET ", url, b" HTTP/1.1\r\n"]
        for name, value in http_scope["headers"]:
            head += [name, b": ", value, b"\r\n"]
        self.proto.receive_data(b"".join(head) + b"\r\n")
        request = next(iter(self.proto.events_received()), None)
        self.handshake = self.proto.accept(request) if isinstance(request, Request) else None
        if self.handshake is None or self.handshake.status_code != 101:  # refused by the library: the app never sees it
            if self.handshake is not None:
                self.proto.send_response(self.handshake)
            self.gone = True
            self.flush()
            conn.transport.close()
            return
        offered = [p.strip() for name, value in http_scope["headers"] if name == b"sec-websocket-protocol"
                   for p in value.decode("latin-1").split(",") if p.strip()]
        self.scope: Scope = {**http_scope, "type": "websocket", "scheme": "ws", "subprotocols": offered,
                             "extensions": {"websocket.http.response": {}}}
        del self.scope["method"]
        conn._task(self._call())

    async def _call(self) -> None:
        try:
            await self.conn.app(self.scope, self.receive, self.send)
        except Exception:
            log.error("Exception in ASGI application", exc_info=True)
            if not self.gone:
                if self.accepted:
                    self._close(1011, "internal error")
                else:
                    self._refuse(500, b"Internal Server Error")
        finally:
            if not self.gone and not self.accepted:  # the app neither accepted nor answered: ASGI says 403
                self._refuse(403, b"")
            elif not self.gone:  # the app returned with the socket open: a normal close
                self._close(1000, "")

    # ------------------------------------------------------------------ from the client
    def feed(self, data: bytes) -> None:
        from websockets.frames import Frame, Opcode

        self.conn.idle_since = self.conn.loop.time()
        self.proto.receive_data(data)
        for event in self.proto.events_received():
            if not isinstance(event, Frame):
                continue
            if event.opcode is Opcode.TEXT:  # the library checked it is UTF-8 (else it closed with 1007)
                self.messages.append({"type": "websocket.receive", "text": bytes(event.data).decode()})
            elif event.opcode is Opcode.BINARY:
                self.messages.append({"type": "websocket.receive", "bytes": bytes(event.data)})
        self.flush()
        from websockets.protocol import State

        if self.proto.state in (State.CLOSING, State.CLOSED) and not self.gone:
            rcvd = self.proto.close_rcvd  # the client's close frame (None: it closed with 1009, 1007, ...)
            self._disconnect(rcvd.code if rcvd is not None else self.proto.close_code or 1006)
        if len(self.messages) > 64:
            self.conn._pause_reading()
        self._wake()

    def lost(self) -> None:
        """The TCP connection is gone."""
        if not self.gone:
            self._disconnect(1006)
        self._wake()

    def going_away(self) -> None:
        """The server stops: close with 1001."""
        if self.accepted and not self.gone:
            self._close(1001, "server shutting down")
        elif not self.accepted:
            self.conn.transport.close()

    def _disconnect(self, code: int) -> None:
        self.gone = True
        self.messages.append({"type": "websocket.disconnect", "code": code})

    def _wake(self) -> None:
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def receive(self) -> Message:
        if not self.started:
            self.started = True
            return {"type": "websocket.connect"}
        while not self.messages:
            if self.gone:
                rcvd = self.proto.close_rcvd
                return {"type": "websocket.disconnect", "code": rcvd.code if rcvd is not None else 1006}
            self.waiter = self.conn.loop.create_future()
            await self.waiter
            self.waiter = None
        message = self.messages.popleft()
        if len(self.messages) < 16:
            self.conn.resume_reading()
        return message

    # ------------------------------------------------------------------ to the client
    async def send(self, message: Message) -> None:
        kind = message["type"]
        if not self.accepted:
            if kind == "websocket.accept":
                self._accept(message)
            elif kind == "websocket.close":
                self._refuse(403, b"")
            elif kind == "websocket.http.response.start":
                self.handshake = self._response(message["status"], message.get("headers", ()))
            elif kind == "websocket.http.response.body" and self.handshake is not None:
                self.handshake.body += message.get("body", b"")
                if not message.get("more_body", False):
                    self._answer(self.handshake)
            else:
                raise RuntimeError(f"unexpected ASGI message {kind!r} before the WebSocket is accepted")
            return
        if kind == "websocket.send":
            if self.gone:
                raise ConnectionResetError("the WebSocket is closed")
            text = message.get("text")
            if text is not None:
                self.proto.send_text(text.encode())
            else:
                self.proto.send_binary(message.get("bytes") or b"")
            self.flush()
            await self.conn.drained()
        elif kind == "websocket.close":
            if not self.gone:
                self._close(int(message.get("code") or 1000), str(message.get("reason") or ""))
        else:
            raise RuntimeError(f"unexpected ASGI message {kind!r} on an accepted WebSocket")

    def _accept(self, message: Message) -> None:
        from websockets.datastructures import Headers

        response = self.handshake
        assert response is not None
        extra = Headers((k.decode("latin-1"), v.decode("latin-1")) for k, v in message.get("headers") or ())
        subprotocol = message.get("subprotocol")
        if subprotocol:
            extra["Sec-WebSocket-Protocol"] = subprotocol
        response.headers.update(extra)
        self.accepted = True
        self.proto.send_response(response)
        self.flush()
        if self.rest:
            rest, self.rest = self.rest, b""
            self.feed(rest)

    def _response(self, status: int, headers: Any) -> Any:
        from websockets.datastructures import Headers
        from websockets.http11 import Response

        phrase = http.HTTPStatus(status).phrase if status in http.HTTPStatus._value2member_map_ else ""
        return Response(status, phrase, Headers((k.decode("latin-1"), v.decode("latin-1")) for k, v in headers), b"")

    def _refuse(self, status: int, body: bytes) -> None:
        headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode())]
        response = self._response(status, headers)
        response.body = body
        self._answer(response)

    def _answer(self, response: Any) -> None:
        """An HTTP answer instead of the WebSocket; the connection closes."""
        self.gone = True
        self.accepted = True  # nothing more to answer
        self.proto.send_response(response)
        self.flush()
        self.conn.transport.close()

    def _close(self, code: int, reason: str) -> None:
        self.proto.send_close(code, reason)
        self.gone = True
        self.flush()
        transport = self.conn.transport
        self.conn.loop.call_later(WS_CLOSE_WAIT, transport.close)  # the client's close frame comes first, normally

    def flush(self) -> None:
        transport = self.conn.transport
        for data in self.proto.data_to_send():
            if data:
                transport.write(data)
            else:  # the library's end of the connection
                transport.close()


def _address(got: Any) -> tuple[str, int] | None:
    if isinstance(got, tuple) and len(got) >= 2:
        return str(got[0]), int(got[1])
    return None
