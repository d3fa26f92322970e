"""Issue 27: a client that leaves in the middle of a streamed response is not an error. Real
uvicorn servers on loopback (``serve`` and ``autocue simulate``'s), raw socket clients that read
the first bytes of a stream and close: no traceback, one debug line each, the stream's cleanup
run, and the server still answers."""

from __future__ import annotations

import logging
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

import httpx2
import openai
import pytest

from autocue.llm.types import TextContent
from autocue.mockllm import serve
from autocue.scenario import load_scenario_text
from autocue.script import Script, ScriptedResponse, Turn
from autocue.simulate import SimulationServer

N = 50
LEFT = "the client left during a streamed response"
SLOW = """
name: slow
timeline:
  - assistant: [[30000, one], [100, two]]
  - complete: true
"""


@contextmanager
def logs() -> Iterator[list[logging.LogRecord]]:
    """Every record of the server's loggers (uvicorn's do not propagate), autocue's from DEBUG up."""
    records: list[logging.LogRecord] = []
    handler = logging.Handler(logging.DEBUG)
    seen: set[int] = set()

    def keep(record: logging.LogRecord) -> None:  # a record reaches several of these loggers: keep it once
        if id(record) not in seen:
            seen.add(id(record))
            records.append(record)

    handler.emit = keep  # type: ignore[method-assign]
    names = ("", "uvicorn", "uvicorn.error", "asyncio", "autocue")
    asgi_log = logging.getLogger("autocue.mockllm.asgi")
    level = asgi_log.level
    asgi_log.setLevel(logging.DEBUG)
    for name in names:
        logging.getLogger(name).addHandler(handler)
    try:
        yield records
    finally:
        for name in names:
            logging.getLogger(name).removeHandler(handler)
        asgi_log.setLevel(level)


def read_part_and_leave(url: str, request: bytes, until: bytes) -> None:
    """Send ``request``, read until ``until`` has arrived, close the socket."""
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    with socket.create_connection((host, port), timeout=5) as s:
        s.sendall(request.replace(b"HOST", f"{host}:{port}".encode()))
        got = b""
        deadline = time.monotonic() + 5
        while until not in got and time.monotonic() < deadline:
            chunk = s.recv(4096)
            if not chunk:
                break
            got += chunk
        assert until in got, got[:300]


def settle(records: list[logging.LogRecord], want: int) -> list[str]:
    """The debug lines of the departures, once ``want`` of them are in (at most 10 s)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        left = [r.getMessage() for r in records if LEFT in r.getMessage()]
        if len(left) >= want:
            return left
        time.sleep(0.02)
    return [r.getMessage() for r in records if LEFT in r.getMessage()]


def problems(records: list[logging.LogRecord]) -> list[str]:
    return [f"{r.name} {r.levelname}: {r.getMessage()} {r.exc_info!r}" for r in records
            if r.levelno > logging.DEBUG or r.exc_info is not None]


@pytest.mark.slow
def test_clients_leaving_a_mock_server_stream_log_nothing_but_debug_lines() -> None:
    reply = ScriptedResponse([TextContent("first"), TextContent("second")], chunk_delays_ms=[0, 30_000])
    body = b'{"model": "m", "stream": true, "messages": [{"role": "user", "content": "hi"}]}'
    with serve(Script([Turn(None, [reply])], name="slow"), speed=1) as server, logs() as records:
        for i in range(N):
            request = (b"POST /v1/chat/completions HTTP/1.1\r\nHost: HOST\r\nContent-Type: application/json\r\n"
                       b"Authorization: Bearer key-%d\r\nContent-Length: %d\r\n\r\n%s" % (i, len(body), body))
            read_part_and_leave(server.base_url, request, b"first")
        left = settle(records, N)
        assert problems(records) == []
        assert len(left) == N, left
        oa = openai.OpenAI(base_url=server.openai_base_url, api_key="after", max_retries=0)
        with oa.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}], stream=True,
                                        timeout=10) as stream:
            first = next(c for c in stream if c.choices and c.choices[0].delta.content)
            assert first.choices[0].delta.content == "first"
        assert problems(records) == []


@pytest.mark.slow
def test_clients_leaving_a_simulation_event_stream_log_nothing_but_debug_lines() -> None:
    with SimulationServer([load_scenario_text(SLOW)], speed=1) as server, logs() as records:
        r = httpx2.post(server.url + "/api/v1/sessions", json={"scenario": "slow"})
        assert r.status_code == 201, r.text
        sid = r.json()["id"]
        request = f"GET /api/v1/sessions/{sid}/events HTTP/1.1\r\nHost: HOST\r\n\r\n".encode()
        for _ in range(N):
            read_part_and_leave(server.url, request, b"retry:")
        left = settle(records, N)
        assert problems(records) == []
        assert len(left) == N, left
        assert httpx2.get(f"{server.url}/api/v1/sessions/{sid}").json()["status"] == "running"
        assert problems(records) == []


def test_the_streams_cleanup_runs_for_every_client_that_leaves() -> None:
    """The stream's generator is closed (its ``finally`` run) before the response returns,
    for each of ``N`` clients that leave after its first frame."""
    import asyncio
    from collections.abc import AsyncIterator

    import uvicorn

    from autocue.mockllm.asgi import Request, Response, Route, Router, StreamingResponse
    from autocue.mockllm.server import serve_in_thread, uvicorn_config
    from autocue.mockllm.sockets import bind_socket

    finished: list[int] = []

    async def slow(request: Request) -> Response:
        async def frames() -> AsyncIterator[bytes]:
            try:
                yield b"frame 0\n"
                await asyncio.sleep(30)
                yield b"frame 1\n"
            finally:
                finished.append(1)

        return StreamingResponse(frames(), media_type="text/plain")

    async def refused(request: Request, status: int, headers: dict[str, str]) -> Response:
        return Response(b"no", status, headers)

    sock = bind_socket()
    server = uvicorn.Server(uvicorn_config(Router([Route("/slow", slow, methods=["GET"])], refused)))
    thread = serve_in_thread(server, lambda: server.run(sockets=[sock]), name="leave-test", what="test server")
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    try:
        with logs() as records:
            for _ in range(N):
                read_part_and_leave(url, b"GET /slow HTTP/1.1\r\nHost: HOST\r\n\r\n", b"frame 0")
            left = settle(records, N)
            assert len(left) == N and len(finished) == N, (len(left), len(finished))
            assert problems(records) == []
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
