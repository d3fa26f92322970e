"""serve_in_thread: the one way autocue's HTTP servers start in a background thread."""

from __future__ import annotations

import httpx2
import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from autocue.mockllm.server import serve_in_thread, uvicorn_config
from autocue.mockllm.sockets import bind_socket


def _app() -> Starlette:
    return Starlette(routes=[Route("/", lambda request: PlainTextResponse("up"))])


def test_returns_once_the_server_answers_and_stops_on_should_exit() -> None:
    sock = bind_socket()
    server = uvicorn.Server(uvicorn_config(_app()))
    thread = serve_in_thread(server, lambda: server.run(sockets=[sock]), name="t", what="test server")
    try:
        assert httpx2.get(f"http://127.0.0.1:{sock.getsockname()[1]}/").text == "up"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
    assert not thread.is_alive()


def test_a_server_that_fails_before_starting_is_a_runtime_error_naming_it() -> None:
    server = uvicorn.Server(uvicorn_config(_app()))

    def broken() -> None:
        raise OSError("no socket for you")

    with pytest.raises(RuntimeError, match=r"^the test server failed to start: no socket for you$"):
        serve_in_thread(server, broken, name="t", what="test server")
