"""Running the mock server: in a background thread (tests) or in the foreground (CLI).

``serve(source, ...)`` is a context manager giving a started ``MockLLMServer`` on
127.0.0.1 and a free port; ``server.base_url`` is ``http://127.0.0.1:PORT`` (``/v1`` is
``server.openai_base_url``). The listening socket has ``TCP_NODELAY``; uvicorn runs the server
(sockets, signals, shutdown) with autocue's own HTTP protocol (``protocol.py``: the httptools
parser, C, calling the app directly; uvicorn's pure-Python h11 protocol when
``AUTOCUE_HTTP_PARSER=h11``; it has no WebSocket support: upgrades get 426), no access log. Leaving
the block stops the server and joins its thread.
"""

from __future__ import annotations

import asyncio
import os
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from autocue.mockllm.app import TRANSPORT_KEY, MockApp, create_app
from autocue.mockllm.asgi import ASGIApp
from autocue.mockllm.journal import JOURNAL_CAP
from autocue.mockllm.options import DEFAULT_MAX_BODY, MAX_SESSIONS, SESSION_TTL, server_options
from autocue.mockllm.protocol import DirectHttpProtocol
from autocue.mockllm.sockets import bind_socket
from autocue.mockllm.sources import Source
from autocue.mockllm.state import MockState
from autocue.mockllm.views import StateViews

if TYPE_CHECKING:  # chaos and fuzzing load with their first spec
    from autocue.mockllm.wire.fuzz import FuzzSpec
    from autocue.script.chaos import ChaosSpec


class TransportHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol (the C parser) that puts the connection's transport in each
    request's ``scope["state"]["autocue_transport"]`` (chaos resets a connection through it):
    what served before ``DirectHttpProtocol``, kept for ``bench_mockllm.py --protocols``."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self.app_state = {**self.app_state, TRANSPORT_KEY: transport}
        super().connection_made(transport)


@cache
def transport_h11_protocol() -> type[asyncio.Protocol]:
    """uvicorn's h11 protocol (pure Python) with the transport in ``scope["state"]``; built on
    first use, so a server on httptools never imports h11."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class TransportH11Protocol(H11Protocol):
        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            self.app_state = {**self.app_state, TRANSPORT_KEY: transport}
            super().connection_made(transport)

    return TransportH11Protocol


PARSERS: dict[str, Callable[[], type[asyncio.Protocol]]] = {
    "httptools": lambda: DirectHttpProtocol, "h11": transport_h11_protocol}
PARSER_ENV = "AUTOCUE_HTTP_PARSER"
"""Names the HTTP parser of every server autocue runs (``httptools``, the default, or ``h11``)."""


def http_protocol() -> type[asyncio.Protocol]:
    """The protocol class for ``AUTOCUE_HTTP_PARSER`` (default ``httptools``)."""
    name = os.environ.get(PARSER_ENV, "").strip().lower() or "httptools"
    found = PARSERS.get(name)
    if found is None:
        raise ValueError(f"{PARSER_ENV}={name!r} is not an HTTP parser autocue knows: use one of "
                         f"{', '.join(PARSERS)}")
    return found()


def serve_in_thread(server: uvicorn.Server, target: Callable[[], object], *, name: str, what: str) -> threading.Thread:
    """Run ``target`` (which serves ``server``) in a daemon thread named ``name``; return once the
    server has started. If it stops before that, the thread is joined and ``RuntimeError`` names
    ``what`` and the reason. Shared by the mock server, the recording proxy and the simulation server."""
    failure: list[BaseException] = []
    finished = threading.Event()

    def run() -> None:
        try:
            target()
        except BaseException as e:  # surfaced below
            failure.append(e)
        finally:
            finished.set()

    thread = threading.Thread(target=run, name=name, daemon=True)
    thread.start()
    while not server.started and not finished.is_set():
        finished.wait(0.005)
    if failure or not server.started:
        server.should_exit = True
        thread.join(timeout=10)
        raise RuntimeError(f"the {what} failed to start: {failure[0] if failure else 'unknown'}")
    return thread


def uvicorn_config(app: ASGIApp, log_level: str = "warning") -> uvicorn.Config:
    return uvicorn.Config(app, http=http_protocol(), ws="none", lifespan="off", access_log=False,
                          log_level=log_level, timeout_keep_alive=30, server_header=False, proxy_headers=False)


class LoopbackServer:
    """An ASGI app served by uvicorn on ``host:port`` (0: a free port) in a daemon thread:
    ``start()`` binds and returns once it answers, ``stop()`` ends it; also a context manager.
    The mock server, the recording proxy and the simulation server are ones."""

    what = "server"
    """Names the server in its thread's name and in errors."""
    thread_name = "autocue"

    def __init__(self, app: ASGIApp, host: str, port: int) -> None:
        self.app = app
        self.host = host
        self.port = port
        self._sock: socket.socket | None = None
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        """``http://HOST:PORT`` (what Anthropic clients and Gemini's base URL take)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def openai_base_url(self) -> str:
        """``http://HOST:PORT/v1`` (what OpenAI clients take)."""
        return self.base_url + "/v1"

    def _run(self, server: uvicorn.Server, sock: socket.socket) -> None:
        """Serve on ``sock`` until ``server.should_exit`` (in the server's thread)."""
        server.run(sockets=[sock])

    def start(self) -> Self:
        if self._thread is not None:
            raise RuntimeError(f"{self.what} already started")
        sock = self._sock = bind_socket(self.host, self.port)
        self.port = sock.getsockname()[1]
        server = self._server = uvicorn.Server(uvicorn_config(self.app))
        try:
            self._thread = serve_in_thread(server, lambda: self._run(server, sock),
                                           name=f"{self.thread_name}:{self.port}", what=self.what)
        except RuntimeError:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
        if self._sock is not None:
            self._sock.close()
        self._thread = self._server = self._sock = None

    def __enter__(self) -> Self:
        return self.start() if self._thread is None else self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class MockLLMServer(LoopbackServer, StateViews):
    """A mock LLM API server. ``start()`` runs it in a daemon thread; ``stop()`` ends it."""

    what = "mock LLM server"
    thread_name = "autocue-mockllm"
    app: MockApp

    def __init__(self, source: Source = (), *, host: str = "127.0.0.1", port: int = 0, speed: float = 0.0,
                 strict_tools: bool = False, record_dir: str | Path | None = None, profile: str | None = None,
                 workspace: str | Path | None = None, max_body: int = DEFAULT_MAX_BODY,
                 admin_token: str | None = None, journal_size: int = JOURNAL_CAP,
                 chaos: str | ChaosSpec | None = None, fuzz: str | int | FuzzSpec | None = None,
                 session_ttl: float = SESSION_TTL, max_sessions: int = MAX_SESSIONS,
                 session_key: str | None = None, match: str | None = None) -> None:
        options = server_options(speed=speed, strict_tools=strict_tools, record_dir=record_dir, profile=profile,
                                 workspace=workspace, max_body=max_body, admin_token=admin_token,
                                 journal_size=journal_size, chaos=chaos, fuzz=fuzz, session_ttl=session_ttl,
                                 max_sessions=max_sessions, session_key=session_key, match=match)
        self.state = MockState(source, options)
        super().__init__(create_app(self.state), host, port)


@contextmanager
def serve(source: Source = (), **kwargs: Any) -> Iterator[MockLLMServer]:
    """``with serve(script_or_scenario_or_path) as server:`` — a started server on a free port.

    Keyword arguments are ``MockLLMServer``'s (``speed``, ``strict_tools``, ``record_dir``,
    ``profile``, ``workspace``, ``host``, ``port``, ``max_body``, ``admin_token``, ``journal_size``,
    ``chaos``: a chaos spec for every session, ``fuzz``: a fuzz spec or seed; see docs/chaos.md;
    ``session_ttl``, ``max_sessions``: when sessions expire, see docs/mock-server.md).
    """
    with MockLLMServer(source, **kwargs) as server:
        yield server
