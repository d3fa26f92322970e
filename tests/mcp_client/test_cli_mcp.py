"""The ``autocue`` agent CLI loads mcp.json: the model can call mcp__server__tool; a server that fails
is one stderr line and the session goes on."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from autocue.testing import fake_mcp_server


def _run(tmp_path: Path, servers: dict[str, object], *extra: str) -> subprocess.CompletedProcess[str]:
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    (work / ".autocue").mkdir(parents=True)
    (work / ".autocue" / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
    playbook = tmp_path / "pb.json"
    playbook.write_text(json.dumps([
        {"tool_calls": [{"name": "mcp__docs__search", "arguments": {"q": "hooks"}}]},
        {"text": "done"},
    ]))
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("AUTOCUE_")}, "AUTOCUE_DIR": str(home),
           "AUTOCUE_MCP_GRACE_MS": "30000"}  # the first scripted reply calls the tool: wait for the server
    return subprocess.run(
        [sys.executable, "-m", "autocue.cli.main", "--mode", "json", "--model", "autocue/playbook", "--playbook",
         str(playbook), "--no-session", "--cwd", str(work), *extra, "find hooks"],
        capture_output=True, text=True, timeout=60, env=env, check=False,
    )


def _tool_results(stdout: str) -> list[dict[str, object]]:
    events = [json.loads(line) for line in stdout.splitlines() if line.strip()]
    return [e for e in events if e.get("type") == "tool_execution_end"]


@pytest.mark.slow
def test_cli_session_calls_a_tool_of_an_mcp_json_server(tmp_path: Path) -> None:
    with fake_mcp_server({"search": lambda args: f"pages about {args['q']}"}) as server:
        r = _run(tmp_path, {"docs": server.config, "broken": {"command": str(tmp_path / "nope")}})
        assert r.returncode == 0, r.stderr
        [end] = _tool_results(r.stdout)
        assert end["toolName"] == "mcp__docs__search" and end["isError"] is False
        assert end["result"]["content"] == [{"type": "text", "text": "pages about hooks"}]  # type: ignore[index]
        assert server.calls == [("search", {"q": "hooks"})]
    [line] = [x for x in r.stderr.splitlines() if x.startswith("autocue: MCP server broken:")]
    assert "did not start" in line and "Traceback" not in r.stderr


@pytest.mark.slow
def test_no_discover_does_not_start_mcp_servers(tmp_path: Path) -> None:
    with fake_mcp_server({"search": "x"}) as server:
        r = _run(tmp_path, {"docs": server.config}, "--no-discover")
        assert r.returncode == 0, r.stderr
        [end] = _tool_results(r.stdout)
        assert end["isError"] is True  # no such tool: the model's call fails
        assert server.calls == []


def test_a_bad_grace_period_is_one_error_line(tmp_path: Path) -> None:
    (tmp_path / ".autocue").mkdir()
    (tmp_path / ".autocue" / "mcp.json").write_text('{"mcpServers": {}}')
    env = {**os.environ, "AUTOCUE_DIR": str(tmp_path / "home"), "AUTOCUE_MCP_GRACE_MS": "soon"}
    r = subprocess.run([sys.executable, "-m", "autocue.cli.main", "-p", "--model", "autocue/playbook", "--no-session",
                        "--cwd", str(tmp_path), "hi"], capture_output=True, text=True, timeout=60, env=env, check=False)
    assert r.returncode == 1
    assert r.stderr.strip() == "autocue: AUTOCUE_MCP_GRACE_MS='soon': must be a number of milliseconds"
