"""Driving an ``Exchange``: ``SyncDriver`` on a private event loop it owns (``run_until_complete``,
no thread), ``AsyncDriver`` in the caller's running loop. The transports of ``transports.py``
(httpx2) and ``httpx_transports.py`` (httpx 0.28) are thin adapters over these."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import Any

import orjson

from autocue.mockllm.asgi import ASGIApp
from autocue.testing.mock_llm.exchange import RESET, Exchange, build_scope

IN_LOOP = ("the sync transport of autocue's MockLLM cannot run inside a running event loop: use the async one "
           "(llm.async_transport(), llm.async_openai(), ...) in async code")
Errors = tuple[Callable[[str], Exception], Callable[[str], Exception]]
"""The HTTP library's (read error, protocol error) from a message: what a reset and a cut answer raise."""


@dataclass(slots=True, frozen=True)
class Exchanged:
    """One request the transport carried and what it got (every one, journaled or not)."""

    method: str
    path: str
    status: int
    reason: str | None
    """The answer's ``x-autocue-error`` (why the mock answered with an error), if any."""
    message: str | None
    """The error message of an error answer."""


Log = Callable[[Exchanged], None]


@dataclass(slots=True)
class Request:
    """What a transport hands over of an HTTP library's request."""

    method: str
    scheme: str
    host: str
    port: int | None
    target: bytes
    """The path with its query (``url.raw_path``)."""
    headers: list[tuple[bytes, bytes]]
    body: bytes


def start(app: ASGIApp, req: Request, loop: asyncio.AbstractEventLoop) -> Exchange:
    path, _, query = req.target.partition(b"?")
    return Exchange(app, build_scope(req.method, req.scheme, req.host, req.port, path, query, req.headers),
                    req.body, loop)


def note(log: Log | None, req: Request, ex: Exchange) -> None:
    """Log the exchange (its error message when the whole error body is there already)."""
    if log is None:
        return
    status = ex.status
    reason = next((v.decode("latin-1") for k, v in ex.headers if k == b"x-autocue-error"), None)
    message = None
    if status >= 400 and not ex.more:
        message = _message(b"".join(ex.chunks))
    elif ex.reset:
        message = "the connection was reset"
    log(Exchanged(req.method, req.target.partition(b"?")[0].decode("latin-1"), status, reason, message))


def _head(ex: Exchange, errors: Errors) -> Exchange:
    """``ex`` once its head came; a reset before it raises the library's read error."""
    if not ex.status:
        raise errors[0](RESET)
    return ex


def _message(body: bytes) -> str | None:
    try:
        data: Any = orjson.loads(body)
    except orjson.JSONDecodeError:
        return body.decode("utf-8", "replace")[:500] or None
    todo = [data]
    while todo:
        item = todo.pop(0)
        if isinstance(item, dict):
            msg = item.get("message")
            if isinstance(msg, str):
                return msg
            todo.extend(item.values())
        elif isinstance(item, list):
            todo.extend(item)
    return None


class SyncDriver:
    """Runs exchanges on a private event loop, created on first use and closed by ``close()``.

    ``lock`` is held while the loop runs: the drivers of one app share one (``MockLLM`` gives
    them its own), so clients used from several threads take turns and the app, written for one
    event loop, never runs on two at once."""

    def __init__(self, app: ASGIApp, log: Log | None = None, lock: threading.Lock | None = None) -> None:
        self.app = app
        self.log = log
        self.lock = lock or threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None

    def _run(self, ex: Exchange, ready: Callable[[], bool]) -> None:
        loop = self._loop
        assert loop is not None
        while True:
            with self.lock:
                if ready():
                    return
                loop.run_until_complete(ex.pending())

    def open(self, req: Request, errors: Errors) -> Exchange:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pass
        else:
            raise RuntimeError(IN_LOOP)
        with self.lock:
            if self._loop is None or self._loop.is_closed():
                self._loop = asyncio.new_event_loop()
            ex = start(self.app, req, self._loop)
        self._run(ex, ex.head_ready)
        note(self.log, req, ex)
        return _head(ex, errors)

    def chunks(self, ex: Exchange, errors: Errors, head_only: bool) -> Iterator[bytes]:
        while True:
            self._run(ex, ex.body_ready)
            try:
                data = ex.take()
            except ConnectionResetError as e:
                raise errors[0](str(e)) from None
            except EOFError as e:
                raise errors[1](str(e)) from None
            if data is None:
                return
            if not head_only:
                yield data

    def finish(self, ex: Exchange) -> None:
        """The client is done with the answer: a disconnect if it is not over; the app finishes."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        with self.lock:
            ex.disconnect()
            if not ex.task.done():
                loop.run_until_complete(ex.task)

    def close(self) -> None:
        loop, self._loop = self._loop, None
        if loop is None:
            return
        with self.lock:
            if loop.is_closed():
                return
            pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
            for t in pending:
                t.cancel()
            if pending:
                loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            loop.close()


class AsyncDriver:
    """Runs exchanges in the caller's event loop."""

    def __init__(self, app: ASGIApp, log: Log | None = None) -> None:
        self.app = app
        self.log = log

    async def open(self, req: Request, errors: Errors) -> Exchange:
        ex = start(self.app, req, asyncio.get_running_loop())
        while not ex.head_ready():
            await ex.pending()
        note(self.log, req, ex)
        return _head(ex, errors)

    async def chunks(self, ex: Exchange, errors: Errors, head_only: bool) -> AsyncIterator[bytes]:
        while True:
            while not ex.body_ready():
                await ex.pending()
            try:
                data = ex.take()
            except ConnectionResetError as e:
                raise errors[0](str(e)) from None
            except EOFError as e:
                raise errors[1](str(e)) from None
            if data is None:
                return
            if not head_only:
                yield data

    async def finish(self, ex: Exchange) -> None:
        ex.disconnect()
        if not ex.task.done():
            await ex.task
