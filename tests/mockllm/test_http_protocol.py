"""autocue's HTTP protocol (mockllm/protocol.py) over real sockets: pipelining, chunked bodies,
Expect: 100-continue, HEAD, keep-alive, the body limit, malformed requests, WebSocket upgrades,
clients leaving a stream, flow control, an app that fails, shutdown with a stream in flight."""

from __future__ import annotations

import asyncio
import contextvars
import logging
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager

import orjson
import pytest
from mockllm_helpers import say

from autocue.llm.types import TextContent
from autocue.mockllm import MockLLMServer, serve
from autocue.mockllm.asgi import Receive, Request, Response, Route, Router, Scope, Send, StreamingResponse
from autocue.mockllm.server import LoopbackServer
from autocue.script import Script, ScriptedResponse, Turn

CHAT = b'{"model": "m", "messages": [{"role": "user", "content": "hi"}]}'


def _script(n: int = 20) -> Script:
    return Script([Turn(None, [say(f"reply {i}") for i in range(n)])], name="many")


def post(body: bytes, *, key: str = "k", extra: bytes = b"", path: bytes = b"/v1/chat/completions") -> bytes:
    return (b"POST " + path + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Authorization: Bearer " + key.encode() + b"\r\n" + extra +
            b"Content-Length: %d\r\n\r\n" % len(body) + body)


class Reader:
    """HTTP/1.1 responses read off a raw socket."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buf = b""

    def _fill(self) -> None:
        data = self.sock.recv(65536)
        if not data:
            raise EOFError(f"connection closed; buffered {self.buf[:200]!r}")
        self.buf += data

    def _until(self, mark: bytes) -> bytes:
        while mark not in self.buf:
            self._fill()
        got, _, self.buf = self.buf.partition(mark)
        return got

    def _take(self, n: int) -> bytes:
        while len(self.buf) < n:
            self._fill()
        got, self.buf = self.buf[:n], self.buf[n:]
        return got

    def response(self, head_only: bool = False) -> tuple[int, dict[str, str], bytes]:
        lines = self._until(b"\r\n\r\n").decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
        if head_only or status in (100, 204, 304):
            return status, headers, b""
        if "content-length" in headers:
            return status, headers, self._take(int(headers["content-length"]))
        if headers.get("transfer-encoding") == "chunked":
            body = b""
            while True:
                size = int(self._until(b"\r\n"), 16)
                if size == 0:
                    self._until(b"\r\n")
                    return status, headers, body
                body += self._take(size)
                self._take(2)
        body = self.buf
        try:
            while True:
                self._fill()
        except EOFError:
            pass
        body, self.buf = self.buf, b""
        return status, headers, body

    def closed(self, timeout: float = 5.0) -> bool:
        self.sock.settimeout(timeout)
        try:
            return self.sock.recv(1) == b""
        except ConnectionResetError:
            return True


@contextmanager
def connect(port: int, timeout: float = 10.0) -> Iterator[tuple[socket.socket, Reader]]:
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        yield s, Reader(s)


def content(body: bytes) -> str:
    return str(orjson.loads(body)["choices"][0]["message"]["content"])


def test_pipelined_requests_are_answered_in_order_on_one_connection() -> None:
    with serve(_script()) as server, connect(server.port) as (s, r):
        s.sendall(b"".join(post(CHAT) for _ in range(5)) + b"GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n")
        assert [content(r.response()[2]) for _ in range(5)] == [f"reply {i}" for i in range(5)]
        status, _, body = r.response()
        assert status == 200 and b"autocue-mock" in body
        s.sendall(post(CHAT))  # and the connection is still usable
        assert content(r.response()[2]) == "reply 5"


def test_a_chunked_request_body_split_over_many_writes() -> None:
    with serve(_script()) as server, connect(server.port) as (s, r):
        s.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  b"Authorization: Bearer c\r\nTransfer-Encoding: chunked\r\n\r\n")
        for k in range(0, len(CHAT), 7):
            piece = CHAT[k:k + 7]
            s.sendall(b"%x\r\n%s\r\n" % (len(piece), piece))
            time.sleep(0.002)
        s.sendall(b"0\r\n\r\n")
        status, _, body = r.response()
        assert status == 200 and content(body) == "reply 0"


def test_expect_100_continue_gets_its_100_before_the_body() -> None:
    with serve(_script()) as server, connect(server.port) as (s, r):
        s.sendall(post(CHAT, extra=b"Expect: 100-continue\r\n")[: -len(CHAT)])
        assert r.response()[0] == 100
        s.sendall(CHAT)
        status, _, body = r.response()
        assert status == 200 and content(body) == "reply 0"


def test_head_has_the_headers_and_no_body_and_keeps_the_connection() -> None:
    with serve(_script()) as server, connect(server.port) as (s, r):
        s.sendall(b"HEAD / HTTP/1.1\r\nHost: x\r\n\r\n")
        status, headers, _ = r.response(head_only=True)
        assert status == 200 and int(headers["content-length"]) > 0
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        status, headers, body = r.response()
        assert status == 200 and len(body) == int(headers["content-length"]) and orjson.loads(body)["ok"]


def test_connection_close_and_http_1_0_close_after_the_answer() -> None:
    with serve(_script()) as server:
        with connect(server.port) as (s, r):
            s.sendall(post(CHAT, extra=b"Connection: close\r\n"))
            status, headers, _ = r.response()
            assert status == 200 and headers["connection"] == "close" and r.closed()
        with connect(server.port) as (s, r):
            s.sendall(b"GET / HTTP/1.0\r\n\r\n")
            assert r.response()[0] == 200 and r.closed()


def test_a_10_mb_body_over_the_limit_gets_413_before_it_is_sent() -> None:
    big = 10 * 1024 * 1024
    with serve(_script(), max_body=1024 * 1024) as server:
        with connect(server.port) as (s, r):
            t0 = time.monotonic()
            s.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                      b"Content-Length: %d\r\n\r\n" % big + b" " * 65536)
            status, _, body = r.response()
            assert status == 413 and b"larger than" in body
            assert time.monotonic() - t0 < 2
        with connect(server.port) as (s, r):  # chunked, no length: cut off once past the limit
            s.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                      b"Transfer-Encoding: chunked\r\n\r\n")
            sender = threading.Thread(target=_send_chunks, args=(s, big), daemon=True)
            sender.start()
            status, _, body = r.response()
            assert status == 413 and b"larger than" in body
            sender.join(timeout=10)


def _send_chunks(s: socket.socket, total: int) -> None:
    piece = b" " * 65536
    try:
        for _ in range(total // len(piece)):
            s.sendall(b"%x\r\n%s\r\n" % (len(piece), piece))
        s.sendall(b"0\r\n\r\n")
    except OSError:  # the server may close once it has answered
        pass


@pytest.mark.parametrize("garbage", [b"NOT HTTP AT ALL\r\n\r\n", b"GET / HTTP/1.1\r\nBad Header\r\n\r\n",
                                     b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"])
def test_a_malformed_request_gets_400_and_no_traceback(garbage: bytes, caplog: pytest.LogCaptureFixture) -> None:
    with serve(_script()) as server:
        with connect(server.port) as (s, r):
            s.sendall(garbage)
            assert r.response()[0] == 400 and r.closed()
        with connect(server.port) as (s, r):  # the server goes on
            s.sendall(post(CHAT))
            assert r.response()[0] == 200
    assert not [rec for rec in caplog.records if rec.exc_info]


UPGRADE = (b"Host: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"
           b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n")


def test_a_websocket_upgrade_without_websocket_mode_gets_426_at_once() -> None:
    with serve(_script()) as server, connect(server.port) as (s, r):
        s.sendall(b"GET /v1/chat/completions HTTP/1.1\r\n" + UPGRADE)
        status, headers, body = r.response()
        assert status == 426 and headers["x-should-retry"] == "false" and b"WebSocket" in body


def test_a_websocket_upgrade_on_the_responses_path_switches_protocols() -> None:
    with serve(_script()) as server, connect(server.port) as (s, r):
        s.sendall(b"GET /v1/responses HTTP/1.1\r\n" + UPGRADE)
        head = r._until(b"\r\n\r\n").decode().lower()
        assert head.startswith("http/1.1 101") and "sec-websocket-accept: s3pplmbitxaq9kygzzhzrbk+xoo=" in head


# ---------------------------------------------------------------------------- a test app

class Probe:
    """An ASGI app: ``/stream`` streams until the client leaves (``stopped`` set by the
    generator's ``finally``), ``/big`` streams 8 MB, ``/short`` three frames 0.1 s apart,
    ``/boom`` fails, ``/echo`` answers the body's length."""

    def __init__(self) -> None:
        self.stopped = threading.Event()
        self.router = Router([Route("/stream", self.stream, ["GET"]), Route("/big", self.big, ["GET"]),
                              Route("/short", self.short, ["GET"]), Route("/boom", self.boom, ["GET"]),
                              Route("/echo", self.echo, ["POST"])], self.refused)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.router(scope, receive, send)

    async def stream(self, request: Request) -> Response:
        async def frames() -> AsyncIterator[bytes]:
            try:
                while True:
                    yield b"tick\n"
                    await asyncio.sleep(0.01)
            finally:
                self.stopped.set()

        return StreamingResponse(frames(), media_type="text/plain")

    async def big(self, request: Request) -> Response:
        async def frames() -> AsyncIterator[bytes]:
            for k in range(128):
                yield bytes([65 + k % 26]) * 65536

        return StreamingResponse(frames(), media_type="application/octet-stream")

    async def short(self, request: Request) -> Response:
        async def frames() -> AsyncIterator[bytes]:
            for k in range(3):
                await asyncio.sleep(0.1)
                yield b"frame %d\n" % k

        return StreamingResponse(frames(), media_type="text/plain")

    async def boom(self, request: Request) -> Response:
        raise RuntimeError("the probe fails")

    async def echo(self, request: Request) -> Response:
        size = 0
        async for chunk in request.stream():
            size += len(chunk)
        return Response(b"%d" % size, media_type="text/plain")

    async def refused(self, request: Request, status: int, headers: dict[str, str]) -> Response:
        return Response(b"no", status, headers)


@contextmanager
def probe_server() -> Iterator[tuple[Probe, LoopbackServer]]:
    app = Probe()
    with LoopbackServer(app, "127.0.0.1", 0) as server:
        yield app, server


def test_a_client_leaving_mid_stream_stops_the_generator_quickly() -> None:
    with probe_server() as (app, server):
        with connect(server.port) as (s, r):
            s.sendall(b"GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
            r._until(b"tick\n")
        t0 = time.monotonic()
        assert app.stopped.wait(2), "the stream went on after the client left"
        assert time.monotonic() - t0 < 2


def test_a_client_that_reads_slowly_gets_every_byte_flow_control() -> None:
    with probe_server() as (_, server), connect(server.port, timeout=30) as (s, r):
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)
        s.sendall(b"GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
        time.sleep(0.5)  # the server's writes fill the buffers and pause
        status, headers, body = r.response()
        assert status == 200 and headers["transfer-encoding"] == "chunked"
        assert len(body) == 128 * 65536
        assert body[:65536] == b"A" * 65536 and body[-65536:] == bytes([65 + 127 % 26]) * 65536


def test_a_failing_app_answers_500_and_logs_it() -> None:
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    try:
        with probe_server() as (_, server), connect(server.port) as (s, r):
            logging.getLogger("uvicorn.error").addHandler(handler)  # after uvicorn set its loggers up
            s.sendall(b"GET /boom HTTP/1.1\r\nHost: x\r\n\r\n")
            status, headers, body = r.response()
            assert status == 500 and body == b"Internal Server Error" and headers["connection"] == "close"
    finally:
        logging.getLogger("uvicorn.error").removeHandler(handler)
    assert [rec.getMessage() for rec in records if rec.exc_info] == ["Exception in ASGI application"]


def test_an_unread_body_is_dropped_and_the_connection_goes_on() -> None:
    with probe_server() as (_, server), connect(server.port) as (s, r):
        s.sendall(b"POST /missing HTTP/1.1\r\nHost: x\r\nContent-Length: 200000\r\n\r\n" + b"x" * 200000)
        assert r.response()[0] == 404
        s.sendall(b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello")
        assert r.response()[2] == b"5"


def test_shutdown_lets_a_stream_in_flight_finish() -> None:
    app = Probe()
    server = LoopbackServer(app, "127.0.0.1", 0).start()
    with connect(server.port) as (s, r):
        s.sendall(b"GET /short HTTP/1.1\r\nHost: x\r\n\r\n")
        r._until(b"\r\n\r\n")
        stopper = threading.Thread(target=server.stop)
        stopper.start()
        rest = b""
        while b"0\r\n\r\n" not in rest:
            rest += s.recv(4096) or b"0\r\n\r\n!"
        stopper.join(timeout=10)
        assert not stopper.is_alive()
    assert b"frame 2" in r.buf + rest and not rest.endswith(b"!")


def test_the_transport_is_in_scope_state_for_chaos() -> None:
    script = Script([Turn(None, [ScriptedResponse([TextContent("a"), TextContent("b")])])], name="c")
    with serve(script) as server, connect(server.port) as (s, r):
        body = b'{"model": "m", "stream": true, "messages": [{"role": "user", "content": "hi"}]}'
        s.sendall(post(body, extra=b"x-autocue-chaos: reset=0\r\n"))
        assert r.closed()


def test_many_requests_on_one_connection_with_a_server_object() -> None:
    server = MockLLMServer(_script(200)).start()
    try:
        with connect(server.port) as (s, r):
            for i in range(200):
                s.sendall(post(CHAT))
                assert content(r.response()[2]) == f"reply {i}"
    finally:
        server.stop()


def test_an_idle_keep_alive_connection_closes_after_the_timeout() -> None:
    import uvicorn

    from autocue.mockllm.server import serve_in_thread, uvicorn_config
    from autocue.mockllm.sockets import bind_socket

    config = uvicorn_config(Probe())
    config.timeout_keep_alive = 0.3
    sock = bind_socket()
    server = uvicorn.Server(config)
    thread = serve_in_thread(server, lambda: server.run(sockets=[sock]), name="idle", what="test server")
    try:
        with connect(sock.getsockname()[1]) as (busy, busy_reader), connect(sock.getsockname()[1]) as (s, r):
            s.sendall(b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi")
            assert r.response()[2] == b"2"
            t0 = time.monotonic()
            for _ in range(6):  # a connection in use stays open past the timeout
                busy.sendall(b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nx")
                assert busy_reader.response()[2] == b"1"
                time.sleep(0.1)
            assert r.closed(timeout=3) and 0.25 < time.monotonic() - t0 < 3
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


def test_each_request_task_leaves_the_servers_set_as_it_ends() -> None:
    """A request's task takes itself out of the server's task set (the set uvicorn waits on at
    shutdown) as it ends, answered, failed or streamed: nothing is left behind to leak."""
    with probe_server() as (_, server):
        with connect(server.port) as (s, r):
            for _ in range(50):
                s.sendall(b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello")
                assert r.response()[2] == b"5"
            s.sendall(b"GET /short HTTP/1.1\r\nHost: x\r\n\r\n")
            assert r.response()[0] == 200
        with connect(server.port) as (s, r):
            s.sendall(b"GET /boom HTTP/1.1\r\nHost: x\r\n\r\n")
            assert r.response()[0] == 500
        assert server._server is not None
        tasks = server._server.server_state.tasks
        deadline = time.monotonic() + 5
        while tasks and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not tasks


_SEEN: contextvars.ContextVar[str] = contextvars.ContextVar("seen", default="")


class NoTaskApp:
    """An app that says it needs no task (as ``MockApp`` does): each call starts in a loop callback
    and becomes a task only when it waits."""

    needs_no_task = True

    def __init__(self) -> None:
        self.cancelled = threading.Event()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        path = scope["path"]
        _SEEN.set(path)
        await receive()
        if path == "/wait":  # waits twice: the rest runs in a task, in the context the first step set
            await asyncio.sleep(0.01)
            await asyncio.sleep(0)
        if path == "/hang":
            try:
                await asyncio.sleep(30)
            except asyncio.CancelledError:
                self.cancelled.set()
                raise
        if path == "/boom":
            await asyncio.sleep(0)
            raise RuntimeError("boom")
        await Response(_SEEN.get().encode(), media_type="text/plain")(scope, receive, send)


def test_an_app_that_needs_no_task_answers_at_once_or_goes_on_in_a_task() -> None:
    app = NoTaskApp()
    server = LoopbackServer(app, "127.0.0.1", 0).start()
    try:
        with connect(server.port) as (s, r):
            for path in (b"/now", b"/wait", b"/now", b"/wait"):
                s.sendall(b"GET " + path + b" HTTP/1.1\r\nHost: x\r\n\r\n")
                assert r.response()[2] == path  # the context var set before the wait is there after it
            s.sendall(b"GET /boom HTTP/1.1\r\nHost: x\r\n\r\n")
            assert r.response()[0] == 500
        assert server._server is not None
        tasks = server._server.server_state.tasks
        deadline = time.monotonic() + 5
        while tasks and time.monotonic() < deadline:  # the failed call's task leaves as it ends
            time.sleep(0.01)
        assert not tasks
        with connect(server.port) as (s, r):
            s.sendall(b"GET /hang HTTP/1.1\r\nHost: x\r\n\r\n")
            while not tasks and time.monotonic() < deadline:
                time.sleep(0.01)
            assert len(tasks) == 1  # the waiting call is a task the server knows (shutdown waits for it)
            [task] = tasks
            task.get_loop().call_soon_threadsafe(task.cancel)  # what a forced shutdown does
            assert app.cancelled.wait(5), "the cancellation did not reach the app"
            while tasks and time.monotonic() < deadline:
                time.sleep(0.01)
            assert not tasks
    finally:
        server.stop()
