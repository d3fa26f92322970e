"""boto3 / botocore in process: a ``before-send`` handler answering through the mock server's app.

botocore sends with urllib3, not httpx, so no httpx transport reaches it; its documented
``before-send`` event is the public way in: "allows a response to be returned that fulfills the
request" (botocore's event reference). ``BotocoreHook`` is such a handler: it hands the signed
request to the app on the sync driver's private loop and returns an ``AWSResponse`` whose
``raw`` body is pulled chunk by chunk (``stream()`` for event streams, ``read()`` for blobs,
``close()`` a disconnect), as urllib3's response would be. A reset raises botocore's
``ConnectionClosedError`` (which its retry handles, as over HTTP).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

from botocore.awsrequest import AWSResponse
from botocore.exceptions import ConnectionClosedError

from autocue.mockllm.asgi import ASGIApp
from autocue.testing.mock_llm.driver import Errors, Log, Request, SyncDriver
from autocue.testing.mock_llm.exchange import Exchange


def errors(url: str) -> Errors:
    """A reset (chaos) or an answer ended early: what urllib3's errors become in botocore."""

    def closed(message: str) -> Exception:
        error: Exception = ConnectionClosedError(endpoint_url=url)
        return error

    return closed, closed


class RawBody:
    """The part of urllib3's response botocore reads: ``stream()``, ``read(amt)``, ``close()``."""

    def __init__(self, driver: SyncDriver, ex: Exchange, errors: Errors) -> None:
        self.driver, self.ex = driver, ex
        self.chunks: Iterator[bytes] = driver.chunks(ex, errors, False)
        self.buffer = b""

    def stream(self, amt: int | None = None, decode_content: bool | None = None) -> Iterator[bytes]:
        if self.buffer:
            yield self.buffer
            self.buffer = b""
        yield from self.chunks
        self.close()

    def read(self, amt: int | None = None, decode_content: bool | None = None) -> bytes:
        while amt is None or len(self.buffer) < amt:
            chunk = next(self.chunks, None)
            if chunk is None:
                break
            self.buffer += chunk
        if amt is None:
            out, self.buffer = self.buffer, b""
        else:
            out, self.buffer = self.buffer[:amt], self.buffer[amt:]
        return out

    def close(self) -> None:
        self.driver.finish(self.ex)


class BotocoreHook:
    """A ``before-send`` handler: ``client.meta.events.register("before-send", hook)``."""

    def __init__(self, app: ASGIApp, log: Log | None = None, lock: threading.Lock | None = None) -> None:
        self.driver = SyncDriver(app, log, lock)

    def __call__(self, request: Any, **kwargs: Any) -> AWSResponse:
        url = urlsplit(request.url)
        body = request.body
        if hasattr(body, "read"):
            body = body.read()
        if isinstance(body, str):
            body = body.encode()
        headers = [(k.lower().encode("latin-1"), v if isinstance(v, bytes) else str(v).encode("latin-1"))
                   for k, v in request.headers.items()]
        if not any(k == b"accept-encoding" for k, _ in headers):
            headers.append((b"accept-encoding", b"identity"))  # what urllib3 adds on the wire
        target = (url.path or "/") + (f"?{url.query}" if url.query else "")
        ex = self.driver.open(Request(request.method, url.scheme, url.hostname or "", url.port, target.encode(),
                                      headers, body or b""), errors(request.url))
        heads = {k.decode("latin-1"): v.decode("latin-1") for k, v in ex.headers}
        return AWSResponse(request.url, ex.status, heads, RawBody(self.driver, ex, errors(request.url)))

    def close(self) -> None:
        self.driver.close()
