"""The reviewer extension, tested with autocue's harness: subagents, an MCP server and a TTSR rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from autocue.testing import call, create_test_session, fake_mcp_server, say, subagent, when

REVIEWER = str(Path(__file__).resolve().parents[1] / "reviewer.py")
GUIDE = "1. No TODO comments.\n2. Every public function has a docstring."
EXPLORE = {"agent": "explore", "context": "Style guide:\n" + GUIDE, "tasks": [
    {"id": "api", "description": "public API", "assignment": "Check src/api.py against the guide."},
    {"id": "db", "description": "database layer", "assignment": "Check src/db.py against the guide."},
]}


def test_review_fans_out_explore_subagents_with_the_style_guide() -> None:
    pytest.importorskip("mcp", reason="the MCP server needs the MCP SDK: pip install 'autocue[mcp]'")
    with fake_mcp_server({"guidelines": GUIDE}) as style, create_test_session(
        extensions=[REVIEWER], mcp_servers={"style": style},
        mock_tools={"grep": "src/api.py:3:def fetch(url):", "read": "def fetch(url):\n    return get(url)\n"},
    ) as t:
        t.run_sync(when("/review src", [
            call("mcp__style__guidelines", {}),
            call("task", EXPLORE),
            subagent("api", [call("grep", {"pattern": "def "}), say("src/api.py:3: fetch has no docstring")]),
            subagent("db", [call("read", {"path": "src/db.py"}), say("src/db.py: no problems")]),
            call("review_report", {"summary": "One missing docstring.",
                                   "findings": ["src/api.py:3: add a docstring to fetch"]}),
            say("Filed the review: one finding."),
        ]))
        assert style.calls == [("guidelines", {})]
        (task,) = t.events.tool_results_for("task")
        assert "## api (explore): done" in task.text and "fetch has no docstring" in task.text
        assert "Style guide:\n1. No TODO comments." in t.events.subagent("api").messages[0].content[0].text
        assert t.events.subagent("api").tool_sequence() == ["grep"]
        assert t.events.subagent("db").tool_sequence() == ["read"]
        assert t.events.tool_results_for("review_report")[0].text == "Review filed with 1 finding(s)."
        assert t.events.tool_sequence() == ["mcp__style__guidelines", "task", "review_report"]


def test_a_todo_in_the_answer_is_cut_and_asked_again() -> None:
    with create_test_session(extensions=[REVIEWER]) as t:
        t.run_sync(when("Summarise the review", [
            say("Looks fine. TODO: check the retries later"),
            say("Looks fine; add a test for the retry path in src/api.py."),
        ]))
        (trig,) = t.events.ttsr_triggers()
        assert trig.rule.name == "no-todo" and trig.match == "TODO"
        assert t.session.get_last_assistant_text() == "Looks fine; add a test for the retry path in src/api.py."


def test_a_report_without_findings_is_refused() -> None:
    with create_test_session(extensions=[REVIEWER], propagate_errors=False) as t:
        t.run_sync(when("File it", [
            call("review_report", {"summary": "Two problems."}),
            call("review_report", {"summary": "Two problems.", "findings": ["a.py:1: x", "b.py:2: y"]}),
            say("Filed."),
        ]))
        first, second = t.events.tool_results_for("review_report")
        assert first.is_error and "needs findings" in first.text
        assert second.text == "Review filed with 2 finding(s)."
