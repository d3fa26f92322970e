"""create_test_session(mcp_servers=...): real MCP servers (fake_mcp_server or an mcp.json entry) whose
tools the playbook calls as mcp__server__tool; mock_tools can mock those names."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import mcp_handlers
import pytest

from autocue.testing import FakeTool, call, create_test_session, fake_mcp_server, say, when

SEARCH = FakeTool(lambda args: f"3 pages about {args['q']}", "Search the docs",
                  {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]})


def test_playbook_calls_a_fake_http_server_tool() -> None:
    with fake_mcp_server({"search": SEARCH}) as server, create_test_session(mcp_servers={"docs": server}) as t:
        t.run_sync(when("Find hooks", [call("mcp__docs__search", {"q": "hooks"}), say("Found them.")]))
        [r] = t.events.tool_results_for("mcp__docs__search")
        assert (r.text, r.is_error, r.mocked) == ("3 pages about hooks", False, False)
        assert r.details == {"server": "docs", "tool": "search"}
        assert server.calls == [("search", {"q": "hooks"})]
        spec = next(i for i in t.session.get_all_tools() if i.name == "mcp__docs__search")
        assert spec.description == "Search the docs" and spec.parameters["required"] == ["q"]


def test_the_model_sees_the_mcp_schema_and_bad_arguments_are_refused_before_the_server() -> None:
    with fake_mcp_server({"search": SEARCH}) as server, \
            create_test_session(mcp_servers={"docs": server}, propagate_errors=False) as t:
        t.run_sync(when("Find", [call("mcp__docs__search", {"query": "x"}), say("Oops.")]))
        [r] = t.events.tool_results_for("mcp__docs__search")
        assert r.is_error and "q" in r.text
        assert server.calls == []


@pytest.mark.slow
def test_a_stdio_server_from_an_mcp_json_entry() -> None:
    with fake_mcp_server({"echo": mcp_handlers.echo}, transport="stdio") as server:
        entry = dict(server.config)  # the plain mcp.json shape: {"command", "args", "env"}
        assert set(entry) == {"command", "args", "env"}
        with create_test_session(mcp_servers={"local": entry}) as t:
            t.run_sync(when("Echo", [call("mcp__local__echo", {"text": "hi"}), say("ok")]))
            assert t.events.tool_results_for("mcp__local__echo")[0].text.startswith("echo hi from pid ")


def test_mock_tools_can_mock_an_mcp_tool() -> None:
    with fake_mcp_server({"search": SEARCH}) as server, \
            create_test_session(mcp_servers={"docs": server}, mock_tools={"mcp__docs__search": "mocked"}) as t:
        t.run_sync(when("Find", [call("mcp__docs__search", {"q": "x"}), say("ok")]))
        [r] = t.events.tool_results_for("mcp__docs__search")
        assert (r.text, r.mocked) == ("mocked", True)
        assert server.calls == [] and t.events.warnings == []


def test_an_mcp_error_result_is_a_tool_error() -> None:
    def lookup(args: dict[str, Any]) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": f"no page {args['id']}"}], "isError": True}

    with fake_mcp_server({"lookup": lookup}) as server, \
            create_test_session(mcp_servers={"docs": server}, propagate_errors=False) as t:
        t.run_sync(when("Look", [call("mcp__docs__lookup", {"id": 7}), say("Not there.")]))
        [r] = t.events.tool_results_for("mcp__docs__lookup")
        assert (r.is_error, r.text) == (True, "no page 7")


def test_a_server_that_fails_to_start_is_a_warning_and_the_others_work() -> None:
    broken = {"command": sys.executable, "args": ["-c", "raise SystemExit(1)"]}
    with fake_mcp_server({"search": SEARCH}) as server, \
            create_test_session(mcp_servers={"docs": server, "broken": broken}) as t:
        t.run_sync(when("Find", [call("mcp__docs__search", {"q": "x"}), say("ok")]))
        assert t.events.tool_results_for("mcp__docs__search")[0].text == "3 pages about x"
        [w] = t.events.warnings
        assert w.message.startswith("MCP server broken: did not start: ") and "\n" not in w.message
        assert not any(n.startswith("mcp__broken__") for n in t.session.get_active_tool_names())


async def test_list_changed_mid_test_adds_and_removes_tools() -> None:
    with fake_mcp_server({"old": "old result"}) as server:
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


async def test_async_session_with_mcp_servers() -> None:
    with fake_mcp_server({"search": SEARCH}) as server:
        async with create_test_session(mcp_servers={"docs": server}) as t:
            await t.run(when("Find", [call("mcp__docs__search", {"q": "async"}), say("ok")]))
            assert t.events.tool_results_for("mcp__docs__search")[0].text == "3 pages about async"
