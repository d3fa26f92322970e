"""``create_test_session(mcp_servers=...)``: run MCP servers for a test session and add their tools.

A value is an ``mcp.json`` server entry (``{"command", "args"?, "env"?}`` or ``{"type": "http",
"url"}``) or a ``FakeMCPServer`` (``fake_mcp_server(...)``). The tools reach the session through
``autocue.mcp.mcp_extension`` (the public extension tool-registration seam); names the test
mocks (``mock_tools={"mcp__docs__search": ...}``) are left to the mock. Before the first turn the
harness waits until every server is connected or has failed (a test is deterministic, not
raced against a grace period); a failure becomes a harness warning, never an error.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any

from autocue.mcp import MCPManager, mcp_extension
from autocue.testing.fake_mcp import FakeMCPServer


class HarnessMCP:
    """The MCP servers of one ``TestSession``."""

    def __init__(self, servers: Mapping[str, Any], *, cwd: str, exclude: Collection[str],
                 warn: Callable[[str], None]) -> None:
        configs = {name: s.config if isinstance(s, FakeMCPServer) else s for name, s in servers.items()}
        self.manager = MCPManager(configs, cwd=cwd)
        self.factory = mcp_extension(self.manager, exclude=exclude)
        self._warn = warn
        self._started = False

    async def start(self) -> None:
        """Connect every server (once) and wait for each to be ready or failed."""
        if self._started:
            return
        self._started = True
        self.manager.add_failure_listener(lambda f: self._warn(str(f)))
        for f in self.manager.failures:  # config errors found before the listener existed
            self._warn(str(f))
        await self.manager.discover_and_connect()
        for name in list(self.manager.connections):
            await self.manager.wait_for(name)

    async def stop(self) -> None:
        await self.manager.disconnect()
