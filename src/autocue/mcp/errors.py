"""The MCP client's errors (the tree is in ``docs/architecture.md``)."""

from __future__ import annotations

from autocue.errors import AutocueError


class MCPClientError(AutocueError):
    """Base of the MCP client's errors: a bad configuration, a failed tool call, a server gone."""


class MCPConfigError(MCPClientError, ValueError):
    """An ``mcp.json`` (or ``mcp_servers=`` entry) that cannot be used; the message says where and why."""


class MCPToolError(MCPClientError):
    """An MCP tool call that failed: the server's error text, or why the call could not be made."""


class ServerUnavailableError(MCPClientError, ConnectionError):
    """The server is not connected (failed, closed, or not back within its timeout)."""


__all__ = ["MCPClientError", "MCPConfigError", "MCPToolError", "ServerUnavailableError"]
