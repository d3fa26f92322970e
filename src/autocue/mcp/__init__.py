"""MCP client: servers from ``mcp.json``, their tools as agent tools ``mcp__{server}__{tool}``.

    from autocue.mcp import MCPManager, mcp_extension

    manager = MCPManager(cwd=".")
    await manager.discover_and_connect()
    session = AgentSession(..., extension_factories=[mcp_extension(manager)])

Built on the official ``mcp`` SDK (stdio, streamable HTTP and SSE transports). See docs/mcp.md.
"""

from autocue.mcp.bridge import mcp_extension
from autocue.mcp.config import (
    HttpServerConfig,
    ServerConfig,
    StdioServerConfig,
    config_paths,
    load_config,
    parse_config,
    parse_server,
    read_config_file,
)
from autocue.mcp.errors import MCPClientError, MCPConfigError, MCPToolError, ServerUnavailableError
from autocue.mcp.manager import MCPFailure, MCPManager, MCPToolInfo, agent_tool_name

__all__ = [
    "HttpServerConfig", "MCPClientError", "MCPConfigError", "MCPFailure", "MCPManager", "MCPToolError",
    "MCPToolInfo", "ServerConfig", "ServerUnavailableError", "StdioServerConfig", "agent_tool_name", "config_paths",
    "load_config", "mcp_extension", "parse_config", "parse_server", "read_config_file",
]
