"""MCPManager and create_test_session over the HTTP+SSE transport, against the official SDK's SSE server
(``fake_mcp_server(transport="sse")``): list tools, call, results, errors, list_changed."""

from __future__ import annotations

import asyncio

import pytest

from autocue.llm.types import ImageContent, TextContent
from autocue.mcp import MCPManager, MCPToolError
from autocue.testing import FakeTool, call, create_test_session, fake_mcp_server, say, when
from autocue.testing.errors import HarnessError

PNG = "iVBORw0KGgo="
SEARCH = FakeTool(lambda args: f"3 pages about {args['q']}", "Search the docs",
                  {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]})


def test_the_fake_server_speaks_sse_at_slash_sse() -> None:
    with fake_mcp_server({"a": "a"}, transport="sse") as server:
        assert server.config == {"type": "sse", "url": server.url}
        assert server.url is not None and server.url.startswith("http://127.0.0.1:") and server.url.endswith("/sse")


def test_an_unknown_transport_is_refused() -> None:
    with pytest.raises(HarnessError, match="transport must be 'http', 'sse' or 'stdio', got 'ws'"):
        fake_mcp_server({}, transport="ws").__enter__()  # type: ignore[arg-type]


async def test_sse_server_tools_calls_results_and_errors() -> None:
    tools = {
        "search": SEARCH,
        "image": {"content": [{"type": "image", "data": PNG, "mimeType": "image/png"}]},
        "structured": {"content": [{"type": "text", "text": "{\"n\": 1}"}], "structuredContent": {"n": 1}},
        "failing": {"content": [{"type": "text", "text": "no such page"}], "isError": True},
        "raising": lambda args: 1 / 0,
    }
    with fake_mcp_server(tools, transport="sse") as server:
        m = MCPManager({"old": server.config}, grace_period=30)
        try:
            assert await m.discover_and_connect() == ["old"]
            infos = {i.name: i for i in m.list_tools()}
            assert list(infos) == ["mcp__old__search", "mcp__old__image", "mcp__old__structured",
                                   "mcp__old__failing", "mcp__old__raising"]
            assert infos["mcp__old__search"].description == "Search the docs"
            assert infos["mcp__old__search"].input_schema["required"] == ["q"]
            r = await m.call_tool("mcp__old__search", {"q": "hooks"})
            assert r.content == [TextContent("3 pages about hooks")]
            assert r.details == {"server": "old", "tool": "search"}
            assert (await m.call_tool("mcp__old__image", {})).content == [ImageContent(PNG, "image/png")]
            assert (await m.call_tool("mcp__old__structured", {})).details["structuredContent"] == {"n": 1}
            with pytest.raises(MCPToolError, match=r"^no such page$"):
                await m.call_tool("mcp__old__failing", {})
            with pytest.raises(MCPToolError, match="division by zero"):
                await m.call_tool("mcp__old__raising", {})
        finally:
            await m.disconnect()
        assert server.calls == [("search", {"q": "hooks"}), ("image", {}), ("structured", {}), ("failing", {}),
                                ("raising", {})]
        assert m.failures == [] and m.status() == {"old": "closed"}


async def test_sse_tools_list_changed_refreshes_the_tools() -> None:
    with fake_mcp_server({"one": "1"}, transport="sse") as server:
        m = MCPManager({"s": server.config}, grace_period=30)  # returns once the server is up
        changed = asyncio.Event()
        m.add_tools_listener(changed.set)
        try:
            await m.discover_and_connect()
            assert await m.wait_for("s", 30)
            assert [t.name for t in m.list_tools()] == ["mcp__s__one"]
            changed.clear()
            await asyncio.to_thread(server.set_tools, {"two": "2"})
            await asyncio.wait_for(changed.wait(), 10)
            assert [t.name for t in m.list_tools()] == ["mcp__s__two"]
            assert (await m.call_tool("mcp__s__two", {})).text_content == "2"
        finally:
            await m.disconnect()


def test_playbook_calls_an_sse_server_tool() -> None:
    with fake_mcp_server({"search": SEARCH}, transport="sse") as server, \
            create_test_session(mcp_servers={"docs": server}) as t:
        t.run_sync(when("Find hooks", [call("mcp__docs__search", {"q": "hooks"}), say("Found them.")]))
        [r] = t.events.tool_results_for("mcp__docs__search")
        assert (r.text, r.is_error) == ("3 pages about hooks", False)
        assert server.calls == [("search", {"q": "hooks"})]


def test_an_sse_error_result_is_a_tool_error_in_the_session() -> None:
    failing = {"content": [{"type": "text", "text": "no page 7"}], "isError": True}
    with fake_mcp_server({"lookup": failing}, transport="sse") as server, \
            create_test_session(mcp_servers={"docs": {"type": "sse", "url": server.url}},
                                propagate_errors=False) as t:
        t.run_sync(when("Look", [call("mcp__docs__lookup", {"id": 7}), say("Not there.")]))
        [r] = t.events.tool_results_for("mcp__docs__lookup")
        assert (r.is_error, r.text) == (True, "no page 7")


async def test_sse_list_changed_mid_test_adds_and_removes_tools() -> None:
    with fake_mcp_server({"old": "old result"}, transport="sse") as server:
        async with create_test_session(mcp_servers={"s": server}) as t:
            await t.run(when("First", [call("mcp__s__old", {}), say("ok")]))
            await asyncio.to_thread(server.set_tools, {"new": "new result"})
            for _ in range(500):  # the notification is handled on this loop
                if "mcp__s__new" in t.session.get_active_tool_names():
                    break
                await asyncio.sleep(0.01)
            active = t.session.get_active_tool_names()
            assert "mcp__s__new" in active and "mcp__s__old" not in active
            await t.run(when("Second", [call("mcp__s__new", {}), say("ok")]))
            assert t.events.tool_results_for("mcp__s__new")[0].text == "new result"
