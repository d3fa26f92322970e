"""``Upstream``: the recording proxy's HTTP/1.1 client to its one upstream.

The proxy forwards every request to a single origin and streams each reply back as it arrives,
so it needs no general HTTP client: a pool of keep-alive connections to that origin, each an
asyncio protocol whose replies are parsed by httptools (llhttp, C; the parser the mock server's
own protocol uses). A request is written in one ``write``, head and body together (one TCP
segment for a small request: the upstream wakes once). This costs about a tenth of the CPU of
httpx's ``AsyncClient`` per request (0.08 against 0.7 ms, forwarding to ``autocue serve``),
which was a third of the proxy's CPU per request.

What reaches the upstream is what httpx sent: the client's headers as given, then ``Host``
(the upstream's ``host[:port]``) and ``Content-Length`` (``0`` for an empty ``POST`` / ``PUT``
/ ``PATCH``); the URL's path and query as ``httpx2.URL`` encodes them; credentials in the
upstream URL (``https://user:pass@host``) as ``Authorization: Basic``, in place of the client's.
HTTPS uses httpx's SSL context (certifi, or ``SSL_CERT_FILE`` / ``SSL_CERT_DIR``), ALPN
``http/1.1``. No proxy from the environment (as before: the client had its own transport), no
redirects followed, no cookie jar. Informational (1xx) replies are skipped; a reply to ``HEAD``
ends with its head; a reply without ``Content-Length`` or chunked framing ends when the
upstream closes the connection. Timeouts: ``connect`` seconds to connect, ``timeout`` seconds
for each wait on the upstream (the head, then each piece of the body).
"""

from __future__ import annotations

import asyncio
import base64
import ssl
from collections import deque
from urllib.parse import unquote, urlsplit

import httptools
import httpx2

from autocue.record.errors import UpstreamClosedError

MAX_IDLE = 200
"""Idle keep-alive connections kept for reuse."""
_PAUSE = 256 * 1024
"""Bytes of reply body buffered (the client reads slower than the upstream sends) before the
proxy stops reading the upstream's socket until they have been passed on."""


class Reply:
    """One reply: ``status``, ``headers`` (as received: ``(name, value)`` bytes), its body's pieces
    as they arrive by ``async for``. ``close()`` gives the connection back when the reply was
    read whole and may be kept, else closes it."""

    def __init__(self, conn: _Connection, head_only: bool, timeout: float) -> None:
        self._conn = conn
        self._head_only = head_only
        self._timeout = timeout
        self._parser = httptools.HttpResponseParser(self)
        self.status = 0
        self.headers: list[tuple[bytes, bytes]] = []
        self._has_head = False
        self._until_eof = False
        self._done = False
        self._keep = False
        self._error: BaseException | None = None
        self._body: deque[bytes] = deque()
        self._buffered = 0
        self._paused = False
        self._waiter: asyncio.Future[None] | None = None

    # ------------------------------------------------------------------ headers
    def get(self, name: str, default: str | None = None) -> str | None:
        """The value of header ``name`` (case-insensitive; several joined with ``, ``, as httpx does)."""
        values = self.get_list(name)
        return ", ".join(values) if values else default

    def get_list(self, name: str) -> list[str]:
        key = name.lower().encode("latin-1")
        return [v.decode("latin-1") for k, v in self.headers if k.lower() == key]

    # ------------------------------------------------------------------ reading
    async def _wait(self) -> None:
        self._waiter = asyncio.get_running_loop().create_future()
        try:
            async with asyncio.timeout(self._timeout):
                await self._waiter
        except TimeoutError:
            raise TimeoutError(f"the upstream sent nothing for {self._timeout:g} s") from None
        finally:
            self._waiter = None

    async def head(self) -> None:
        """Wait for the status line and headers."""
        while not self._has_head:
            if self._error is not None:
                raise self._error
            await self._wait()

    def __aiter__(self) -> Reply:
        return self

    async def __anext__(self) -> bytes:
        """The body's next piece (transfer-decoded, content as sent) as it arrives."""
        while not self._body:
            if self._done:
                raise StopAsyncIteration
            if self._error is not None:
                raise self._error
            await self._wait()
        data = self._body.popleft()
        self._buffered -= len(data)
        if self._paused and self._buffered < _PAUSE // 2:
            self._paused = False
            self._conn.resume()
        return data

    def close(self) -> None:
        self._conn.finished(self._done and self._keep and not self._body)

    # ------------------------------------------------------------------ the connection's events
    def feed(self, data: bytes) -> None:
        if self._done:  # bytes past the reply: the connection is not reused
            self._keep = False
            return
        try:
            self._parser.feed_data(data)
        except httptools.HttpParserError as e:
            self._fail(e)

    def eof(self, exc: BaseException | None) -> None:
        if self._done:
            return
        if self._has_head and self._until_eof and exc is None:
            self._done = True
            self._wake()
        else:
            what = "during its reply" if self._has_head else "without replying"
            self._fail(UpstreamClosedError(f"the upstream closed the connection {what}" + (f" ({exc})" if exc else "")))

    def _fail(self, error: BaseException) -> None:
        if self._error is None and not self._done:
            self._error = error
            self._wake()

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    # ------------------------------------------------------------------ httptools callbacks
    def on_header(self, name: bytes, value: bytes) -> None:
        self.headers.append((name, value))

    def on_headers_complete(self) -> None:
        status = self._parser.get_status_code()
        if 100 <= status < 200:  # informational: the reply follows
            self.headers = []
            return
        self.status = status
        self._has_head = True
        names = {k.lower() for k, _ in self.headers}
        self._until_eof = b"content-length" not in names and b"transfer-encoding" not in names
        if self._head_only:  # a reply to HEAD has no body, whatever its Content-Length says
            self._finish()
        self._wake()

    def on_body(self, body: bytes) -> None:
        if self._done:
            return
        self._body.append(body)
        self._buffered += len(body)
        if not self._paused and self._buffered > _PAUSE:
            self._paused = True
            self._conn.pause()
        self._wake()

    def on_message_complete(self) -> None:
        if self._has_head and not self._done:
            self._finish()
            self._wake()

    def _finish(self) -> None:
        self._done = True
        self._keep = self._parser.should_keep_alive()


class _Connection(asyncio.Protocol):
    """A connection to the upstream; the reply in flight gets its bytes."""

    def __init__(self, pool: Upstream) -> None:
        self.pool = pool
        self.transport: asyncio.Transport | None = None
        self.reply: Reply | None = None
        self.closed = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport  # asyncio sets TCP_NODELAY (else Nagle and delayed ACKs: ~40 ms a request)

    def data_received(self, data: bytes) -> None:
        if self.reply is None:  # bytes nobody asked for: this connection is not reused
            self.close()
            return
        self.reply.feed(data)

    def eof_received(self) -> bool | None:
        return None  # close our side too

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self.reply is not None:
            self.reply.eof(exc)

    def pause(self) -> None:
        if self.transport is not None and not self.closed:
            self.transport.pause_reading()

    def resume(self) -> None:
        if self.transport is not None and not self.closed:
            self.transport.resume_reading()

    def finished(self, reusable: bool) -> None:
        """The reply is over: back to the pool when ``reusable``, else closed."""
        self.reply = None
        if reusable and not self.closed:
            self.pool.release(self)
        else:
            self.close()

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()
        self.closed = True


class Upstream:
    """Keep-alive connections to the origin of ``base`` (an ``http://`` or ``https://`` URL)."""

    def __init__(self, base: str, *, timeout: float, connect: float = 10.0) -> None:
        parts = urlsplit(base)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"{base}: not an http:// or https:// URL")
        self.host = parts.hostname
        self.port = parts.port or (443 if parts.scheme == "https" else 80)
        self.timeout = timeout
        self.connect_timeout = connect
        self._ssl: ssl.SSLContext | None = None
        if parts.scheme == "https":
            self._ssl = httpx2.create_ssl_context()
            self._ssl.set_alpn_protocols(["http/1.1"])
        self._basic: bytes | None = None
        if parts.username is not None or parts.password is not None:
            pair = f"{unquote(parts.username or '')}:{unquote(parts.password or '')}".encode()
            self._basic = b"Basic " + base64.b64encode(pair)
        self._idle: list[_Connection] = []

    async def send(self, method: str, url: str, headers: list[tuple[bytes, bytes]], body: bytes) -> Reply:
        """Send a request to ``url`` (on the upstream's origin) and wait for the reply's head."""
        target = httpx2.URL(url)
        lines = [b"%s %s HTTP/1.1\r\nHost: %s\r\n" % (method.encode("ascii"), target.raw_path, target.netloc)]
        for k, v in headers:
            if self._basic is None or k.lower() != b"authorization":
                lines.append(b"%s: %s\r\n" % (k, v))
        if self._basic is not None:
            lines.append(b"Authorization: %s\r\n" % self._basic)
        if body or method in ("POST", "PUT", "PATCH"):
            lines.append(b"Content-Length: %d\r\n" % len(body))
        lines.append(b"\r\n")
        lines.append(body)
        conn = await self._connection()
        reply = Reply(conn, method == "HEAD", self.timeout)
        conn.reply = reply
        assert conn.transport is not None
        conn.transport.write(b"".join(lines))
        try:
            await reply.head()
        except BaseException:
            conn.finished(False)
            raise
        return reply

    async def _connection(self) -> _Connection:
        while self._idle:
            conn = self._idle.pop()
            if not conn.closed:
                return conn
        loop = asyncio.get_running_loop()
        async with asyncio.timeout(self.connect_timeout):
            _, conn = await loop.create_connection(lambda: _Connection(self), self.host, self.port, ssl=self._ssl,
                                                   server_hostname=self.host if self._ssl else None)
        return conn

    def release(self, conn: _Connection) -> None:
        if len(self._idle) < MAX_IDLE:
            self._idle.append(conn)
        else:
            conn.close()

    async def aclose(self) -> None:
        idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()
