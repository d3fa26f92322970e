"""MCPManager against real MCP servers (the official SDK on both sides): stdio and streamable HTTP,
result conversion, a server that dies mid-call and comes back, list_changed, grace period and late
join, timeouts and failures reported (never raised), abort."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

import mcp_handlers
import pytest

from autocue.llm.abort import AbortController, AbortError
from autocue.llm.types import ImageContent, TextContent
from autocue.mcp import MCPManager, MCPToolError
from autocue.testing import FakeTool, fake_mcp_server

PNG = "iVBORw0KGgo="


def _delayed(config: dict[str, Any], seconds: float) -> dict[str, Any]:
    """The same stdio server, starting ``seconds`` late."""
    code = (f"import time, sys, runpy; time.sleep({seconds}); sys.argv = ['x', {config['args'][-1]!r}]; "
            "runpy.run_module('autocue.testing.fake_mcp_child', run_name='__main__')")
    return {**config, "args": ["-c", code]}


@pytest.mark.slow
async def test_stdio_server_tools_and_call() -> None:
    schema = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
    tools = {"echo": FakeTool(mcp_handlers.echo, "Echo text", schema)}
    with fake_mcp_server(tools, transport="stdio") as server:
        m = MCPManager({"local": server.config}, grace_period=30)
        try:
            assert await m.discover_and_connect() == ["local"]
            [info] = m.list_tools()
            assert (info.name, info.server, info.tool, info.description) == ("mcp__local__echo", "local", "echo",
                                                                             "Echo text")
            assert info.input_schema["required"] == ["text"]
            [tool] = m.agent_tools()
            assert tool.name == "mcp__local__echo" and tool.parameters == info.input_schema
            r = await m.call_tool("mcp__local__echo", {"text": "hi"})
            assert r.text_content.startswith("echo hi from pid ")
            assert r.details == {"server": "local", "tool": "echo"}
        finally:
            await m.disconnect()
        assert server.calls == [("echo", {"text": "hi"})]
        assert m.status() == {"local": "closed"} and m.failures == []


async def test_http_server_results_become_tool_result_content() -> None:
    tools = {
        "text": "plain",
        "image": {"content": [{"type": "image", "data": PNG, "mimeType": "image/png"}]},
        "resource": {"content": [{"type": "resource", "resource": {"uri": "file:///a.txt", "text": "A body"}}]},
        "structured": {"content": [{"type": "text", "text": "{\"n\": 1}"}], "structuredContent": {"n": 1}},
        "failing": {"content": [{"type": "text", "text": "no such page"}], "isError": True},
        "raising": lambda args: 1 / 0,
    }
    with fake_mcp_server(tools) as server:
        m = MCPManager({"web": server.config}, grace_period=30)
        try:
            await m.discover_and_connect()
            assert (await m.call_tool("mcp__web__text", {})).content == [TextContent("plain")]
            assert (await m.call_tool("mcp__web__image", {})).content == [ImageContent(PNG, "image/png")]
            assert (await m.call_tool("mcp__web__resource", {})).content == [
                TextContent("[resource file:///a.txt]\nA body")]
            assert (await m.call_tool("mcp__web__structured", {})).details["structuredContent"] == {"n": 1}
            with pytest.raises(MCPToolError, match=r"^no such page$"):
                await m.call_tool("mcp__web__failing", {})
            with pytest.raises(MCPToolError, match="division by zero"):
                await m.call_tool("mcp__web__raising", {})
            with pytest.raises(MCPToolError, match=r"unknown MCP tool 'mcp__web__nope'.*mcp__web__text"):
                await m.call_tool("mcp__web__nope", {})
        finally:
            await m.disconnect()


@pytest.mark.slow
async def test_server_that_dies_mid_call_reconnects_and_answers(tmp_path: Path) -> None:
    with fake_mcp_server({"flaky": mcp_handlers.die_once}, transport="stdio") as server:
        failures: list[str] = []
        m = MCPManager({"flaky": server.config}, reconnect_delays=[0.05])
        m.add_failure_listener(lambda f: failures.append(str(f)))
        try:
            await m.discover_and_connect()
            assert await m.wait_for("flaky", 30)
            args = {"marker": str(tmp_path / "died")}
            with pytest.raises(MCPToolError, match="MCP server 'flaky' disconnected during the call to 'flaky'"):
                await m.call_tool("mcp__flaky__flaky", args)
            # the next call waits for the reconnect and reaches the new process
            r = await m.call_tool("mcp__flaky__flaky", args)
            assert r.text_content.startswith("back, pid ")
            assert m.connections["flaky"].connects == 2 and m.status() == {"flaky": "ready"}
        finally:
            await m.disconnect()
        assert [c[0] for c in server.calls] == ["flaky", "flaky"]


async def test_tools_list_changed_refreshes_the_tools() -> None:
    with fake_mcp_server({"one": "1"}) as server:
        m = MCPManager({"s": server.config}, grace_period=30)  # returns once the server is up
        changed = asyncio.Event()
        m.add_tools_listener(changed.set)
        try:
            await m.discover_and_connect()
            assert [t.name for t in m.list_tools()] == ["mcp__s__one"]
            changed.clear()
            await asyncio.to_thread(server.set_tools, {"two": "2", "three": "3"})
            await asyncio.wait_for(changed.wait(), 10)
            assert [t.name for t in m.list_tools()] == ["mcp__s__two", "mcp__s__three"]
            assert (await m.call_tool("mcp__s__two", {})).text_content == "2"
            with pytest.raises(MCPToolError, match="unknown MCP tool 'mcp__s__one'"):
                await m.call_tool("mcp__s__one", {})
        finally:
            await m.disconnect()


@pytest.mark.slow
async def test_grace_period_starts_with_ready_servers_and_late_ones_join() -> None:
    with fake_mcp_server({"quick": "q"}) as fast, fake_mcp_server({"late": "l"}, transport="stdio") as slow:
        m = MCPManager({"fast": fast.config, "slow": _delayed(slow.config, 4.0)}, grace_period=1.0)
        joined = asyncio.Event()
        m.add_tools_listener(lambda: joined.set() if "slow" in m.ready_servers() else None)
        try:
            t0 = time.perf_counter()
            ready = await m.discover_and_connect()
            waited = time.perf_counter() - t0
            assert "slow" not in ready and m.status()["slow"] == "connecting"
            assert 0.9 < waited < 3.5, waited  # the grace period, not the slow server's start
            assert await m.wait_for("fast", 30)  # (on a loaded machine it may miss the grace period)
            assert [t.name for t in m.list_tools()] == ["mcp__fast__quick"]
            await asyncio.wait_for(joined.wait(), 30)
            assert sorted(t.name for t in m.list_tools()) == ["mcp__fast__quick", "mcp__slow__late"]
            assert (await m.call_tool("mcp__slow__late", {})).text_content == "l"
        finally:
            await m.disconnect()


async def test_all_ready_ends_the_grace_period_early() -> None:
    with fake_mcp_server({"a": "a"}) as server:
        m = MCPManager({"s": server.config}, grace_period=20)
        t0 = time.perf_counter()
        try:
            assert await m.discover_and_connect() == ["s"]
            assert time.perf_counter() - t0 < 10
        finally:
            await m.disconnect()


@pytest.mark.slow
async def test_failures_are_reported_never_fatal(tmp_path: Path) -> None:
    with fake_mcp_server({"ok": "fine"}) as good:
        m = MCPManager({
            "good": good.config,
            "missing": {"command": str(tmp_path / "no-such-program")},
            "crashes": {"command": sys.executable, "args": ["-c", "import sys; sys.exit(2)"]},
            "silent": {"command": sys.executable, "args": ["-c", "import time; time.sleep(60)"], "timeout": 0.5},
            "nohost": {"type": "http", "url": "http://127.0.0.1:9/mcp", "timeout": 5},
            "bad": {"args": []},
        }, grace_period=10)
        try:
            assert await m.discover_and_connect() == ["good"]
            for name in ("missing", "crashes", "silent", "nohost"):
                await m.wait_for(name, 10)
            assert (await m.call_tool("mcp__good__ok", {})).text_content == "fine"
            by_server = {f.server: f.message for f in m.failures}
            assert set(by_server) == {"missing", "crashes", "silent", "nohost", "bad"}
            assert "no answer within 0.5 s" in by_server["silent"]
            assert 'mcp_servers.bad: give "command"' in by_server["bad"]
            assert all("\n" not in msg for msg in by_server.values())
            assert {n: s for n, s in m.status().items() if n != "good"} == dict.fromkeys(
                ["missing", "crashes", "silent", "nohost"], "failed")
        finally:
            await m.disconnect()


async def test_bad_mcp_json_is_a_reported_failure(tmp_path: Path) -> None:
    (tmp_path / ".autocue").mkdir()
    (tmp_path / ".autocue" / "mcp.json").write_text("{oops", encoding="utf-8")
    m = MCPManager(cwd=tmp_path, agent_dir=tmp_path / "user")
    assert await m.discover_and_connect() == []
    [f] = m.failures
    assert f.server == "mcp.json" and f"{tmp_path / '.autocue' / 'mcp.json'}:1:2: invalid JSON" in f.message


async def test_abort_cancels_the_call() -> None:
    started = asyncio.Event()
    loop = asyncio.get_running_loop()

    async def hang(args: dict[str, Any]) -> str:
        loop.call_soon_threadsafe(started.set)
        await asyncio.sleep(30)
        return "never"

    with fake_mcp_server({"hang": hang, "quick": "q"}) as server:
        m = MCPManager({"s": server.config}, grace_period=30)  # returns once the server is up
        try:
            await m.discover_and_connect()
            ctrl = AbortController()
            call = asyncio.create_task(m.call_tool("mcp__s__hang", {}, ctrl.signal))
            await asyncio.wait_for(started.wait(), 10)
            t0 = time.perf_counter()
            ctrl.abort("user pressed Esc")
            with pytest.raises(AbortError, match="user pressed Esc"):
                await call
            assert time.perf_counter() - t0 < 2
            # the connection is still usable
            assert (await m.call_tool("mcp__s__quick", {})).text_content == "q"
        finally:
            await m.disconnect()


@pytest.mark.slow
async def test_a_call_to_a_server_still_connecting_waits_for_it() -> None:
    with fake_mcp_server({"hello": "hi"}, transport="stdio") as server:
        m = MCPManager({"late": _delayed(server.config, 1.0)}, grace_period=0.01)
        try:
            assert await m.discover_and_connect() == []
            assert (await m.call_tool("mcp__late__hello", {})).content == [TextContent("hi")]
        finally:
            await m.disconnect()
