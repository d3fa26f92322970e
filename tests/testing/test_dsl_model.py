"""The DSL builds the Script model itself (no second reply model), and a test session does only
the work somebody observes: a reply is streamed as deltas, and turn events are built, only for a
listener that reads them."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from autocue.script import FailKind, ScriptedResponse, ScriptedToolCall, Turn
from autocue.testing import call, create_test_session, fail, parallel, say, subagent, think, when
from autocue.testing.dsl import FAIL_KINDS


def test_builders_return_script_model_replies_and_when_a_turn() -> None:
    seen: list[Any] = []
    turn = when("go", [
        think("first"),
        call("task", {"agent": "x"}).then(seen.append),
        subagent("t1", [think("child"), say("child done")]),
        parallel(call("a"), call("b").then(seen.append), say("both")),
        fail("slow", "rate_limit"),
        say("done"),
    ])
    assert isinstance(turn, Turn) and turn.prompt == "go"
    assert all(isinstance(s, ScriptedResponse) for s in turn.steps)
    assert [s.describe() for s in turn.steps] == [  # type: ignore[union-attr]
        'think("first") + call("task", {"agent": "x"})',
        'parallel(call("a", {}), call("b", {}), say("both"))',
        'fail("slow", kind="rate_limit")',
        'say("done")',
    ]
    assert [s.describe() for s in turn.subagents["t1"]] == ['think("child") + say("child done")']  # type: ignore[union-attr]
    first, par = turn.steps[0], turn.steps[1]
    assert first.then_of(0) is not None and par.then_of(0) is None and par.then_of(1) is not None  # type: ignore[union-attr]
    # the script layer's tool call knows nothing of the harness's callbacks
    assert "then" not in {f.name for f in dataclasses.fields(ScriptedToolCall)}


def test_one_literal_set_of_fail_kinds() -> None:
    assert set(FAIL_KINDS) == {"error", "overloaded", "rate_limit", "aborted", "context_overflow", "length"}
    kind: FailKind = "length"
    cut = fail("cut", kind)
    assert cut.effective_stop_reason() == "length" and cut.error is None
    with pytest.raises(ValueError, match="kind must be one of error, overloaded"):
        fail("x", "bogus")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="only a call"):
        say("x").then(print)


def test_a_reply_streams_only_for_a_listener_that_reads_deltas() -> None:
    with create_test_session(mock_tools={"t": "ok"}) as t:
        t.run_sync(when("quiet", [call("t", {"text": "a fairly long argument"}), say("a fairly long answer here")]))
        quiet = [e.type for e in t.events.all]
        assert "message_update" not in quiet and "turn_end" not in quiet  # nobody read them: not built
        assert quiet.count("message_end") == 4 and quiet.count("tool_execution_end") == 1
        deltas: list[Any] = []
        t.session.subscribe(lambda ev: deltas.append(ev) if ev.type == "message_update" else None)
        t.run_sync(when("loud", [call("t", {"text": "a fairly long argument"}), say("a fairly long answer here")]))
        assert len(deltas) > 4 and len(t.events.of_type("message_update")) == len(deltas)
        assert len(t.events.of_type("turn_end")) == 2  # read by the listener, so recorded too
        assert t.events.tool_results_for("t")[1].text == "ok"
