"""mcp.json: the common shape, where it is read from, and one clear error line for a bad file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from autocue.mcp import HttpServerConfig, MCPConfigError, StdioServerConfig, load_config, read_config_file


def _write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    return path


def test_reads_stdio_http_and_sse_servers(tmp_path: Path) -> None:
    p = _write(tmp_path / "mcp.json", {"mcpServers": {
        "fs": {"command": "npx", "args": ["-y", "server-fs"], "env": {"A": "1"}, "timeout": 5},
        "docs": {"type": "http", "url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer x"}},
        "old": {"type": "sse", "url": "https://example.invalid/sse"},
    }})
    servers = read_config_file(p)
    assert servers["fs"] == StdioServerConfig("npx", ("-y", "server-fs"), {"A": "1"}, None, 5.0)
    assert servers["docs"] == HttpServerConfig("http://127.0.0.1:9/mcp", "http", {"Authorization": "Bearer x"})
    assert servers["old"].type == "sse"


def test_project_file_overrides_user_file_by_server_name(tmp_path: Path) -> None:
    user, project = tmp_path / "user", tmp_path / "project"
    _write(user / "mcp.json", {"mcpServers": {"a": {"command": "user-a"}, "b": {"command": "user-b"}}})
    _write(project / ".autocue" / "mcp.json", {"mcpServers": {"b": {"command": "project-b"}}})
    servers = load_config(project, agent_dir=user)
    assert {n: s.command for n, s in servers.items() if isinstance(s, StdioServerConfig)} == {
        "a": "user-a", "b": "project-b"}


def test_autocue_dir_environment_variable_is_the_user_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write(tmp_path / "home" / "mcp.json", {"mcpServers": {"x": {"command": "x"}}})
    monkeypatch.setenv("AUTOCUE_DIR", str(tmp_path / "home"))
    assert list(load_config(tmp_path / "nowhere")) == ["x"]


def test_missing_files_are_no_servers(tmp_path: Path) -> None:
    assert load_config(tmp_path, agent_dir=tmp_path / "none") == {}


def test_invalid_json_names_file_line_and_column(tmp_path: Path) -> None:
    p = _write(tmp_path / "mcp.json", '{"mcpServers": {\n  "a": {"command": "x",}\n}}')
    with pytest.raises(MCPConfigError) as e:
        read_config_file(p)
    assert str(e.value).startswith(f"{p}:2:")
    assert "invalid JSON" in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize(("server", "expected"), [
    ({"args": ["x"]}, 'mcpServers.bad: give "command"'),
    ({"command": "x", "args": "notalist"}, "mcpServers.bad.args: must be a list of strings"),
    ({"type": "http", "url": "ftp://x"}, "mcpServers.bad.url: must be an http:// or https:// URL"),
    ({"type": "websocket", "url": "ws://x"}, "mcpServers.bad.type: unknown transport 'websocket'"),
    ({"command": "x", "timeout": 0}, "mcpServers.bad.timeout: must be a positive number"),
    ({"command": "x", "env": {"A": 1}}, "mcpServers.bad.env: must be an object of strings"),
])
def test_a_bad_server_entry_names_its_key(tmp_path: Path, server: dict[str, object], expected: str) -> None:
    p = _write(tmp_path / "mcp.json", {"mcpServers": {"bad": server}})
    with pytest.raises(MCPConfigError, match="^" + str(p).replace("\\", "\\\\") + ": ") as e:
        read_config_file(p)
    assert expected in str(e.value)


def test_a_server_name_that_cannot_be_part_of_a_tool_name_is_refused(tmp_path: Path) -> None:
    p = _write(tmp_path / "mcp.json", {"mcpServers": {"my server": {"command": "x"}}})
    with pytest.raises(MCPConfigError, match="server name 'my server' must be 1-64 letters"):
        read_config_file(p)
