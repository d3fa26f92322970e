"""The test harness itself: playbook scoping, loud failures, mocks, UI, records, lifecycle."""

from __future__ import annotations

import asyncio
import gc
import weakref
from pathlib import Path
from typing import Any

import pytest

from autocue.agent import AgentTool, ToolResult
from autocue.llm import TextContent
from autocue.testing import (
    CANCEL,
    ExtensionLoadError,
    HarnessError,
    PlaybookExhaustedError,
    PlaybookNotConsumedError,
    ToolExecutionError,
    UnknownToolError,
    call,
    create_test_session,
    fail,
    parallel,
    say,
    think,
    when,
)
from autocue.testing.dsl import compile_actions
from autocue.testing.session import track_sessions


def counter_ext(log: list[str]) -> Any:
    def ext(api: Any) -> None:
        api.on("tool_call", lambda e, ctx: log.append(f"call:{e.tool_name}"))
        api.on("tool_result", lambda e, ctx: log.append(f"result:{e.tool_name}"))

    return ext


# ---------------------------------------------------------------------------- DSL


def test_dsl_compiles_to_whole_replies() -> None:
    replies = compile_actions([
        think("plan it"),
        call("read", {"path": "a"}, usage={"input": 100, "output": 20}),
        parallel(call("a"), call("b", lambda: {"x": 1})),
        fail("slow down", "rate_limit", retry_after=2),
        fail("cut", "length"),
        say("done"),
    ])
    assert [r.describe() for r in replies] == [
        'think("plan it") + call("read", {"path": "a"})',
        'parallel(call("a", {}), call("b", <late-bound>))',
        'fail("slow down", kind="rate_limit")',
        'fail("cut", kind="length")',
        'say("done")',
    ]
    first = replies[0]
    assert [type(b).__name__ for b in first.content] == ["ThinkingContent", "ScriptedToolCall"]
    assert first.usage is not None and first.usage.total_tokens == 120
    assert first.effective_stop_reason() == "toolUse"
    assert replies[2].error is not None and replies[2].error.retry_after == 2
    assert replies[3].effective_stop_reason() == "length"
    assert replies[4].effective_stop_reason() == "stop"


def test_dsl_rejects_bad_input_clearly() -> None:
    with pytest.raises(TypeError, match="action 1 is 'oops'"):
        when("x", ["oops"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="kind must be one of"):
        fail("x", "bogus")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="params must be a dict"):
        call("t", 5)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------- playbook scoping


def test_exhaustion_fails_loudly_naming_turn_and_step() -> None:
    with create_test_session(mock_tools={"ping": "pong"}) as t:
        with pytest.raises(PlaybookExhaustedError) as err:
            t.run_sync(when("Ping twice", [call("ping"), call("ping")]))  # no final say()
        msg = str(err.value)
        assert 'Playbook exhausted in turn 1 (when("Ping twice"))' in msg
        assert "reply 3 of this turn, but only 2 were scripted" in msg
        assert 'Last consumed: call("ping", {}) at step 2' in msg


def test_leftovers_fail_with_the_remaining_actions_listed() -> None:
    def block_all(api: Any) -> None:
        api.on("tool_call", lambda e, ctx: {"block": True, "reason": "no"})

    with create_test_session(extension_factories=[block_all], mock_tools={"write": "ok"}) as t:
        with pytest.raises(PlaybookNotConsumedError) as err:
            t.run_sync(when("Write", [say("Sure."), call("write", {"path": "a"}), say("Written.")]))
        msg = str(err.value)
        assert msg.startswith("playbook not fully consumed: 2 actions remaining")
        assert '    - step 2: call("write", {"path": "a"})' in msg
        assert '    - step 3: say("Written.")' in msg


def test_leftovers_are_counted_when_auto_assert_is_off() -> None:
    with create_test_session(auto_assert=False) as t:
        t.run_sync(when("Hi", [say("Hello."), say("never used")]), when("Again", [say("Hi again.")]))
        assert t.playbook.consumed == 2 and t.playbook.remaining == 1


def test_a_short_turn_never_eats_the_next_turns_replies() -> None:
    with create_test_session(mock_tools={"t": "x"}) as t:
        with pytest.raises(PlaybookExhaustedError, match="turn 1"):
            t.run_sync(when("One", [call("t")]), when("Two", [say("two")]))
        assert t.provider.remaining == 0
        assert [m.role for m in t.session.messages][-1] == "assistant"


def test_steps_are_one_global_index_for_calls_and_results() -> None:
    with create_test_session(mock_tools={"a": "1", "b": "2"}) as t:
        t.run_sync(
            when("One", [call("a"), say("ok")]),
            when("Two", [think("hm"), parallel(call("a"), call("b")), say("ok")]),
        )
        assert [(c.step, c.turn) for c in t.events.tool_calls] == [(1, 1), (3, 2), (3, 2)]
        assert [(r.step, r.turn) for r in t.events.tool_results] == [(1, 1), (3, 2), (3, 2)]


# ---------------------------------------------------------------------------- tools


def test_mock_tool_forms() -> None:
    async def async_mock(p: dict[str, Any]) -> str:
        await asyncio.sleep(0)
        return f"async {p['n']}"

    mocks: dict[str, Any] = {
        "s": "plain",
        "d": {"content": [{"type": "text", "text": "dict"}], "details": {"k": 1}},
        "r": ToolResult([TextContent("result")], {"r": True}),
        "f": lambda p: f"fn {p['n']}",
        "g": lambda p: {"content": [{"type": "text", "text": "fn-dict"}], "details": p},
        "a": async_mock,
    }
    with create_test_session(mock_tools=mocks) as t:
        t.run_sync(when("go", [
            parallel(call("s"), call("d"), call("r"), call("f", {"n": 1}), call("g", {"n": 2}), call("a", {"n": 3})),
            say("ok"),
        ]))
        got = {r.tool_name: (r.text, r.details, r.mocked) for r in t.events.tool_results}
        assert got == {
            "s": ("plain", {}, True), "d": ("dict", {"k": 1}, True), "r": ("result", {"r": True}, True),
            "f": ("fn 1", {}, True), "g": ("fn-dict", {"n": 2}, True), "a": ("async 3", {}, True),
        }


def test_a_bad_mock_value_fails_at_setup() -> None:
    with pytest.raises(TypeError, match=r"mock_tools\['x'\] gave int"):
        create_test_session(mock_tools={"x": 5})  # type: ignore[dict-item]


def test_hooks_fire_exactly_once_per_mocked_call() -> None:
    log: list[str] = []
    with create_test_session(extension_factories=[counter_ext(log)], mock_tools={"bash": "ok"}) as t:
        t.run_sync(when("go", [call("bash", {"command": "ls"}), say("ok")]))
    assert log == ["call:bash", "result:bash"]


def test_extension_tools_win_over_mocks_with_a_warning() -> None:
    def ext(api: Any) -> None:
        api.register_tool(AgentTool("deploy", "Deploy", None, lambda *a: "real deploy"))

    with create_test_session(extension_factories=[ext], mock_tools={"deploy": "mocked deploy"}) as t:
        t.run_sync(when("go", [call("deploy"), say("ok")]))
        r = t.events.tool_results_for("deploy")[0]
        assert (r.text, r.mocked) == ("real deploy", False)
        assert len(t.events.warnings) == 1 and "mock_tools['deploy'] is not used" in t.events.warnings[0].message
        assert t.events.warnings[0] in t.events.all


def test_unmocked_builtin_tools_run_for_real_in_cwd() -> None:
    with create_test_session() as t:
        t.run_sync(when("go", [
            call("write", {"path": "sub/note.txt", "content": "hello\n"}),
            call("read", {"path": "sub/note.txt"}),
            say("ok"),
        ]))
        assert (t.cwd / "sub" / "note.txt").read_text() == "hello\n"
        read = t.events.tool_results_for("read")[0]
        assert read.text.startswith("hello") and read.mocked is False


def test_unknown_tool_names_it_and_lists_known_tools() -> None:
    with create_test_session(mock_tools={"alpha": "a"}) as t:
        with pytest.raises(UnknownToolError) as err:
            t.run_sync(when("go", [call("nonexistent"), say("ok")]))
        msg = str(err.value)
        assert 'The model called tool "nonexistent" at playbook step 1 (turn 1)' in msg
        assert "alpha" in msg and "read" in msg


def test_real_tool_errors_propagate_with_traceback() -> None:
    def ext(api: Any) -> None:
        def explode(x: int) -> str:
            """Always fails."""
            raise ZeroDivisionError(f"boom {x}")

        api.register_tool(explode)

    with create_test_session(extension_factories=[ext]) as t:
        with pytest.raises(ToolExecutionError) as err:
            t.run_sync(when("go", [call("explode", {"x": 1}), say("ok")]))
        msg = str(err.value)
        assert 'playbook step 1 (turn 1, call "explode"): ZeroDivisionError: boom 1' in msg
        assert "Traceback" in msg and "raise ZeroDivisionError" in msg
    with create_test_session(extension_factories=[ext], propagate_errors=False) as t:
        t.run_sync(when("go", [call("explode", {"x": 2}), say("ok")]))
        r = t.events.tool_results_for("explode")[0]
        assert r.is_error and r.text == "boom 2"


def test_then_callbacks_sync_and_async_see_the_result() -> None:
    seen: list[Any] = []

    async def later(r: Any) -> None:
        await asyncio.sleep(0)
        seen.append(("async", r.text, r.step))

    with create_test_session(mock_tools={"a": "A", "b": "B"}) as t:
        t.run_sync(when("go", [
            call("a").then(lambda r: seen.append(("sync", r.text, r.step))),
            call("b", lambda: {"prev": seen[0][1]}).then(later),
            say("ok"),
        ]))
        assert seen == [("sync", "A", 1), ("async", "B", 2)]
        assert t.events.tool_calls_for("b")[0].input == {"prev": "A"}


# ---------------------------------------------------------------------------- UI


def ui_ext(answers: list[Any]) -> Any:
    def ext(api: Any) -> None:
        async def ask(ctx: Any) -> str:
            """Ask the user everything."""
            answers.append(await ctx.ui.confirm("Sure?", "really"))
            answers.append(await ctx.ui.select("Pick", ["red", "green", "blue"]))
            answers.append(await ctx.ui.input("Name:", "your name"))
            answers.append(await ctx.ui.editor("Edit", "draft"))
            answers.append(ctx.has_ui)
            ctx.ui.notify("asked", "info")
            ctx.ui.set_widget("w", ["line"])
            return "asked"

        api.register_tool(ask)

    return ext


def test_mock_ui_defaults() -> None:
    answers: list[Any] = []
    with create_test_session(extension_factories=[ui_ext(answers)]) as t:
        t.run_sync(when("go", [call("ask"), say("ok")]))
        assert answers == [True, "red", "", "", True]
        assert [u.method for u in t.events.ui] == ["confirm", "select", "input", "editor", "notify", "set_widget"]
        assert t.events.ui_calls_for("select")[0].args == ["Pick", ["red", "green", "blue"]]


def test_mock_ui_values_callables_and_cancel() -> None:
    answers: list[Any] = []
    ui = {
        "confirm": lambda title, msg: msg == "really",
        "select": "blue",
        "input": lambda title, ph: CANCEL,
        "editor": lambda title, pre: pre + "!",
    }
    with create_test_session(extension_factories=[ui_ext(answers)], mock_ui=ui) as t:
        t.run_sync(when("go", [call("ask"), say("ok")]))
        assert answers == [True, "blue", CANCEL, "draft!", True]
        assert t.events.ui_calls_for("input")[0].return_value is CANCEL
    answers.clear()
    with create_test_session(extension_factories=[ui_ext(answers)], mock_ui={"select": 2, "confirm": CANCEL}) as t:
        t.run_sync(when("go", [call("ask"), say("ok")]))
        assert answers[:2] == [CANCEL, "blue"] and not answers[0]


def test_no_ui_gives_pi_defaults_and_still_records() -> None:
    answers: list[Any] = []
    with create_test_session(extension_factories=[ui_ext(answers)], has_ui=False) as t:
        t.run_sync(when("go", [call("ask"), say("ok")]))
        assert answers == [False, None, None, None, False]
        assert len(t.events.ui) == 6


def test_unknown_mock_ui_option_is_refused() -> None:
    with pytest.raises(TypeError, match="mock_ui got unknown option"):
        create_test_session(mock_ui={"confirmm": True})


# ---------------------------------------------------------------------------- failures scripted


def test_scripted_rate_limit_is_retried_by_the_real_session() -> None:
    with create_test_session(mock_tools={"t": "x"}) as t:
        t.run_sync(when("go", [fail("slow down", "rate_limit"), call("t"), say("ok")]))
        types = [getattr(e, "type", "") for e in t.events.all]
        assert "auto_retry_start" in types and "auto_retry_end" in types
        assert t.playbook.remaining == 0


# ---------------------------------------------------------------------------- lifecycle


def test_dispose_fires_shutdown_once_and_removes_the_temp_cwd() -> None:
    shutdowns: list[int] = []

    def ext(api: Any) -> None:
        api.on("session_shutdown", lambda e, ctx: shutdowns.append(1))

    t = create_test_session(extension_factories=[ext])
    cwd = t.cwd
    assert cwd.is_dir()
    t.run_sync(when("hi", [say("hello")]))
    t.dispose()
    t.dispose()
    assert shutdowns == [1] and not cwd.exists()
    with pytest.raises(HarnessError, match="disposed"):
        t.run_sync(when("hi", [say("hello")]))


def test_a_disposed_session_is_freed_without_the_cyclic_gc() -> None:
    """dispose() breaks the session's reference cycles: what the run made is freed as soon as the
    test lets go of it (a suite of thousands of sessions does not pile up garbage for full GC passes),
    and it stays readable until then."""
    log: list[str] = []
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()  # only reference counting may free it
    try:
        with track_sessions() as registry:  # the pytest plugin's registry would keep it (for transcripts)
            t = create_test_session(extension_factories=[counter_ext(log)], mock_tools={"lookup": "ok"})
        registry.clear()
        t.run_sync(when("go", [call("lookup", {"i": 1}), say("done")]))
        t.dispose()
        assert [m.role for m in t.session.messages] == ["user", "assistant", "toolResult", "assistant"]
        assert t.events.tool_results_for("lookup")[0].text == "ok" and log == ["call:lookup", "result:lookup"]
        refs = [weakref.ref(o) for o in (t, t.session, t.session.agent, t.session.runner, t.events, t.playbook)]
        del t
        assert [r() for r in refs] == [None] * len(refs)
    finally:
        if was_enabled:
            gc.enable()


def test_a_given_cwd_is_kept(tmp_path: Path) -> None:
    with create_test_session(cwd=tmp_path) as t:
        assert t.cwd == tmp_path.resolve()
    assert tmp_path.is_dir()


async def test_run_sync_inside_a_loop_fails_clearly() -> None:
    async with create_test_session() as t:
        with pytest.raises(HarnessError, match=r"use 'await t.run\(...\)'"):
            t.run_sync(when("hi", [say("x")]))
        await t.run(when("hi", [say("x")]))
        assert t.playbook.consumed == 1


def test_extension_load_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad_ext.py"
    bad.write_text("import nonexistent_module_xyz\n\ndef extension(api):\n    pass\n")
    with pytest.raises(ExtensionLoadError) as err:
        create_test_session(extensions=[str(bad)])
    assert "bad_ext.py" in str(err.value) and "nonexistent_module_xyz" in str(err.value)
    with create_test_session(extensions=[str(bad)], auto_assert=False) as t:
        assert len(t.extension_errors) == 1


def test_a_missing_extension_file_is_one_line_without_a_traceback(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ExtensionLoadError) as err:
        create_test_session(extensions=["examples/planner/planner.py"])
    assert str(err.value) == (f"extension file not found: {tmp_path}/examples/planner/planner.py (a relative path "
                              f"starts at the working directory, {tmp_path}: run from where the path is right, or "
                              "pass an absolute one)")
    with create_test_session(extensions=["examples/planner/planner.py"], auto_assert=False) as t:
        [missing] = t.extension_errors
        assert isinstance(missing.error, FileNotFoundError) and missing.traceback == ""
