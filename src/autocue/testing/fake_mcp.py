"""``fake_mcp_server``: a real MCP server for tests, its tools answered by Python handlers.

    with fake_mcp_server(tools={"search": lambda args: f"found {args['q']}", "ping": "pong"}) as server:
        with create_test_session(mcp_servers={"docs": server}) as t:
            t.run_sync(when("Search", [call("mcp__docs__search", {"q": "x"}), say("Done.")]))

A tool value is a handler (sync or async callable taking the arguments dict), a fixed result,
or ``FakeTool(handler_or_result, description=..., input_schema=...)``. A handler or result may
be a string (text), a dict ``{"content": [MCP content blocks], "isError"?, "structuredContent"?}``,
a ``CallToolResult``, or any JSON value (sent as its JSON text); a handler that raises gives
an ``isError`` result with the exception's message.

``transport="http"`` (default) serves streamable HTTP (``/mcp``) and ``transport="sse"`` the
older HTTP+SSE transport (``/sse``, messages posted to ``/messages/``) on 127.0.0.1 and a free
port from a thread of the test process, so handlers may be closures; ``server.set_tools(...)``
replaces the tools and sends ``notifications/tools/list_changed``; ``server.go_down()`` cuts
every connection and refuses new ones (a server that died) and ``server.come_back()`` serves
again on the same port. ``transport="stdio"`` makes
``server.config`` start a child process (``python -m autocue.testing.fake_mcp_child``) whose
handlers must be module-level functions (imported there by name). Either way
``server.calls`` lists the calls received as ``(tool, arguments)``, and ``server.config`` is
the server's ``mcp.json`` entry.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import os
import socket
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from autocue.testing.errors import HarnessError

OPEN_SCHEMA: dict[str, Any] = {"type": "object", "additionalProperties": True}


@dataclass(frozen=True, slots=True)
class FakeTool:
    """A fake MCP tool with its description and input schema (default: any object)."""

    result: Any
    description: str = ""
    input_schema: Mapping[str, Any] | None = None


def as_fake_tool(value: Any) -> FakeTool:
    return value if isinstance(value, FakeTool) else FakeTool(value)


async def run_handler(tool: FakeTool, args: dict[str, Any]) -> Any:
    """The tool's answer as an MCP ``CallToolResult`` (a raising handler is an error result)."""
    import anyio
    import mcp_types as mt

    value = tool.result
    try:
        if callable(value):
            if inspect.iscoroutinefunction(value):
                value = await value(args)
            else:  # a blocking handler must not stall the server's other requests
                value = await anyio.to_thread.run_sync(value, args)
                if inspect.isawaitable(value):
                    value = await value
    except Exception as e:
        return mt.CallToolResult(content=[mt.TextContent(text=str(e) or type(e).__name__)], is_error=True)
    return to_call_result(value)


def to_call_result(value: Any) -> Any:
    import mcp_types as mt

    if isinstance(value, mt.CallToolResult):
        return value
    if isinstance(value, str):
        return mt.CallToolResult(content=[mt.TextContent(text=value)])
    if isinstance(value, dict) and isinstance(value.get("content"), list):
        return mt.CallToolResult.model_validate(value)
    return mt.CallToolResult(content=[mt.TextContent(text=json.dumps(value, ensure_ascii=False, default=str))])


def build_server(
    tools: Callable[[], Mapping[str, FakeTool]],
    on_call: Callable[[str, dict[str, Any], Any], None],
    name: str = "autocue-fake",
) -> Any:
    """A low-level MCP ``Server`` listing ``tools()`` and answering calls through their handlers."""
    import mcp_types as mt
    from mcp.server.lowlevel import Server

    async def list_tools(ctx: Any, params: Any) -> mt.ListToolsResult:
        on_call("", {}, ctx.session)  # remember the session (for list_changed), record nothing
        return mt.ListToolsResult(tools=[
            mt.Tool(name=n, description=t.description, input_schema=dict(t.input_schema or OPEN_SCHEMA))
            for n, t in tools().items()
        ])

    async def call_tool(ctx: Any, params: mt.CallToolRequestParams) -> mt.CallToolResult:
        args = dict(params.arguments or {})
        on_call(params.name, args, ctx.session)
        tool = tools().get(params.name)
        if tool is None:
            return mt.CallToolResult(content=[mt.TextContent(text=f"unknown tool {params.name!r}")], is_error=True)
        result: mt.CallToolResult = await run_handler(tool, args)
        return result

    return Server(name, on_list_tools=list_tools, on_call_tool=call_tool)


def handler_ref(name: str, value: Any) -> dict[str, Any]:
    """How a stdio child gets a tool: its result as JSON, or its handler as ``module:qualname``."""
    tool = as_fake_tool(value)
    out: dict[str, Any] = {"description": tool.description, "input_schema": dict(tool.input_schema or OPEN_SCHEMA)}
    fn = tool.result
    if callable(fn):
        qual = getattr(fn, "__qualname__", "")
        module = getattr(fn, "__module__", None)
        if not module or "<" in qual or module == "__main__":
            raise HarnessError(
                f"fake_mcp_server(transport='stdio'): the handler of tool {name!r} ({qual or fn!r}) cannot be "
                "imported by the child process; use a module-level function, a fixed result, or transport='http'"
            )
        out["handler"] = f"{module}:{qual}"
    else:
        to_call_result(fn)  # refuse a bad result here, not in the child
        out["result"] = fn
    return out


class FakeMCPServer:
    """A running fake server (see the module docstring). ``config`` is its ``mcp.json`` entry."""

    def __init__(self, tools: Mapping[str, Any], *, transport: Literal["http", "sse", "stdio"] = "http",
                 name: str = "autocue-fake") -> None:
        if transport not in ("http", "sse", "stdio"):
            raise HarnessError(f"fake_mcp_server: transport must be 'http', 'sse' or 'stdio', got {transport!r}")
        self.transport = transport
        self.name = name
        self._tools = {n: as_fake_tool(v) for n, v in tools.items()}
        self._calls: list[tuple[str, dict[str, Any]]] = []
        self._sessions: list[Any] = []
        self._lock = threading.Lock()
        self._dir: Path | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._uvicorn: Any = None
        self._thread: threading.Thread | None = None
        self._sock: socket.socket | None = None
        self.url: str | None = None
        self.config: dict[str, Any] = {}

    # ------------------------------------------------------------------ start / stop
    def start(self) -> FakeMCPServer:
        self._dir = Path(tempfile.mkdtemp(prefix="autocue-fake-mcp-"))
        if self.transport == "stdio":
            self._start_stdio()
        else:
            self._start_http()
        return self

    def _start_stdio(self) -> None:
        assert self._dir is not None
        spec = {"name": self.name, "calls": str(self._dir / "calls.jsonl"),
                "tools": {n: handler_ref(n, t) for n, t in self._tools.items()}}
        spec_path = self._dir / "server.json"
        spec_path.write_text(json.dumps(spec), encoding="utf-8")
        path = os.pathsep.join(p for p in [*sys.path, os.environ.get("PYTHONPATH", "")] if p)
        self.config = {"command": sys.executable, "args": ["-m", "autocue.testing.fake_mcp_child", str(spec_path)],
                       "env": {"PYTHONPATH": path}}

    def _start_http(self) -> None:
        sock = _bound_socket(0)
        port = sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{port}" + ("/sse" if self.transport == "sse" else "/mcp")
        self.config = {"type": self.transport, "url": self.url}
        self._serve(sock)

    def _app(self) -> Any:
        """A fresh ASGI app (a session manager runs once, so a server that comes back needs a new one)."""
        server = build_server(lambda: self._tools, self._on_call, self.name)
        if self.transport == "http":
            return server.streamable_http_app()
        from mcp.server.lowlevel import NotificationOptions
        from mcp.server.sse import SseServerTransport
        from starlette.applications import Starlette
        from starlette.routing import Mount, Route

        sse = SseServerTransport("/messages/")
        options = server.create_initialization_options(NotificationOptions(tools_changed=True))

        class SseEndpoint:  # an ASGI app (not a function), so starlette hands it the raw send
            async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
                async with sse.connect_sse(scope, receive, send) as (read, write):
                    await server.run(read, write, options)

        return Starlette(routes=[Route("/sse", endpoint=SseEndpoint(), methods=["GET"]),
                                 Mount("/messages/", app=sse.handle_post_message)])

    def _serve(self, sock: socket.socket) -> None:
        """Serve the app with uvicorn on ``sock`` (bound, not yet listening) from a thread."""
        import uvicorn

        sock.listen(128)
        self._sock = sock
        port = sock.getsockname()[1]
        # critical: go_down() cancels requests in flight on purpose; their tracebacks are not news
        config = uvicorn.Config(self._app(), http="h11", ws="none", lifespan="on", access_log=False,
                                log_level="critical", timeout_graceful_shutdown=2)
        self._uvicorn = uv = uvicorn.Server(config)
        loop = asyncio.new_event_loop()
        self._loop = loop
        failure: list[BaseException] = []

        def run() -> None:
            try:
                loop.run_until_complete(uv.serve(sockets=[sock]))
            except BaseException as e:  # surfaced below
                failure.append(e)
            finally:
                pending = asyncio.all_tasks(loop)
                for task in pending:  # e.g. sse-starlette's shutdown watcher, a handler in flight
                    task.cancel()
                if pending:
                    loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
                loop.close()

        self._thread = threading.Thread(target=run, name=f"autocue-fake-mcp:{port}", daemon=True)
        self._thread.start()
        while not uv.started and self._thread.is_alive():
            self._thread.join(0.005)
        if not uv.started:
            self.stop()
            raise HarnessError(f"fake_mcp_server: the HTTP server did not start: {failure[0] if failure else '?'}")

    def _halt(self) -> None:
        """Stop serving at once: stop listening, cut every open connection (a call in flight gets no
        answer, as when a server process dies), end the server's thread."""
        uv, loop, thread = self._uvicorn, self._loop, self._thread
        if uv is not None and loop is not None and thread is not None and thread.is_alive():
            def cut() -> None:
                for s in uv.servers:
                    s.close()
                for conn in list(uv.server_state.connections):
                    if conn.transport is not None:
                        conn.transport.abort()
                for task in list(uv.server_state.tasks):  # requests in flight (their handlers)
                    task.cancel()
                uv.should_exit = True  # then uvicorn's shutdown, the app's lifespan included

            with contextlib.suppress(RuntimeError):  # the loop already closed
                loop.call_soon_threadsafe(cut)
        if thread is not None:
            thread.join(timeout=10)
        if self._sock is not None:
            self._sock.close()
        self._uvicorn = self._thread = self._sock = self._loop = None
        with self._lock:
            self._sessions.clear()  # they belonged to the stopped server

    def go_down(self) -> None:
        """Like the server process dying (HTTP and SSE transports): connections are cut, calls in
        flight get no answer, new connections are refused; the port stays reserved for ``come_back``."""
        if self.transport == "stdio" or self._uvicorn is None or self.url is None:
            raise HarnessError("fake_mcp_server.go_down() needs a running server with transport='http' or 'sse'")
        port = int(self.url.rsplit(":", 1)[1].split("/", 1)[0])
        self._halt()
        self._sock = _bound_socket(port)  # bound but not listening: connecting is refused

    def come_back(self) -> None:
        """Serve again on the same port, with the same tools (a new server: clients must reconnect)."""
        if self._sock is None or self._uvicorn is not None:
            raise HarnessError("fake_mcp_server.come_back() needs a server that went down (go_down())")
        sock, self._sock = self._sock, None
        self._serve(sock)

    def stop(self) -> None:
        self._halt()
        if self._dir is not None:
            self._read_child_calls()
            for p in self._dir.iterdir():
                p.unlink()
            self._dir.rmdir()
            self._dir = None

    def __enter__(self) -> FakeMCPServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------------ what happened, changes
    def _on_call(self, tool: str, args: dict[str, Any], session: Any) -> None:
        with self._lock:
            if all(s is not session for s in self._sessions):
                self._sessions.append(session)
            if tool:
                self._calls.append((tool, args))

    def _read_child_calls(self) -> None:
        if self.transport != "stdio" or self._dir is None:
            return
        p = self._dir / "calls.jsonl"
        if p.exists():
            lines = p.read_text(encoding="utf-8").splitlines()
            self._calls = [(c["tool"], c["arguments"]) for c in map(json.loads, lines) if c]

    @property
    def calls(self) -> list[tuple[str, dict[str, Any]]]:
        """The ``tools/call`` requests received so far, as ``(tool, arguments)``."""
        self._read_child_calls()
        with self._lock:
            return list(self._calls)

    def set_tools(self, tools: Mapping[str, Any]) -> None:
        """Replace the tools and send ``notifications/tools/list_changed`` (HTTP and SSE transports)."""
        if self.transport == "stdio" or self._loop is None:
            raise HarnessError("fake_mcp_server.set_tools() needs a running server with transport='http' or 'sse'")
        self._tools = {n: as_fake_tool(v) for n, v in tools.items()}
        with self._lock:
            sessions = list(self._sessions)

        async def notify() -> None:
            for s in sessions:
                with contextlib.suppress(Exception):  # a client that went away
                    await s.send_tool_list_changed()

        asyncio.run_coroutine_threadsafe(notify(), self._loop).result(timeout=10)


@contextmanager
def fake_mcp_server(
    tools: Mapping[str, Any], *, transport: Literal["http", "sse", "stdio"] = "http", name: str = "autocue-fake"
) -> Iterator[FakeMCPServer]:
    """A started ``FakeMCPServer``; leaving the block stops it."""
    with FakeMCPServer(tools, transport=transport, name=name) as server:
        yield server


def _bound_socket(port: int) -> socket.socket:
    """A TCP socket bound to 127.0.0.1:``port`` (0: a free one), not yet listening."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    return sock
