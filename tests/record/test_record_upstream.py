"""The recording proxy's upstream client (``autocue.record.upstream``) against a raw HTTP/1.1
server on loopback that answers with exactly the bytes each test gives: framings httpx handled
for the proxy before (chunked, read-to-close, 1xx first, a reply to HEAD), keep-alive reuse,
an upstream that hangs up or stays silent."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from autocue.record.errors import UpstreamClosedError
from autocue.record.upstream import Upstream


class RawServer:
    """Records each request's bytes; ``answer(request_head)`` gives the bytes to send back (``None``:
    hang up without a word) and whether to close the connection after them."""

    def __init__(self, answer: Callable[[bytes], tuple[bytes | None, bool]]) -> None:
        self.answer = answer
        self.requests: list[bytes] = []
        self.connections = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    name, _, value = line.partition(b":")
                    if name.lower() == b"content-length":
                        length = int(value)
                body = await reader.readexactly(length)
                self.requests.append(head + body)
                data, close = self.answer(head)
                if data is None:
                    break
                writer.write(data)
                await writer.drain()
                if close:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


async def _serve(answer: Callable[[bytes], tuple[bytes | None, bool]]) -> tuple[RawServer, asyncio.Server, str]:
    raw = RawServer(answer)
    server = await asyncio.start_server(raw.handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    return raw, server, f"http://127.0.0.1:{port}"


async def _read(up: Upstream, url: str, method: str = "POST", body: bytes = b"{}") -> tuple[int, str | None, bytes]:
    reply = await up.send(method, url, [(b"content-type", b"application/json")], body)
    try:
        data = b"".join([chunk async for chunk in reply])
    finally:
        reply.close()
    return reply.status, reply.get("content-type"), data


def test_framings_keep_alive_and_what_the_upstream_receives() -> None:
    replies = {
        b"/length": b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\nContent-Length: 5\r\n\r\nhello",
        b"/chunked": (b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
                      b"6\r\ndata: \r\n3\r\nhi\n\r\n0\r\n\r\n"),
        b"/continue": b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok",
        b"/head": b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\nContent-Length: 999\r\n\r\n",
    }

    def answer(head: bytes) -> tuple[bytes | None, bool]:
        target = head.split(b" ")[1].split(b"?")[0]
        return replies[target], False

    async def main() -> None:
        raw, server, base = await _serve(answer)
        async with server:
            up = Upstream(base, timeout=10)
            assert await _read(up, base + "/length?x=1 2") == (200, "text/plain", b"hello")
            assert await _read(up, base + "/chunked") == (200, "text/event-stream", b"data: hi\n")
            assert await _read(up, base + "/continue") == (201, None, b"ok")
            assert await _read(up, base + "/head", "HEAD", b"") == (200, "text/plain", b"")
            assert await _read(up, base + "/length") == (200, "text/plain", b"hello")
            assert raw.connections == 1  # one keep-alive connection served them all
            await up.aclose()
        first = raw.requests[0]
        port = base.rsplit(":", 1)[1]
        assert first.startswith(b"POST /length?x=1%202 HTTP/1.1\r\nHost: 127.0.0.1:" + port.encode() + b"\r\n")
        assert b"content-type: application/json\r\n" in first and first.endswith(b"Content-Length: 2\r\n\r\n{}")
        assert b"Content-Length" not in raw.requests[3]  # HEAD without a body: none sent

    asyncio.run(main())


def test_a_reply_read_to_the_close_and_credentials_in_the_upstream_url() -> None:
    def answer(head: bytes) -> tuple[bytes | None, bool]:
        return b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\nuntil the end", True

    async def main() -> None:
        raw, server, base = await _serve(answer)
        async with server:
            up = Upstream(base.replace("://", "://user:p%40ss@"), timeout=10)
            reply = await up.send("POST", base + "/v1/x", [(b"authorization", b"Bearer client-key")], b"{}")
            assert b"".join([c async for c in reply]) == b"until the end"
            reply.close()
            assert await _read(up, base + "/again") == (200, "text/plain", b"until the end")
            assert raw.connections == 2  # the closed connection was not reused
            await up.aclose()
        assert b"Authorization: Basic dXNlcjpwQHNz\r\n" in raw.requests[0]  # user:p@ss, in place of the client's
        assert b"client-key" not in raw.requests[0]

    asyncio.run(main())


def test_an_upstream_that_hangs_up_or_says_nothing_is_an_error_not_a_reply() -> None:
    def hang_up(head: bytes) -> tuple[bytes | None, bool]:
        if b"/cut" in head:
            return b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npart", True
        return None, True

    async def main() -> None:
        _, server, base = await _serve(hang_up)
        async with server:
            up = Upstream(base, timeout=10)
            with pytest.raises(UpstreamClosedError, match="without replying"):
                await up.send("POST", base + "/v1/x", [], b"{}")
            with pytest.raises(UpstreamClosedError, match="during its reply"):
                await _read(up, base + "/cut")
            await up.aclose()
        silent = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
        async with silent:
            url = f"http://127.0.0.1:{silent.sockets[0].getsockname()[1]}"
            up = Upstream(url, timeout=0.2)
            with pytest.raises(TimeoutError, match=r"sent nothing for 0\.2 s"):
                await up.send("POST", url + "/v1/x", [], b"{}")
            await up.aclose()

    asyncio.run(main())
