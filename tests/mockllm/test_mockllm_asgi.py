"""The mock server's own HTTP layer (autocue.mockllm.asgi) routes as starlette did, over uvicorn."""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx2
import pytest
import uvicorn

from autocue.mockllm.asgi import Message, Request, Response, Route, Router, StreamingResponse
from autocue.mockllm.server import serve_in_thread, uvicorn_config
from autocue.mockllm.sockets import bind_socket

STREAM_STOPPED = threading.Event()


async def echo(request: Request) -> Response:
    text = f"{request.method} {request.path} {request.path_params} {request.query} {request.headers.get('x-a')}"
    return Response(text.encode(), 200, {"x-route": "echo"}, media_type="text/plain")


async def body(request: Request) -> Response:
    parts = [chunk async for chunk in request.stream()]
    return Response(b"".join(parts), 201, media_type="application/octet-stream")


async def slow(request: Request) -> Response:
    async def frames() -> AsyncIterator[bytes]:
        try:
            for i in range(100):
                yield f"frame {i}\n".encode()
                await asyncio.sleep(0.05)
        finally:
            STREAM_STOPPED.set()

    return StreamingResponse(frames(), media_type="text/event-stream")


async def refused(request: Request, status: int, headers: dict[str, str]) -> Response:
    return Response(f"refused {status} {request.method} {request.path!r}".encode(), status, headers)


ROUTER = Router([
    Route("/items/{name}", echo, methods=["GET"]),
    Route("/files/{rest:path}/raw", echo, methods=["GET"]),
    Route("/body", body, methods=["POST"]),
    Route("/slow", slow, methods=["GET"]),
    Route("/twice", echo, methods=["PUT"]),
    Route("/twice", body, methods=["POST"]),
], refused)


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    sock = bind_socket()
    server = uvicorn.Server(uvicorn_config(ROUTER))
    thread = serve_in_thread(server, lambda: server.run(sockets=[sock]), name="asgi-test", what="test server")
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


def test_path_parameters_query_and_headers(base: str) -> None:
    r = httpx2.get(base + "/items/a%20b?x=1&x=2&y=", headers={"x-a": "h"})
    assert r.status_code == 200 and r.headers["x-route"] == "echo"
    assert r.headers["content-type"] == "text/plain; charset=utf-8"
    assert r.text == "GET /items/a b {'name': 'a b'} {'x': '2', 'y': ''} h"
    r = httpx2.get(base + "/files/a/b/c/raw")
    assert r.text.startswith("GET /files/a/b/c/raw {'rest': 'a/b/c'}")
    assert httpx2.get(base + "/items/a/b").status_code == 404  # a plain parameter is one segment


def test_head_on_a_get_route_and_the_first_route_taking_the_method(base: str) -> None:
    r = httpx2.head(base + "/items/x")
    assert (r.status_code, r.headers["x-route"], r.content) == (200, "echo", b"")  # uvicorn drops the body
    assert int(r.headers["content-length"]) == len("HEAD /items/x {'name': 'x'} {} None")
    r = httpx2.post(base + "/twice", content=b"second route")
    assert (r.status_code, r.content) == (201, b"second route")


def test_refusals_go_to_the_refused_handler(base: str) -> None:
    r = httpx2.delete(base + "/items/x")
    assert (r.status_code, r.headers["allow"], r.text) == (405, "GET, HEAD", "refused 405 DELETE '/items/x'")
    r = httpx2.get(base + "/nowhere")
    assert (r.status_code, r.text) == (404, "refused 404 GET '/nowhere'")
    r = httpx2.get(base + "/files/a%0Ab/raw")  # a path parameter never spans a newline
    assert r.status_code == 404


def test_a_chunked_body_is_read_whole(base: str) -> None:
    def chunks() -> Iterator[bytes]:
        yield b"one,"
        yield b"two"

    r = httpx2.post(base + "/body", content=chunks())
    assert (r.status_code, r.content) == (201, b"one,two")


def test_a_stream_stops_when_the_client_goes_away(base: str) -> None:
    STREAM_STOPPED.clear()
    with httpx2.stream("GET", base + "/slow") as r:
        assert r.headers["content-type"] == "text/event-stream; charset=utf-8"
        assert "content-length" not in r.headers
        assert next(r.iter_lines()) == "frame 0"
    # the whole stream would take 5 s; leaving after the first frame ends it at once
    assert STREAM_STOPPED.wait(2.0)


def test_a_client_gone_before_its_body_arrived_gets_nothing_and_no_error(base: str) -> None:
    errors: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = errors.append  # type: ignore[method-assign]
    logging.getLogger("uvicorn.error").addHandler(handler)
    try:
        port = int(base.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port)) as s:
            s.sendall(b"POST /body HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\npart")
        time.sleep(0.2)
        assert httpx2.get(base + "/items/still-up").status_code == 200
    finally:
        logging.getLogger("uvicorn.error").removeHandler(handler)
    assert [r.getMessage() for r in errors if r.levelno >= logging.ERROR] == []


def test_no_route_reads_a_disconnect_as_a_request() -> None:
    sent: list[Message] = []
    messages: list[Message] = [{"type": "http.disconnect"}]

    async def receive() -> Message:
        return messages.pop(0)

    async def send(message: Message) -> None:
        sent.append(message)

    scope: dict[str, Any] = {"type": "http", "method": "POST", "path": "/body", "headers": [], "query_string": b""}
    asyncio.run(ROUTER(scope, receive, send))
    assert sent == []


def test_the_mock_app_takes_an_embedding_servers_lifespan() -> None:
    from autocue.mockllm import MockState, ServerOptions, create_app

    sock = bind_socket()
    config = uvicorn.Config(create_app(MockState([], ServerOptions())), lifespan="on", log_level="warning")
    server = uvicorn.Server(config)
    thread = serve_in_thread(server, lambda: server.run(sockets=[sock]), name="lifespan", what="embedding server")
    try:
        r = httpx2.get(f"http://127.0.0.1:{sock.getsockname()[1]}/")
        assert r.json() == {"ok": True, "server": "autocue-mockllm", "scenarios": []}
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
    assert not thread.is_alive()
