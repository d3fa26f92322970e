"""``mcp.json``: which MCP servers a session connects to.

The common shape (Claude Desktop, Cursor, pi): ``{"mcpServers": {NAME: SERVER}}`` where SERVER is
``{"command", "args"?, "env"?, "cwd"?}`` (stdio, a child process) or
``{"type": "http" | "sse", "url", "headers"?}`` (streamable HTTP or the older SSE transport).
Either may carry ``"timeout"`` (seconds to connect, default 30). Files are read from
``$AUTOCUE_DIR/mcp.json`` (default ``~/.autocue/mcp.json``) and ``<cwd>/.autocue/mcp.json``; a
project server replaces a user server of the same name.

A file that is not valid JSON or not of this shape raises ``MCPConfigError`` whose message
names the file, the line and column or the key, and what to write instead.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeAlias

from autocue.mcp.errors import MCPConfigError as MCPConfigError

DEFAULT_TIMEOUT = 30.0
SERVER_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


@dataclass(frozen=True, slots=True)
class StdioServerConfig:
    """A server run as a child process speaking MCP on its stdin/stdout."""

    command: str
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    timeout: float = DEFAULT_TIMEOUT
    type: Literal["stdio"] = "stdio"


@dataclass(frozen=True, slots=True)
class HttpServerConfig:
    """A server reached over streamable HTTP (``type: http``) or HTTP+SSE (``type: sse``)."""

    url: str
    type: Literal["http", "sse"] = "http"
    headers: Mapping[str, str] = field(default_factory=dict)
    timeout: float = DEFAULT_TIMEOUT


ServerConfig: TypeAlias = StdioServerConfig | HttpServerConfig


def _str_map(value: Any, where: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise MCPConfigError(f"{where}: must be an object of strings, e.g. {{\"KEY\": \"value\"}}")
    return dict(value)


def parse_server(name: str, raw: Any, where: str = "mcpServers") -> ServerConfig:
    """One server entry; ``where`` prefixes error messages (a file name, ``mcp_servers``)."""
    at = f"{where}.{name}"
    if not SERVER_NAME.match(name):
        raise MCPConfigError(
            f"{at}: server name {name!r} must be 1-64 letters, digits, '_' or '-' (it becomes part of the "
            "tool names mcp__<server>__<tool>)"
        )
    if not isinstance(raw, dict):
        raise MCPConfigError(f'{at}: must be an object, {{"command": ...}} or {{"type": "http", "url": ...}}')
    timeout = raw.get("timeout", DEFAULT_TIMEOUT)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
        raise MCPConfigError(f"{at}.timeout: must be a positive number of seconds, got {timeout!r}")
    kind = raw.get("type", "stdio" if "command" in raw else None)
    if kind in ("http", "sse", "streamable-http", "streamableHttp"):
        url = raw.get("url")
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise MCPConfigError(f"{at}.url: must be an http:// or https:// URL, got {url!r}")
        headers = _str_map(raw.get("headers", {}), f"{at}.headers")
        return HttpServerConfig(url, "sse" if kind == "sse" else "http", headers, float(timeout))
    if kind == "stdio":
        command = raw.get("command")
        if not isinstance(command, str) or not command:
            raise MCPConfigError(f"{at}.command: must be the program to run (a non-empty string)")
        args = raw.get("args", [])
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise MCPConfigError(f"{at}.args: must be a list of strings")
        env = _str_map(raw.get("env", {}), f"{at}.env")
        cwd = raw.get("cwd")
        if cwd is not None and not isinstance(cwd, str):
            raise MCPConfigError(f"{at}.cwd: must be a directory path (string)")
        return StdioServerConfig(command, tuple(args), env, cwd, float(timeout))
    if kind is None:
        raise MCPConfigError(f'{at}: give "command" (a stdio server) or "type": "http" | "sse" with "url"')
    raise MCPConfigError(f'{at}.type: unknown transport {kind!r}; use "stdio", "http" or "sse"')


def parse_config(data: Any, where: str) -> dict[str, ServerConfig]:
    """The servers of a parsed ``mcp.json`` document."""
    if not isinstance(data, dict):
        raise MCPConfigError(f'{where}: must be a JSON object {{"mcpServers": {{...}}}}')
    servers = data.get("mcpServers", {})
    if not isinstance(servers, dict):
        raise MCPConfigError(f"{where}: mcpServers must be an object of server name -> server")
    return {name: parse_server(name, raw, f"{where}: mcpServers") for name, raw in servers.items()}


def read_config_file(path: str | os.PathLike[str]) -> dict[str, ServerConfig]:
    """Read one ``mcp.json``; a missing file is no servers."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as e:
        raise MCPConfigError(f"{p}: cannot read: {e}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise MCPConfigError(f"{p}:{e.lineno}:{e.colno}: invalid JSON: {e.msg}") from None
    return parse_config(data, str(p))


def default_agent_dir() -> Path:
    """``$AUTOCUE_DIR`` or ``~/.autocue``."""
    env = os.environ.get("AUTOCUE_DIR")
    return Path(env).expanduser() if env else Path.home() / ".autocue"


def config_paths(cwd: str | os.PathLike[str], agent_dir: str | os.PathLike[str] | None = None) -> list[Path]:
    """The ``mcp.json`` files read, lowest precedence first."""
    user = Path(agent_dir) if agent_dir is not None else default_agent_dir()
    return [user / "mcp.json", Path(cwd) / ".autocue" / "mcp.json"]


def load_config(
    cwd: str | os.PathLike[str], agent_dir: str | os.PathLike[str] | None = None
) -> dict[str, ServerConfig]:
    """Servers from ``$AUTOCUE_DIR/mcp.json`` then ``<cwd>/.autocue/mcp.json`` (project wins by name)."""
    out: dict[str, ServerConfig] = {}
    for p in config_paths(cwd, agent_dir):
        out.update(read_config_file(p))
    return out
