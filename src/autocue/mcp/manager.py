"""``MCPManager``: the MCP servers of a session, their tools as agent tools, and calls to them.

    manager = MCPManager(cwd=".")                 # servers from mcp.json (see autocue.mcp.config)
    ready = await manager.discover_and_connect()  # starts all in parallel, waits the grace period
    tools = manager.agent_tools()                 # AgentTool per MCP tool: mcp__{server}__{tool}
    result = await manager.call_tool("mcp__docs__search", {"q": "x"}, signal)
    await manager.disconnect()

Servers start in parallel. ``discover_and_connect`` returns after ``grace_period`` seconds
(default 0.25) or as soon as every server is up or has failed; the others join later and
``add_tools_listener`` callbacks hear about it (as they hear about ``tools/list_changed``).
Each server has its own connect timeout (``timeout`` in its config, default 30 s). A failure
(bad config, a command that does not start, a timeout, a dropped connection) is recorded in
``failures`` and passed to ``add_failure_listener`` callbacks; it never raises. A dropped
connection reconnects with backoff; a call made meanwhile waits for it (up to the timeout).
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

import anyio

from autocue.agent.tool import AgentTool, ToolResult
from autocue.llm.abort import AbortError, AbortSignal
from autocue.mcp.config import MCPConfigError, ServerConfig, load_config, parse_server
from autocue.mcp.connection import (
    DEFAULT_MAX_RECONNECTS,
    DEFAULT_RECONNECT_DELAYS,
    ServerConnection,
    ServerUnavailableError,
    Status,
    describe_error,
    is_connection_error,
)
from autocue.mcp.errors import MCPToolError as MCPToolError

DEFAULT_GRACE_PERIOD = 0.25
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


@dataclass(frozen=True, slots=True)
class MCPFailure:
    """A reported (never raised) problem: ``server`` is the server name or the config file."""

    server: str
    message: str

    def __str__(self) -> str:
        return f"MCP server {self.server}: {self.message}"


@dataclass(frozen=True, slots=True)
class MCPToolInfo:
    """One tool a connected server offers, under the name the agent knows it by."""

    name: str
    server: str
    tool: str
    description: str
    input_schema: dict[str, Any]


def agent_tool_name(server: str, tool: str) -> str:
    """``mcp__{server}__{tool}``; characters a model API refuses in a tool name become ``_``."""
    return f"mcp__{server}__{_UNSAFE.sub('_', tool)}"


class MCPManager:
    """The MCP servers of one session (see the module docstring)."""

    def __init__(
        self,
        servers: Mapping[str, ServerConfig | Mapping[str, Any]] | None = None,
        *,
        cwd: str | os.PathLike[str] | None = None,
        agent_dir: str | os.PathLike[str] | None = None,
        grace_period: float = DEFAULT_GRACE_PERIOD,
        reconnect_delays: Sequence[float] = DEFAULT_RECONNECT_DELAYS,
        max_reconnects: int = DEFAULT_MAX_RECONNECTS,
        errlog: TextIO | None = None,
    ) -> None:
        self._servers = servers
        self._cwd = os.fspath(cwd) if cwd is not None else os.getcwd()
        self._agent_dir = agent_dir
        self.grace_period = grace_period
        self._reconnect_delays = reconnect_delays
        self._max_reconnects = max_reconnects
        self._errlog = errlog
        self.connections: dict[str, ServerConnection] = {}
        self.failures: list[MCPFailure] = []
        self._tasks: list[asyncio.Task[None]] = []
        self._tool_listeners: list[Callable[[], None]] = []
        self._failure_listeners: list[Callable[[MCPFailure], None]] = []
        self._agent_tools: dict[str, AgentTool] = {}
        self._routes: dict[str, tuple[str, str]] = {}
        self._started = False

    # ------------------------------------------------------------------ listeners
    def add_tools_listener(self, fn: Callable[[], None]) -> Callable[[], None]:
        """Call ``fn()`` whenever the set of MCP tools changes (a server joined, list_changed)."""
        self._tool_listeners.append(fn)
        return lambda: self._tool_listeners.remove(fn) if fn in self._tool_listeners else None

    def add_failure_listener(self, fn: Callable[[MCPFailure], None]) -> Callable[[], None]:
        """Call ``fn(failure)`` for each failure reported from now on."""
        self._failure_listeners.append(fn)
        return lambda: self._failure_listeners.remove(fn) if fn in self._failure_listeners else None

    def _report(self, server: str, message: str) -> None:
        f = MCPFailure(server, message)
        self.failures.append(f)
        for fn in list(self._failure_listeners):
            fn(f)

    # ------------------------------------------------------------------ lifetime
    def _configs(self) -> dict[str, ServerConfig]:
        if self._servers is None:
            try:
                return load_config(self._cwd, self._agent_dir)
            except MCPConfigError as e:
                self._report("mcp.json", str(e))
                return {}
        out: dict[str, ServerConfig] = {}
        for name, raw in self._servers.items():
            if isinstance(raw, Mapping):
                try:
                    out[name] = parse_server(name, dict(raw), "mcp_servers")
                except MCPConfigError as e:
                    self._report(name, str(e))
            else:
                out[name] = raw
        return out

    async def discover_and_connect(self) -> list[str]:
        """Start every configured server; return the names ready when the grace period ends."""
        if self._started:
            raise RuntimeError("MCPManager.discover_and_connect() was already called")
        self._started = True
        for name, config in self._configs().items():
            conn = ServerConnection(
                name, config, on_tools=self._tools_changed, on_failure=lambda c, m: self._report(c.name, m),
                reconnect_delays=self._reconnect_delays, max_reconnects=self._max_reconnects, errlog=self._errlog,
            )
            self.connections[name] = conn
            self._tasks.append(asyncio.create_task(conn.run(), name=f"mcp:{name}"))
        if self._tasks:
            settled = [asyncio.ensure_future(c.settled()) for c in self.connections.values()]
            try:
                await asyncio.wait(settled, timeout=self.grace_period)
            finally:
                for s in settled:
                    s.cancel()
        return self.ready_servers()

    async def wait_for(self, server: str, timeout: float | None = None) -> bool:
        """Wait until ``server`` is ready (or has failed); whether it is ready."""
        conn = self.connections[server]
        try:
            await asyncio.wait_for(conn.settled(), timeout if timeout is not None else conn.config.timeout)
        except TimeoutError:
            return False
        return conn.status == "ready"

    async def disconnect(self) -> None:
        """Close every connection (child processes are stopped); no reconnects after this."""
        for conn in self.connections.values():
            conn.close()
        tasks, self._tasks = self._tasks, []
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        self._agent_tools.clear()
        self._routes.clear()

    def status(self) -> dict[str, Status]:
        return {name: c.status for name, c in self.connections.items()}

    def ready_servers(self) -> list[str]:
        return [name for name, c in self.connections.items() if c.status == "ready"]

    # ------------------------------------------------------------------ tools
    def _tools_changed(self, conn: ServerConnection) -> None:
        self._rebuild()
        for fn in list(self._tool_listeners):
            fn()

    def _rebuild(self) -> None:
        routes: dict[str, tuple[str, str]] = {}
        tools: dict[str, AgentTool] = {}
        for server, conn in self.connections.items():
            for t in conn.tools:
                name = agent_tool_name(server, t.name)
                if name in routes:
                    continue
                routes[name] = (server, t.name)
                old = self._agent_tools.get(name)
                description = t.description or ""
                if old is not None and old.description == description and old.parameters == t.input_schema:
                    tools[name] = old  # unchanged: keep the object (and its compiled validator)
                else:
                    tools[name] = self._make_tool(name, server, t.name, description, dict(t.input_schema))
        self._routes = routes
        self._agent_tools = tools

    def _make_tool(self, name: str, server: str, tool: str, description: str, schema: dict[str, Any]) -> AgentTool:
        async def execute(tool_call_id: str, params: dict[str, Any], signal: AbortSignal, on_update: Any) -> ToolResult:
            return await self.call_tool(name, params, signal)

        return AgentTool(name, description, schema, execute, label=f"{tool} ({server})")

    def list_tools(self) -> list[MCPToolInfo]:
        """Every tool of the connected servers, in server then listing order."""
        out: list[MCPToolInfo] = []
        for name, (server, tool) in self._routes.items():
            t = self._agent_tools[name]
            out.append(MCPToolInfo(name, server, tool, t.description, t.parameters))
        return out

    def _starting_server_of(self, tool_name: str) -> str | None:
        """The server ``mcp__{server}__...`` names if it is still connecting for the first time."""
        for server, conn in self.connections.items():
            if tool_name.startswith(f"mcp__{server}__") and conn.status == "connecting":
                return server
        return None

    def agent_tools(self) -> list[AgentTool]:
        """The tools as ``AgentTool`` objects (the same object for a tool until its schema changes)."""
        return list(self._agent_tools.values())

    # ------------------------------------------------------------------ calls
    async def call_tool(self, name: str, args: Mapping[str, Any], signal: AbortSignal | None = None) -> ToolResult:
        """Call ``mcp__{server}__{tool}``; an error result or a lost connection raises ``MCPToolError``,
        an abort of ``signal`` cancels the call and raises ``AbortError``."""
        from autocue.mcp.results import convert_content, error_text

        route = self._routes.get(name)
        if route is None and (starting := self._starting_server_of(name)) is not None:
            # Its server joins after the grace period: wait for it rather than call the tool unknown.
            await self.wait_for(starting)
            route = self._routes.get(name)
        if route is None:
            known = ", ".join(self._routes) or "none"
            raise MCPToolError(f"unknown MCP tool {name!r} (its server is not connected or no longer offers it); "
                               f"MCP tools now: {known}")
        server, tool = route
        conn = self.connections[server]
        for attempt in (1, 2):
            try:
                session = await conn.wait_ready(conn.config.timeout)
            except ServerUnavailableError as e:
                raise MCPToolError(str(e)) from None
            if signal is not None and signal.aborted:
                raise AbortError(signal.reason or "aborted")
            result: Any = None
            remove = None
            lost = conn.sessions_lost
            try:
                with anyio.CancelScope() as scope:  # cancelled by the abort (no extra task per call)
                    if signal is not None:
                        remove = signal.add_listener(scope.cancel)
                    result = await session.call_tool(tool, dict(args))
            except Exception as e:
                if conn.sessions_lost != lost and attempt == 1:
                    continue  # the server refused the call (it forgot the session): call again once reconnected
                if is_connection_error(e):
                    conn.mark_dropped()
                    raise MCPToolError(
                        f"MCP server {server!r} disconnected during the call to {tool!r} ({describe_error(e)}); "
                        "it is reconnecting: call the tool again"
                    ) from None
                raise MCPToolError(f"MCP server {server!r}, tool {tool!r}: {describe_error(e)}") from None
            finally:
                if remove is not None:
                    remove()
            break
        if scope.cancelled_caught:
            raise AbortError((signal.reason if signal is not None else None) or "aborted")
        import mcp_types as mt

        if not isinstance(result, mt.CallToolResult):
            raise MCPToolError(f"MCP server {server!r}, tool {tool!r}: unexpected result {type(result).__name__}")
        if result.is_error:
            raise MCPToolError(error_text(result.content))
        details: dict[str, Any] = {"server": server, "tool": tool}
        if result.structured_content is not None:
            details["structuredContent"] = result.structured_content
        return ToolResult(convert_content(result.content), details)
