"""A streamable HTTP or SSE server that goes away mid-call and comes back on the same port: the call in
flight fails with an error naming the server, the connection reconnects with backoff, the next call
succeeds. (The stdio case is in test_manager.py.)"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from autocue.mcp import MCPManager, MCPToolError
from autocue.testing import fake_mcp_server

TRANSPORTS = ["http", "sse"]


async def _until(predicate: Any, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.01)


@pytest.mark.slow
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_server_that_goes_away_mid_call_and_comes_back(transport: Any) -> None:
    loop = asyncio.get_running_loop()
    started = asyncio.Event()

    async def hang(args: dict[str, Any]) -> str:
        loop.call_soon_threadsafe(started.set)
        await asyncio.sleep(60)
        return "never"

    with fake_mcp_server({"hang": hang, "ping": "pong"}, transport=transport) as server:
        url = server.url
        failures: list[str] = []
        m = MCPManager({"flaky": server.config}, reconnect_delays=[0.05, 0.1, 0.2])
        m.add_failure_listener(lambda f: failures.append(str(f)))
        try:
            await m.discover_and_connect()
            assert await m.wait_for("flaky", 30)
            in_flight = asyncio.create_task(m.call_tool("mcp__flaky__hang", {}))
            await asyncio.wait_for(started.wait(), 10)
            t0 = time.monotonic()
            await asyncio.to_thread(server.go_down)
            with pytest.raises(MCPToolError) as e:
                await asyncio.wait_for(in_flight, 10)
            assert time.monotonic() - t0 < 5
            message = str(e.value)
            assert message.startswith("MCP server 'flaky' disconnected during the call to 'hang' (")
            assert message.endswith("it is reconnecting: call the tool again") and "\n" not in message
            # while it is down, reconnect attempts fail (reported, with backoff) and a call waits
            await _until(lambda: any("reconnect failed" in f for f in failures))
            assert m.status() == {"flaky": "reconnecting"}
            waiting = asyncio.create_task(m.call_tool("mcp__flaky__ping", {}))
            await asyncio.sleep(0.3)
            assert not waiting.done()
            await asyncio.to_thread(server.come_back)
            assert server.url == url
            assert (await asyncio.wait_for(waiting, 20)).text_content == "pong"
            assert m.connections["flaky"].connects == 2 and m.status() == {"flaky": "ready"}
            assert (await m.call_tool("mcp__flaky__ping", {})).text_content == "pong"
        finally:
            await m.disconnect()
        assert all(f.startswith("MCP server flaky: reconnect failed: ") and "\n" not in f for f in failures)
        assert [c[0] for c in server.calls] == ["hang", "ping", "ping"]


@pytest.mark.slow
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_server_that_restarts_between_calls_is_reconnected_for_the_next_call(transport: Any) -> None:
    # Over streamable HTTP the restarted server answers 404 to the old session id: the client must
    # start a new session (MCP spec) instead of failing every call with "Session not found".
    with fake_mcp_server({"ping": "pong"}, transport=transport) as server:
        m = MCPManager({"s": server.config}, reconnect_delays=[0.05, 0.1, 0.2])
        try:
            await m.discover_and_connect()
            assert await m.wait_for("s", 30)
            assert (await m.call_tool("mcp__s__ping", {})).text_content == "pong"
            await asyncio.to_thread(server.go_down)
            await asyncio.sleep(0.3)
            await asyncio.to_thread(server.come_back)
            assert (await asyncio.wait_for(m.call_tool("mcp__s__ping", {}), 20)).text_content == "pong"
            assert (await m.call_tool("mcp__s__ping", {})).text_content == "pong"
            assert m.connections["s"].connects == 2 and m.status() == {"s": "ready"}
        finally:
            await m.disconnect()
