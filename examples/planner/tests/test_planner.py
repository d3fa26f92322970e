"""The planner extension, tested with autocue's harness: the playbook is the model."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from autocue.testing import CANCEL, TestSession, call, create_test_session, say, when

PLANNER = str(Path(__file__).resolve().parents[1] / "planner.py")
MOCKS = {"bash": lambda p: f"$ {p['command']}\nok", "write": "written"}


def test_propose_then_approve(autocue_session: Callable[..., TestSession]) -> None:
    ids: list[str] = []
    t = autocue_session(extensions=[PLANNER], mock_tools=MOCKS, mock_ui={"confirm": True})
    t.run_sync(
        when("Propose a plan to cook", [
            call("plan_propose", {"title": "Cook omelette", "steps": ["crack eggs", "whisk"]})
            .then(lambda r: ids.append(r.text.split()[1].rstrip(":"))),
            say("Plan created, awaiting approval."),
        ]),
        when("Approve it", [call("plan_approve", lambda: {"id": ids[0]}), say("Approved.")]),
        when("Show it", [call("plan_get", lambda: {"id": ids[0]}), say("Here it is.")]),
    )
    assert ids[0].startswith("PLAN-")
    assert t.events.tool_results_for("plan_approve")[0].text == f"Approved {ids[0]}."
    assert t.events.tool_results_for("plan_get")[0].details == {
        "id": ids[0], "status": "approved", "steps": ["crack eggs", "whisk"],
    }
    confirm = t.events.ui_calls_for("confirm")
    assert len(confirm) == 1 and confirm[0].args[0] == "Approve plan?" and confirm[0].return_value is True
    assert t.events.ui_calls_for("notify")[0].args == [f"{ids[0]} approved", "info"]
    assert t.events.tool_sequence() == ["plan_propose", "plan_approve", "plan_get"]
    assert t.playbook.consumed == 6 and t.playbook.remaining == 0


def test_plan_mode_blocks_mutating_tools() -> None:
    with create_test_session(extensions=[PLANNER], mock_tools=MOCKS) as t:
        t.run_sync(
            when("Plan first", [
                call("plan_mode", {"enable": True}),
                call("bash", {"command": "rm -rf build"}),
                call("write", {"path": "notes.md", "content": "x"}),
                say("Blocked, as expected."),
            ]),
            when("Now do it", [
                call("plan_mode", {"enable": False}),
                call("bash", {"command": "make"}),
                say("Done."),
            ]),
        )
        blocked = t.events.blocked_calls()
        assert [(c.tool_name, c.turn) for c in blocked] == [("bash", 1), ("write", 1)]
        assert blocked[0].block_reason == "Plan mode: bash is blocked until plan mode is off"
        bash = t.events.tool_results_for("bash")
        assert [r.is_error for r in bash] == [True, False]
        assert bash[0].mocked is False  # a blocked call never reaches the mock
        assert bash[1].mocked is True and bash[1].text == "$ make\nok"
        assert t.events.ui_calls_for("set_status")[0].args == ["planner", "plan mode"]


def test_cancelled_confirm_leaves_the_plan_proposed() -> None:
    with create_test_session(extensions=[PLANNER], mock_ui={"confirm": CANCEL}) as t:
        t.run_sync(
            when("Propose and approve", [
                call("plan_propose", {"title": "Paint the shed"}),
                call("plan_approve", lambda: {"id": t.events.tool_results_for("plan_propose")[0].text.split()[1][:-1]}),
                call("plan_list"),
                say("The user did not approve."),
            ]),
        )
        approve = t.events.tool_results_for("plan_approve")[0]
        assert approve.is_error is False and approve.text.endswith("was not approved (the user declined).")
        assert "[proposed] Paint the shed" in t.events.tool_results_for("plan_list")[0].text
        assert t.events.ui_calls_for("confirm")[0].return_value is CANCEL


def test_unknown_plan_is_an_error_the_model_sees() -> None:
    with create_test_session(extensions=[PLANNER], propagate_errors=False) as t:
        t.run_sync(when("Get a plan", [call("plan_get", {"id": "PLAN-nope"}), say("No such plan.")]))
        r = t.events.tool_results_for("plan_get")[0]
        assert r.is_error and "no plan 'PLAN-nope'" in r.text


def test_plan_command_and_async_session() -> None:
    async def play() -> None:  # the async API, run with asyncio.run: no pytest async plugin needed
        async with create_test_session(extensions=[PLANNER], mock_tools=MOCKS) as t:
            await t.session.prompt("/plan on")  # a slash command: nothing goes to the model
            await t.run(when("Try to build", [call("bash", {"command": "make"}), say("Blocked.")]))
            assert t.events.blocked_calls()[0].tool_name == "bash"
            assert t.provider.calls == 2  # the /plan command never reached the model

    asyncio.run(play())
