"""Harness support for subagents: subagent(TASK_ID, [...]), t.events.subagent(...), diagnostics."""

from __future__ import annotations

import pytest

from autocue.testing import (
    PlaybookError,
    PlaybookExhaustedError,
    PlaybookNotConsumedError,
    call,
    create_test_session,
    parallel,
    say,
    subagent,
    when,
)


def task(agent: str, *ids: str, **extra: object) -> dict[str, object]:
    return {"agent": agent, "tasks": [{"id": i, "description": i, "assignment": f"look at {i}"} for i in ids], **extra}


def test_subagent_scripts_each_child_and_its_events_are_kept_apart() -> None:
    with create_test_session(mock_tools={"grep": "src/a.py:1: TODO"}) as t:
        t.run_sync(when("Review the code", [
            call("task", task("explore", "a", "b")),
            subagent("a", [call("grep", {"pattern": "TODO"}), say("a: one TODO in src/a.py")]),
            subagent("b", [say("b: nothing")]),
            say("Found one TODO."),
        ]))
        (res,) = t.events.tool_results_for("task")
        assert not res.is_error
        assert "a: one TODO in src/a.py" in res.text and "b: nothing" in res.text
        a = t.events.subagent("a")
        assert a.tool_sequence() == ["grep"] and a.tool_results[0].mocked
        assert a.tool_results[0].step == 1
        assert t.events.subagent("b").tool_calls == []
        assert t.events.tool_sequence() == ["task"]  # the parent's own calls only
        with pytest.raises(KeyError, match="no subagent ran task 'zz'; subagents seen: a, b"):
            t.events.subagent("zz")


def test_structured_output_through_the_harness() -> None:
    schema = {"type": "object", "properties": {"todos": {"type": "integer"}}, "required": ["todos"]}
    with create_test_session() as t:
        t.run_sync(when("count", [
            call("task", task("explore", "c", schema=schema)),
            subagent("c", [call("submit_result", {"result": {"todos": "many"}}),
                           call("submit_result", {"result": {"todos": 3}})]),
            say("3 TODOs"),
        ]))
        (res,) = t.events.tool_results_for("task")
        assert res.details["results"][0]["result"] == {"todos": 3}
        assert [r.is_error for r in t.events.subagent("c").tool_results] == [False, False]


def test_exhaustion_in_a_subagent_names_it_and_its_step() -> None:
    with create_test_session(mock_tools={"read": "x"}) as t, pytest.raises(PlaybookExhaustedError) as e:
        t.run_sync(when("go", [
            call("task", task("builder", "w")),
            subagent("w", [call("read", {"path": "x.txt"})]),
            say("done"),
        ]))
    msg = str(e.value)
    assert msg.startswith("Subagent 'w': Playbook exhausted in turn 1") and "reply 2 of this turn" in msg
    assert 'Last consumed: call("read"' in msg


def test_leftovers_and_a_subagent_that_never_started_are_reported() -> None:
    with create_test_session() as t, pytest.raises(PlaybookNotConsumedError) as e:
        t.run_sync(when("go", [
            call("task", task("explore", "a")),
            subagent("a", [say("done"), say("extra")]),
            subagent("ghost", [say("never")]),
            say("ok"),
        ]))
    msg = str(e.value)
    assert "Subagent 'a': playbook not fully consumed: 1 action remaining" in msg and 'say("extra")' in msg
    assert "Subagent 'ghost' was scripted with 1 reply(ies) but never started" in msg


def test_an_unscripted_subagent_is_reported() -> None:
    with create_test_session() as t, pytest.raises(PlaybookError, match="Subagent 'q' was started by the task tool"):
        t.run_sync(when("go", [parallel(call("task", task("explore", "q"))), say("ok")]))


def test_subagent_must_follow_a_task_call() -> None:
    with pytest.raises(TypeError, match=r"comes before any call\(\"task\", ...\)"):
        when("go", [subagent("a", [say("x")]), call("task", task("explore", "a"))])
    with pytest.raises(TypeError, match="action 1 is"):
        subagent("a", [subagent("b", [])])  # type: ignore[list-item]


@pytest.mark.slow
def test_subagents_as_child_processes_play_their_script_from_a_playbook_file() -> None:
    with create_test_session(settings={"task": {"mode": "process"}}) as t:
        (t.cwd / "notes.txt").write_text("42\n")
        t.run_sync(when("go", [
            call("task", task("explore", "p")),
            subagent("p", [call("read", {"path": "notes.txt"}), say("the answer is 42")]),
            say("42"),
        ]))
        (res,) = t.events.tool_results_for("task")
        assert "the answer is 42" in res.text
        lines = t.events.subagent("p").all
        assert [e["toolName"] for e in lines if e.get("type") == "tool_execution_end"] == ["read"]


@pytest.mark.slow
def test_a_child_process_that_runs_out_of_replies_is_named() -> None:
    with create_test_session(settings={"task": {"mode": "process"}}, propagate_errors=False) as t, \
            pytest.raises(PlaybookExhaustedError, match=r"Subagent 'p' \(a child process\) asked for reply 2"):
        t.run_sync(when("go", [
            call("task", task("explore", "p")),
            subagent("p", [call("find", {"pattern": "*.txt"})]),
            say("done"),
        ]))
