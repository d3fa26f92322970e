"""The in-process transports for ``httpx`` 0.28 (what the ``ollama`` client uses; ``google-genai``
takes either library): ``Transport`` and ``AsyncTransport``, the same as ``transports.py`` for
``httpx2``, imported only when asked for."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Iterator

import httpx

from autocue.mockllm.asgi import ASGIApp
from autocue.testing.mock_llm.driver import AsyncDriver, Errors, Log, Request, SyncDriver
from autocue.testing.mock_llm.exchange import Exchange

ERRORS: Errors = (httpx.ReadError, httpx.RemoteProtocolError)
EXTENSIONS = {"http_version": b"HTTP/1.1"}


def _request(request: httpx.Request, body: bytes) -> Request:
    url = request.url
    return Request(request.method, url.scheme, url.host, url.port, url.raw_path, list(request.headers.raw), body)


class _Stream(httpx.SyncByteStream):
    def __init__(self, driver: SyncDriver, ex: Exchange, head_only: bool) -> None:
        self.driver, self.ex, self.head_only = driver, ex, head_only

    def __iter__(self) -> Iterator[bytes]:
        return self.driver.chunks(self.ex, ERRORS, self.head_only)

    def close(self) -> None:
        self.driver.finish(self.ex)


class _AsyncStream(httpx.AsyncByteStream):
    def __init__(self, driver: AsyncDriver, ex: Exchange, head_only: bool) -> None:
        self.driver, self.ex, self.head_only = driver, ex, head_only

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self.driver.chunks(self.ex, ERRORS, self.head_only)

    async def aclose(self) -> None:
        await self.driver.finish(self.ex)


class Transport(httpx.BaseTransport):
    """An ``httpx`` transport answering through ``app`` in process: no socket, no thread."""

    def __init__(self, app: ASGIApp, log: Log | None = None, lock: threading.Lock | None = None) -> None:
        self.driver = SyncDriver(app, log, lock)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        ex = self.driver.open(_request(request, request.read()), ERRORS)
        return httpx.Response(ex.status, headers=ex.headers, extensions=EXTENSIONS,
                               stream=_Stream(self.driver, ex, request.method == "HEAD"))

    def close(self) -> None:
        self.driver.close()


class AsyncTransport(httpx.AsyncBaseTransport):
    """An async ``httpx`` transport answering through ``app`` in the caller's event loop."""

    def __init__(self, app: ASGIApp, log: Log | None = None) -> None:
        self.driver = AsyncDriver(app, log)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        ex = await self.driver.open(_request(request, await request.aread()), ERRORS)
        return httpx.Response(ex.status, headers=ex.headers, extensions=EXTENSIONS,
                               stream=_AsyncStream(self.driver, ex, request.method == "HEAD"))
