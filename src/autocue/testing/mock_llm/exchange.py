"""One HTTP request answered by an ASGI app in process: no socket, no thread.

``Exchange`` is the protocol side of ``autocue.mockllm.protocol`` without the bytes: it builds
the ASGI scope the same way (lower-case header names as bytes, ``path`` unquoted, ``raw_path``,
``query_string``, ``client``/``server``, ``scope["state"]`` holding the connection's handle under
``autocue_transport``), runs the app as a task on an event loop and collects what it sends.
Whoever drives the loop (the sync transport on its private loop, the async one in its caller's)
asks for the head, then for each body chunk; every wait is one future (``pending()``) resolved
by the app's next message, its end, or a reset, so a chunk is produced only when asked for
(``send`` of a body chunk waits until the previous one was taken: a stream's delays play as they
would over HTTP).

``receive`` hands over the request body, then waits until the answer is complete or the client
leaves (``http.disconnect``), as the server's protocol does. ``disconnect()`` is the client
closing the response early. A chaos reset (``reset_connection`` on the handle) ends the
exchange: the client's next read raises (the transport turns ``reset`` into the HTTP library's
read error). An app that fails before answering gives a plain 500, as the server does.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from typing import Any
from urllib.parse import unquote

from autocue.mockllm.app import TRANSPORT_KEY
from autocue.mockllm.asgi import ASGIApp, Message, Scope

log = logging.getLogger("autocue.testing.mock_llm")
CLIENT = ("127.0.0.1", 50000)
"""The client address the app sees."""
RESET = "connection reset by peer (chaos: the autocue mock LLM reset the connection)"
INCOMPLETE = "peer closed connection without sending complete message body (the app ended its answer early)"
_DISCONNECT: Message = {"type": "http.disconnect"}


class ConnectionHandle:
    """What ``scope["state"]["autocue_transport"]`` holds: chaos resets the connection through
    ``abort()``; there is no socket (``get_extra_info`` says None)."""

    __slots__ = ("exchange",)

    def __init__(self, exchange: Exchange) -> None:
        self.exchange = exchange

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return default

    def abort(self) -> None:
        self.exchange.reset_by_peer()

    def close(self) -> None:
        self.exchange.reset_by_peer()


def build_scope(method: str, scheme: str, host: str, port: int | None, raw_path: bytes, query: bytes,
                headers: list[tuple[bytes, bytes]]) -> Scope:
    """The ASGI scope of a request, as ``DirectHttpProtocol.on_headers_complete`` builds it."""
    path = raw_path.decode("ascii", "replace")
    if "%" in path:
        path = unquote(path)
    return {
        "type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"}, "http_version": "1.1",
        "server": (host, port or (443 if scheme == "https" else 80)), "client": CLIENT, "scheme": scheme,
        "root_path": "", "method": method, "path": path, "raw_path": raw_path, "query_string": query,
        "headers": [(k.lower(), v) for k, v in headers], "state": {},
    }


class Exchange:
    """One request to ``app`` on ``loop`` (see the module's doc)."""

    __slots__ = ("app_done", "body", "chunks", "disconnected", "error", "headers", "listeners", "loop", "more",
                 "reset", "sent_body", "status", "taken", "task", "waiter")

    def __init__(self, app: ASGIApp, scope: Scope, body: bytes, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.body = body
        self.sent_body = False
        self.status = 0
        """The answer's status (0: not started)."""
        self.headers: list[tuple[bytes, bytes]] = []
        self.chunks: deque[bytes] = deque()
        self.more = True
        """More body is to come (False once the app sent its last body message)."""
        self.app_done = False
        self.disconnected = False
        self.reset = False
        self.error: BaseException | None = None
        self.waiter: asyncio.Future[None] | None = None
        self.listeners: list[asyncio.Future[None]] = []
        """``receive`` calls waiting for the end or the client leaving."""
        self.taken: asyncio.Future[None] | None = None
        """Resolved when the consumer takes the queued chunks (the app's ``send`` waits for it)."""
        scope["state"] = {**scope.get("state", {}), TRANSPORT_KEY: ConnectionHandle(self)}
        self.task = loop.create_task(self._run(app, scope))

    # ------------------------------------------------------------------ the app's side
    async def _run(self, app: ASGIApp, scope: Scope) -> None:
        try:
            await app(scope, self.receive, self.send)
        except Exception as e:
            log.error("Exception in ASGI application", exc_info=e)
            self.error = e
        finally:
            self.app_done = True
            if not self.status and not self.reset and not self.disconnected:
                self.status = 500
                self.headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", b"21")]
                self.chunks.append(b"Internal Server Error")
                self.more = False
            self._wake()

    async def receive(self) -> Message:
        if not self.sent_body and not self.disconnected and not self.reset:
            self.sent_body = True
            return {"type": "http.request", "body": self.body, "more_body": False}
        while not (self.disconnected or self.reset or not self.more):
            fut = self.loop.create_future()
            self.listeners.append(fut)
            await fut
        return _DISCONNECT

    async def send(self, message: Message) -> None:
        if self.disconnected or self.reset:
            return
        kind = message["type"]
        if kind == "http.response.start":
            if self.status:
                raise RuntimeError(f"unexpected ASGI message {kind!r}: the response has started")
            self.status = message["status"]
            self.headers = list(message.get("headers", ()))
        elif kind == "http.response.body":
            if not self.status or not self.more:
                raise RuntimeError(f"unexpected ASGI message {kind!r}: " +
                                   ("the response has not started" if not self.status else "it is complete"))
            body: bytes = message.get("body", b"")
            if body:
                self.chunks.append(body)
            self.more = bool(message.get("more_body", False))
            if not self.more:
                self._wake_listeners()
        else:
            raise RuntimeError(f"unexpected ASGI message {kind!r}")
        self._wake()
        if self.more and self.chunks:  # wait until the client takes it (or leaves)
            taken = self.taken = self.loop.create_future()
            await taken

    # ------------------------------------------------------------------ the client's side
    def pending(self) -> asyncio.Future[None]:
        """A future resolved at the app's next message, its end, or a reset."""
        fut = self.waiter = self.loop.create_future()
        return fut

    def head_ready(self) -> bool:
        return bool(self.status) or self.reset or self.app_done

    def body_ready(self) -> bool:
        """A chunk can be taken, or the body has ended (normally or not)."""
        return bool(self.chunks) or not self.more or self.reset or self.app_done

    def take(self) -> bytes | None:
        """The chunks sent so far (None: the body is over). Call when ``body_ready()``; raises
        ``ConnectionResetError`` after a reset and ``EOFError`` when the app ended its answer
        without finishing it."""
        if self.chunks:
            data = self.chunks.popleft() if len(self.chunks) == 1 else b"".join(self.chunks)
            self.chunks.clear()
            taken = self.taken
            if taken is not None and not taken.done():
                taken.set_result(None)
            return data
        if self.reset:
            raise ConnectionResetError(RESET)
        if self.more:
            raise EOFError(INCOMPLETE)
        return None

    def disconnect(self) -> None:
        """The client closed the response: ``receive`` says ``http.disconnect``."""
        if not self.app_done and not self.disconnected:
            self.disconnected = True
            self._wake_listeners()
            taken = self.taken
            if taken is not None and not taken.done():
                taken.set_result(None)

    def reset_by_peer(self) -> None:
        self.reset = True
        self.chunks.clear()
        self._wake_listeners()
        self._wake()

    # ------------------------------------------------------------------ internals
    def _wake(self) -> None:
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def _wake_listeners(self) -> None:
        for fut in self.listeners:
            if not fut.done():
                fut.set_result(None)
        self.listeners.clear()
