"""A tiny scripted HTTP/1.1 server on 127.0.0.1 (port 0) for provider and CLI tests.

It runs its own asyncio loop in a thread, records every request (method, path, headers,
JSON body) and answers with queued ``Reply`` objects: a status, headers and body chunks sent
with chunked transfer encoding, optionally cut mid-body (connection closed without the
final chunk) or held open until the client goes away (for abort tests).
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Reply:
    status: int = 200
    chunks: list[bytes] = field(default_factory=list)
    headers: dict[str, str] = field(default_factory=lambda: {"content-type": "text/event-stream"})
    cut_after: int | None = None
    """Close the connection after this many chunks, without the terminating chunk."""
    hold: bool = False
    """After the chunks, keep the connection open until the client closes it."""
    chunk_delay: float = 0.0


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


def sse(event: str | None, data: Any) -> bytes:
    """One SSE event; ``data`` is JSON-encoded unless it is already a string."""
    payload = data if isinstance(data, str) else json.dumps(data)
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {payload}\n\n".encode()


def json_reply(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> Reply:
    h = {"content-type": "application/json"}
    h.update(headers or {})
    return Reply(status=status, chunks=[json.dumps(data).encode()], headers=h)


class WireServer:
    def __init__(self) -> None:
        self.requests: list[Request] = []
        self.replies: deque[Reply | Callable[[Request], Reply]] = deque()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.base_events.Server | None = None
        self._thread: threading.Thread | None = None
        self.port = 0
        self.closed_early = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def push(self, *replies: Reply | Callable[[Request], Reply]) -> None:
        self.replies.extend(replies)

    def start(self) -> WireServer:
        ready = threading.Event()

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            asyncio.set_event_loop(loop)

            async def boot() -> None:
                self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
                self.port = self._server.sockets[0].getsockname()[1]
                ready.set()

            loop.run_until_complete(boot())
            loop.run_forever()
            loop.close()

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()
        ready.wait(10)
        return self

    def stop(self) -> None:
        loop = self._loop
        if loop is None:
            return

        async def shutdown() -> None:
            if self._server is not None:
                self._server.close()
            for t in asyncio.all_tasks():
                if t is not asyncio.current_task():
                    t.cancel()

        asyncio.run_coroutine_threadsafe(shutdown(), loop).result(5)
        loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(5)

    def __enter__(self) -> WireServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, path, _ = lines[0].split(" ", 2)
                headers: dict[str, str] = {}
                for line in lines[1:]:
                    if ":" in line:
                        k, v = line.split(":", 1)
                        headers[k.strip().lower()] = v.strip()
                n = int(headers.get("content-length", "0"))
                raw = await reader.readexactly(n) if n else b""
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = raw.decode("utf-8", "replace")
                req = Request(method, path, headers, body)
                self.requests.append(req)
                if not self.replies:
                    reply = Reply(
                        500,
                        [b'{"error":{"message":"test server: no reply queued"}}'],
                        {"content-type": "application/json"},
                    )
                else:
                    r = self.replies.popleft()
                    reply = r(req) if callable(r) else r
                keep = await self._send(reply, reader, writer)
                if not keep:
                    return
        except (asyncio.IncompleteReadError, ConnectionError):
            return
        finally:
            try:
                writer.close()
            except Exception:
                pass

    async def _send(self, reply: Reply, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        status_text = {
            200: "OK",
            400: "Bad Request",
            429: "Too Many Requests",
            500: "Internal Server Error",
            503: "Service Unavailable",
            529: "Overloaded",
        }.get(reply.status, "Status")
        head = [f"HTTP/1.1 {reply.status} {status_text}"]
        for k, v in reply.headers.items():
            head.append(f"{k}: {v}")
        head.append("transfer-encoding: chunked")
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode())
        await writer.drain()
        for i, chunk in enumerate(reply.chunks):
            if reply.cut_after is not None and i >= reply.cut_after:
                # Cut in the middle of an event: half of this chunk, then close.
                part = chunk[: max(1, len(chunk) // 2)]
                writer.write(f"{len(part):x}\r\n".encode() + part + b"\r\n")
                await writer.drain()
                self.closed_early += 1
                return False
            if reply.chunk_delay:
                await asyncio.sleep(reply.chunk_delay)
            writer.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
            await writer.drain()
        if reply.hold:
            # Wait for the client to go away (abort).
            try:
                await reader.read()
            except ConnectionError:
                pass
            self.closed_early += 1
            return False
        writer.write(b"0\r\n\r\n")
        await writer.drain()
        return True
