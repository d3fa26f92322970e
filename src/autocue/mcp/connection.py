"""One MCP server's connection: connect, list tools, serve calls, notice a drop, reconnect.

``ServerConnection.run()`` owns the whole lifetime in one task (the SDK's transports and
``ClientSession`` are anyio context managers that must be entered and left in the same task):
connect (within ``config.timeout``), ``initialize``, ``tools/list`` (all pages), then wait until
the connection drops or ``close()`` is called. A drop (the child process exits, the HTTP
endpoint goes away) reconnects after a backoff (``reconnect_delays``, the last one repeating)
up to ``max_reconnects`` attempts in a row; a connection that never came up is not retried.
Over streamable HTTP a 404 to a request that carries the session id (the server restarted and
forgot the session) is a drop too: the client starts a new session, as the MCP spec asks.
``notifications/tools/list_changed`` lists the tools again.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import sys
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any, Literal, TextIO, TypeAlias

import anyio
import mcp_types as mt
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage

from autocue.mcp.config import HttpServerConfig, ServerConfig, StdioServerConfig
from autocue.mcp.errors import ServerUnavailableError as ServerUnavailableError

Status: TypeAlias = Literal["connecting", "ready", "reconnecting", "failed", "closed"]
DEFAULT_RECONNECT_DELAYS: tuple[float, ...] = (0.1, 0.25, 0.5, 1.0, 2.0, 5.0)
DEFAULT_MAX_RECONNECTS = 10
CONNECTION_CLOSED = -32000


def describe_error(e: BaseException) -> str:
    """The innermost meaningful message of ``e`` (unwraps anyio's exception groups)."""
    while isinstance(e, BaseExceptionGroup) and e.exceptions:
        e = e.exceptions[0]
    text = str(e).strip()
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def is_connection_error(e: BaseException) -> bool:
    """Whether a call failed because the connection is gone (not because the tool failed)."""
    if isinstance(e, MCPError):
        return e.error.code == CONNECTION_CLOSED
    if isinstance(e, (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, ConnectionError)):
        return True
    try:
        import httpx2
    except ImportError:  # pragma: no cover - httpx2 comes with mcp
        return False
    return isinstance(e, httpx2.TransportError)


async def _pump(
    src: MemoryObjectReceiveStream[SessionMessage | Exception],
    dst: MemoryObjectSendStream[SessionMessage | Exception],
    dropped: anyio.Event,
) -> None:
    """Forward the transport's messages to the session; the end of the stream is a drop."""
    try:
        async with dst:
            async for item in src:
                if isinstance(item, Exception) and is_connection_error(item):
                    dropped.set()
                await dst.send(item)
    except (anyio.ClosedResourceError, anyio.BrokenResourceError):
        pass
    finally:
        dropped.set()


class ServerConnection:
    """The live connection to one configured server (see the module docstring)."""

    def __init__(
        self,
        name: str,
        config: ServerConfig,
        *,
        on_tools: Callable[[ServerConnection], None],
        on_failure: Callable[[ServerConnection, str], None],
        reconnect_delays: Sequence[float] = DEFAULT_RECONNECT_DELAYS,
        max_reconnects: int = DEFAULT_MAX_RECONNECTS,
        errlog: TextIO | None = None,
    ) -> None:
        self.name = name
        self.config = config
        self.status: Status = "connecting"
        self.tools: list[mt.Tool] = []
        self.error: str | None = None
        self.connects = 0
        self.sessions_lost = 0  # streamable HTTP: times the server answered 404 to our session id
        self.session: ClientSession | None = None
        self.ready = asyncio.Event()
        self.finished = asyncio.Event()
        self._on_tools = on_tools
        self._on_failure = on_failure
        self._delays = tuple(reconnect_delays) or (0.0,)
        self._max_reconnects = max_reconnects
        self._errlog = errlog
        self._closing = False
        self._scope: anyio.CancelScope | None = None
        self._dropped: anyio.Event | None = None
        self._tg: anyio.abc.TaskGroup | None = None

    # ------------------------------------------------------------------ lifetime
    async def run(self) -> None:
        failures = 0
        try:
            while not self._closing:
                try:
                    await self._connect_once()
                except Exception as e:  # a failed connect or a broken connection: report, maybe retry
                    if self._closing:
                        break
                    if self.connects == 0:  # never came up: a config or server problem, not a drop
                        self.status = "failed"
                        self._fail(f"did not start: {describe_error(e)}")
                        return
                    self._fail(f"reconnect failed: {describe_error(e)}")
                    failures += 1
                else:  # the connection was up and dropped: reconnect at once (first backoff step)
                    if self._closing:
                        break
                    failures = 0
                if failures > self._max_reconnects:
                    self.status = "failed"
                    self._fail(f"gave up after {self._max_reconnects} reconnect attempts")
                    return
                self.status = "reconnecting"
                await asyncio.sleep(self._delays[min(failures, len(self._delays) - 1)])
        finally:
            self.ready.clear()
            self.session = None
            if self.status != "failed":
                self.status = "closed"
            self.finished.set()

    async def _connect_once(self) -> None:
        dropped = anyio.Event()
        self._dropped = dropped
        came_up = False
        with anyio.CancelScope() as scope:
            self._scope = scope
            if self._closing:
                scope.cancel()
            scope.deadline = anyio.current_time() + self.config.timeout
            async with AsyncExitStack() as stack:
                read, write = await stack.enter_async_context(self._transport())
                tg = await stack.enter_async_context(anyio.create_task_group())
                send, recv = anyio.create_memory_object_stream[SessionMessage | Exception](64)
                tg.start_soon(_pump, read, send, dropped)
                session = await stack.enter_async_context(
                    ClientSession(recv, write, message_handler=self._on_message)
                )
                await session.initialize()
                tools = await self._list_tools(session)
                scope.deadline = math.inf
                came_up = True
                self._tg = tg
                self.session = session
                self.tools = tools
                self.connects += 1
                self.status = "ready"
                self.error = None
                self.ready.set()
                self._on_tools(self)
                try:
                    await dropped.wait()
                finally:
                    self.ready.clear()
                    self.session = None
                    if not self._closing:
                        self.status = "reconnecting"
                    self._tg = None
                    tg.cancel_scope.cancel()
        if not came_up and not self._closing:
            if scope.cancelled_caught:
                raise TimeoutError(f"no answer within {self.config.timeout:g} s")
            raise ConnectionError("the connection closed before the server was ready")

    @asynccontextmanager
    async def _transport(self) -> AsyncIterator[tuple[Any, Any]]:
        c = self.config
        if isinstance(c, StdioServerConfig):
            params = StdioServerParameters(command=c.command, args=list(c.args), env=dict(c.env) or None, cwd=c.cwd)
            async with stdio_client(params, errlog=self._errlog or sys.stderr) as (r, w):
                yield r, w
        elif isinstance(c, HttpServerConfig) and c.type == "sse":
            from mcp.client.sse import sse_client

            async with sse_client(c.url, headers=dict(c.headers) or None, timeout=c.timeout) as (r, w):
                yield r, w
        else:
            import httpx2
            from mcp.client.streamable_http import streamable_http_client

            async def on_response(response: httpx2.Response) -> None:
                # 404 to a request carrying our session id: the server no longer knows the session
                # (it restarted). The MCP spec says to start a new one: reconnect.
                if response.status_code == 404 and "mcp-session-id" in response.request.headers:
                    self.sessions_lost += 1
                    self.mark_dropped()

            # the SDK's default timeouts (a response stream may stay open), plus the configured headers
            timeout = httpx2.Timeout(30.0, read=300.0)
            hooks = {"response": [on_response]}
            async with (
                httpx2.AsyncClient(headers=dict(c.headers), timeout=timeout, event_hooks=hooks) as client,
                streamable_http_client(c.url, http_client=client) as (r, w),
            ):
                yield r, w

    async def _list_tools(self, session: ClientSession) -> list[mt.Tool]:
        tools: list[mt.Tool] = []
        cursor: str | None = None
        while True:
            page = await session.list_tools(params=mt.PaginatedRequestParams(cursor=cursor) if cursor else None)
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                return tools

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, mt.ToolListChangedNotification) and self._tg is not None:
            self._tg.start_soon(self._refresh_tools)

    async def _refresh_tools(self) -> None:
        session = self.session
        if session is None:
            return
        try:
            self.tools = await self._list_tools(session)
        except Exception as e:
            if is_connection_error(e) and self._dropped is not None:
                self._dropped.set()
                return
            self._fail(f"tools/list after list_changed failed: {describe_error(e)}")
            return
        self._on_tools(self)

    def _fail(self, message: str) -> None:
        self.error = message
        self._on_failure(self, message)

    def mark_dropped(self) -> None:
        """A call saw the connection fail: reconnect (calls from now on wait for the new session)."""
        if self._dropped is not None:
            self._dropped.set()
        if not self._closing and self.session is not None:
            self.session = None
            self.ready.clear()
            self.status = "reconnecting"

    def close(self) -> None:
        """Stop: leave the connection (the child process is stopped) and do not reconnect."""
        self._closing = True
        if self._scope is not None:
            self._scope.cancel()
        if self._dropped is not None:
            self._dropped.set()

    # ------------------------------------------------------------------ calls
    async def settled(self) -> None:
        """Return once the connection is ready or has stopped trying."""
        ready = asyncio.ensure_future(self.ready.wait())
        done = asyncio.ensure_future(self.finished.wait())
        try:
            await asyncio.wait({ready, done}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            ready.cancel()
            done.cancel()

    async def wait_ready(self, timeout: float) -> ClientSession:
        """The live session; waits up to ``timeout`` while connecting or reconnecting."""
        if self.session is None and self.status in ("connecting", "reconnecting"):
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.settled(), timeout)
        session = self.session
        if session is None:
            why = f": {self.error}" if self.error else ""
            raise ServerUnavailableError(f"MCP server {self.name!r} is not connected ({self.status}{why})")
        return session
