"""The ExtensionAPI: registration, actions, commands, tools, flags, messages, exec, ctx and UI."""

from __future__ import annotations

import asyncio
import functools
import sys
from typing import Any

import pytest
from session_helpers import RecordingUI, call, echo, make_session, record, say

from autocue.agent import AgentTool, ToolResult
from autocue.extensions import (
    CANCELLED,
    NO_UI,
    ExtensionRuntimeError,
    NoUIContext,
    run_dialog,
)
from autocue.llm.abort import AbortController
from autocue.llm.types import Context, TextContent, Usage
from autocue.script import ScriptedResponse, ScriptedToolCall
from autocue.script.provider import scripted_model

# ---------------------------------------------------------------------------- loading-time guard


@pytest.mark.parametrize(
    "action",
    [
        lambda api: api.append_entry("x"),
        lambda api: api.set_session_name("n"),
        lambda api: api.get_active_tools(),
        lambda api: api.set_active_tools([]),
        lambda api: api.get_all_tools(),
        lambda api: api.get_thinking_level(),
        lambda api: api.ctx,
    ],
)
def test_action_methods_during_loading_raise_a_clear_error(action: Any) -> None:
    def ext(api: Any) -> None:
        api.on("agent_start", lambda e: None)  # registration is fine while loading
        api.register_tool(echo)
        action(api)

    s, _ = make_session([], extensions=[ext])
    [err] = s.extensions_result.errors
    assert isinstance(err.error, ExtensionRuntimeError)
    assert "Action methods cannot be called during extension loading" in str(err.error)
    assert err.name == "ext" and "Traceback" in err.traceback


async def test_async_actions_during_loading_raise_too() -> None:
    async def ext(api: Any) -> None:
        await api.send_message({"custom_type": "x", "content": "y"})

    s, _ = make_session([], extensions=[ext])
    await s.bind_extensions()
    [err] = s.extensions_result.errors
    assert isinstance(err.error, ExtensionRuntimeError)
    assert s.extensions_result.extensions == []


async def test_actions_work_from_handlers() -> None:
    def ext(api: Any) -> None:
        @api.on("session_start")
        def start(event: Any, ctx: Any) -> None:
            api.set_session_name("named by ext")
            api.append_entry("state", {"count": 1})

    s, _ = make_session([], extensions=[ext])
    await s.bind_extensions()
    assert s.session_manager.get_session_name() == "named by ext"
    customs = [e for e in s.session_manager.get_entries() if e.type == "custom"]
    assert [(e.custom_type, e.data) for e in customs] == [("state", {"count": 1})]


def test_unknown_event_name_is_a_load_error_naming_the_event() -> None:
    s, _ = make_session([], extensions=[lambda api: api.on("tool_calls", lambda e: None)])
    [err] = s.extensions_result.errors
    assert "unknown event 'tool_calls'" in str(err.error) and "tool_call" in str(err.error)


# ---------------------------------------------------------------------------- commands


async def test_slash_command_runs_handler_and_nothing_reaches_the_model() -> None:
    got: list[tuple[str, bool]] = []

    def ext(api: Any) -> None:
        @api.register_command("plan", description="toggle plan mode")
        async def plan(args: str, ctx: Any) -> None:
            await ctx.wait_for_idle()
            got.append((args, ctx.is_idle()))

    s, p = make_session([say("model reply")], extensions=[ext])
    await s.prompt("/plan on  now")
    assert got == [("on  now", True)] and p.calls == 0 and s.messages == []
    await s.prompt("/unknown stays text")
    assert s.messages[0].text == "/unknown stays text"
    names = {(c.name, c.source) for c in s.get_commands()}
    assert ("plan", "extension") in names


async def test_pi_style_command_spec_dict_runs_its_handler() -> None:
    got: list[str] = []

    def ext(api: Any) -> None:
        api.register_command("count", {"description": "count things", "handler": lambda args, ctx: got.append(args),
                                       "getArgumentCompletions": lambda prefix: ["one", "two"]})

    s, p = make_session([], extensions=[ext])
    await s.prompt("/count three")
    assert got == ["three"] and p.calls == 0
    [cmd] = [c for c in s.get_commands() if c.name == "count"]
    assert cmd.description == "count things"


def test_a_command_spec_dict_without_a_handler_is_a_clear_error() -> None:
    def ext(api: Any) -> None:
        api.register_command("x", {"description": "no handler", "hanlder": lambda a, c: None})

    s, _ = make_session([], extensions=[ext])
    [err] = s.extensions_result.errors
    assert "register_command('x', {...}): unknown keys ['hanlder']" in str(err.error)
    assert not [c for c in s.get_commands() if c.name == "x"]


async def test_failing_command_is_reported() -> None:
    def ext(api: Any) -> None:
        api.register_command("/bad", lambda args, ctx: 1 / 0)

    s, p = make_session([], extensions=[ext])
    events = record(s)
    await s.prompt("/bad")
    [err] = [e for e in events if e.type == "extension_error"]
    assert err.event == "command:/bad" and "ZeroDivisionError" in err.error
    assert p.calls == 0


async def test_commands_cannot_be_queued() -> None:
    s, _ = make_session([], extensions=[lambda api: api.register_command("x", lambda a: None)])
    with pytest.raises(ValueError, match="cannot be queued"):
        await s.steer("/x now")


# ---------------------------------------------------------------------------- tools


async def test_extension_tool_overrides_builtin_and_first_registration_wins() -> None:
    def mk(text: str) -> AgentTool:
        return AgentTool("echo", "ext echo", {"type": "object", "properties": {"text": {"type": "string"}}},
                         lambda _id, params, sig, upd: f"{text}: {params['text']}")

    s, _ = make_session([call("echo", {"text": "x"}), say("ok")],
                        extensions=[lambda api: api.register_tool(mk("first")),
                                    lambda api: api.register_tool(mk("second"))])
    await s.prompt("go")
    assert next(m for m in s.messages if m.role == "toolResult").text == "first: x"
    info = {t.name: t for t in s.get_all_tools()}
    assert info["echo"].source == "extension" and info["echo"].overrides_builtin is True
    assert info["echo"].extension_path == "<factory <lambda>>"
    assert info["boom"].source == "builtin" and info["boom"].active


async def test_register_tool_after_startup_is_available_on_the_next_model_call() -> None:
    tool_names: list[list[str]] = []

    def step(text: str) -> Any:
        def f(ctx: Context) -> ScriptedResponse:
            tool_names.append([t.name for t in ctx.tools])
            return ScriptedResponse([TextContent(text)])
        return f

    def ext(api: Any) -> None:
        @api.register_command("enable")
        def enable(args: str, ctx: Any) -> None:
            def late(text: str) -> str:
                """A tool registered late."""
                return text
            api.register_tool(late)

    s, _ = make_session([step("a"), step("b")], extensions=[ext])
    await s.prompt("one")
    await s.prompt("/enable")
    await s.prompt("two")
    assert tool_names == [["echo", "boom"], ["echo", "boom", "late"]]
    assert "late" in s.get_active_tool_names()


async def test_function_tool_gets_ctx() -> None:
    seen: list[Any] = []

    def ext(api: Any) -> None:
        def where(label: str, ctx: Any) -> str:
            """Report the cwd."""
            seen.append(ctx.is_idle())
            return f"{label}:{ctx.cwd}"
        api.register_tool(where)

    s, _ = make_session([call("where", {"label": "here"}), say("ok")], extensions=[ext], cwd="/tmp")
    await s.prompt("go")
    assert next(m for m in s.messages if m.role == "toolResult").text == "here:/tmp"
    assert seen == [False]
    params = {t.name: t.parameters for t in s.get_all_tools()}["where"]
    assert list(params["properties"]) == ["label"]


async def test_active_tools_through_the_api() -> None:
    got: dict[str, Any] = {}

    def ext(api: Any) -> None:
        @api.on("session_start")
        def start(event: Any) -> None:
            got["before"] = api.get_active_tools()
            api.set_active_tools(["echo"])
            got["after"] = api.get_active_tools()
            got["all"] = [t.name for t in api.get_all_tools()]

    s, _ = make_session([], extensions=[ext])
    await s.bind_extensions()
    assert got == {"before": ["echo", "boom"], "after": ["echo"], "all": ["echo", "boom"]}
    assert [t.name for t in s.agent.state.tools] == ["echo"]
    with pytest.raises(ValueError, match="unknown tool"):
        s.set_active_tools(["nope"])


# ---------------------------------------------------------------------------- flags, model, thinking


async def test_flags_default_and_given_values() -> None:
    got: dict[str, Any] = {}

    def ext(api: Any) -> None:
        api.register_flag("plan", type="boolean", default=False, description="start in plan mode")
        api.register_flag("name", type="string", default="anon")
        got["plan"], got["name"] = api.get_flag("plan"), api.get_flag("name")
        with pytest.raises(KeyError, match="not registered"):
            api.get_flag("missing")

    make_session([], extensions=[ext], flag_values={"plan": True})
    assert got == {"plan": True, "name": "anon"}


async def test_set_model_and_thinking_level_from_an_extension() -> None:
    selected: list[tuple[str, str | None]] = []
    other = scripted_model("other-model")

    def ext(api: Any) -> None:
        api.on("model_select",
               lambda e: selected.append((e.model.id, e.previous_model.id if e.previous_model else None)))

        @api.register_command("switch")
        async def switch(args: str, ctx: Any) -> None:
            assert await api.set_model(other) is True
            api.set_thinking_level("high")
            assert api.get_thinking_level() == "high"

    s, _ = make_session([], extensions=[ext])
    await s.prompt("/switch")
    assert selected == [("other-model", "playbook")]
    assert s.model.id == "other-model" and s.thinking_level == "high"
    kinds = [(e.type, getattr(e, "model_id", None) or getattr(e, "thinking_level", None))
             for e in s.session_manager.get_entries()]
    assert kinds[-2:] == [("model_change", "other-model"), ("thinking_level_change", "high")]
    with pytest.raises(ValueError, match="unknown thinking level"):
        s.set_thinking_level("extreme")


# ---------------------------------------------------------------------------- messages


async def test_send_message_when_idle_is_appended_and_persisted() -> None:
    def ext(api: Any) -> None:
        @api.register_command("note")
        async def note(args: str, ctx: Any) -> None:
            await api.send_message({"custom_type": "note", "content": args, "display": True, "details": {"k": 1}})

    s, p = make_session([], extensions=[ext])
    events = record(s)
    await s.prompt("/note remember this")
    assert p.calls == 0
    [m] = s.messages
    assert m.role == "custom" and m.content == "remember this"
    assert [e.type for e in events] == ["message_start", "message_end"]
    [entry] = [e for e in s.session_manager.get_entries() if e.type == "custom_message"]
    assert entry.custom_type == "note" and entry.details == {"k": 1}


async def test_send_message_trigger_turn_runs_the_model() -> None:
    def ext(api: Any) -> None:
        api.register_command("kick", lambda args: api.send_message({"custom_type": "k", "content": "go"},
                                                                   trigger_turn=True))

    s, p = make_session([say("reacting")], extensions=[ext])
    await s.prompt("/kick")
    assert p.calls == 1 and s.get_last_assistant_text() == "reacting"


async def test_next_turn_messages_ride_along_with_the_next_prompt() -> None:
    def ext(api: Any) -> None:
        api.register_command("later", lambda args: api.send_message({"custom_type": "ctx", "content": "extra"},
                                                                    deliver_as="next_turn"))

    s, _ = make_session([say("ok")], extensions=[ext])
    await s.prompt("/later")
    assert s.messages == [] and s.has_pending_messages()
    await s.prompt("hi")
    assert [m.role for m in s.messages] == ["user", "custom", "assistant"]


async def test_send_user_message_while_running_needs_deliver_as() -> None:
    outcome: dict[str, Any] = {}

    def ext(api: Any) -> None:
        @api.on("tool_call")
        async def h(event: Any) -> None:
            try:
                await api.send_user_message("interrupt")
            except Exception as e:
                outcome["error"] = str(e)
            await api.send_user_message("steered in", deliver_as="steer")

    s, _ = make_session([call("echo", {"text": "x"}), say("ok")], extensions=[ext])
    await s.prompt("go")
    assert "deliver_as" in outcome["error"]
    users = [m.text for m in s.messages if m.role == "user"]
    assert users == ["go", "steered in"]


# ---------------------------------------------------------------------------- exec


async def test_exec_runs_a_real_process(tmp_path: Any) -> None:
    results: list[Any] = []

    def ext(api: Any) -> None:
        @api.register_command("run")
        async def run(args: str, ctx: Any) -> None:
            results.append(await api.exec(sys.executable, ["-c", "import os,sys; print(os.getcwd()); "
                                                                  "sys.stderr.write('e'); sys.exit(3)"]))
            results.append(await api.exec(sys.executable, ["-c", "import time; time.sleep(30)"], timeout=0.2))
            results.append(await api.exec("/definitely/not/here"))

    s, _ = make_session([], extensions=[ext], cwd=tmp_path)
    await s.prompt("/run")
    ok, slow, missing = results
    assert ok.stdout.strip() == str(tmp_path) and ok.stderr == "e" and ok.code == 3 and not ok.killed
    assert slow.killed is True
    assert missing.code == 127 and "/definitely/not/here" in missing.stderr


# ---------------------------------------------------------------------------- ctx


async def test_handler_ctx_surface() -> None:
    got: dict[str, Any] = {}

    def ext(api: Any) -> None:
        @api.on("tool_call")
        def h(event: Any, ctx: Any) -> None:
            got["idle"] = ctx.is_idle()
            got["has_ui"] = ctx.has_ui
            got["model"] = ctx.model.id
            got["system"] = ctx.get_system_prompt()
            got["usage"] = ctx.get_context_usage()
            got["leaf"] = ctx.session_manager.get_leaf_id()
            got["entries"] = len(ctx.session_manager.get_entries())
            with pytest.raises(AttributeError, match="read-only"):
                ctx.session_manager.append_message  # noqa: B018
            got["ui"] = ctx.ui

    first = ScriptedResponse([ScriptedToolCall("echo", {"text": "x"})], usage=Usage.of(1000, 50))
    s, _ = make_session([first, say("ok")], extensions=[ext], system_prompt="SYS")
    await s.prompt("go")
    assert got["idle"] is False and got["has_ui"] is False and got["ui"] is NO_UI
    assert got["model"] == "playbook" and got["system"] == "SYS"
    assert got["usage"].tokens == 1050 and got["usage"].context_window == 128_000
    assert got["leaf"] is not None and got["entries"] >= 3


async def test_ctx_abort_stops_the_run() -> None:
    def ext(api: Any) -> None:
        api.on("tool_execution_end", lambda e, ctx: ctx.abort())

    s, _p = make_session([call("echo", {"text": "x"}), say("never")], extensions=[ext])
    await s.prompt("go")
    last = s.messages[-1]
    assert last.role == "assistant" and last.stop_reason == "aborted"
    assert not s.is_streaming


# ---------------------------------------------------------------------------- UI


async def test_no_ui_defaults() -> None:
    ui = NoUIContext()
    assert await ui.confirm("sure?", "really") is False
    assert await ui.select("pick", ["a", "b"]) is None
    assert await ui.input("name") is None
    assert await ui.editor("text", "prefill") is None
    assert ui.notify("hi") is None and ui.set_status("k", "v") is None and ui.set_widget("w", ["x"]) is None
    assert ui.set_title("t") is None and ui.set_working_message("w") is None


def test_cancelled_is_a_falsy_singleton() -> None:
    from autocue.extensions.ui import Cancelled

    assert not CANCELLED and Cancelled() is CANCELLED and repr(CANCELLED) == "CANCELLED"


async def test_run_dialog_timeout_and_abort_cancel() -> None:
    never: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    assert await run_dialog(never, timeout=0.01) is CANCELLED
    ctrl = AbortController()

    async def slow() -> str:
        await asyncio.sleep(10)
        return "late"

    async def abort_soon() -> None:
        await asyncio.sleep(0)
        ctrl.abort()

    t = asyncio.ensure_future(abort_soon())
    assert await run_dialog(slow(), signal=ctrl.signal) is CANCELLED
    await t

    async def quick() -> str:
        return "answer"

    assert await run_dialog(quick(), timeout=5) == "answer"


async def test_given_ui_reaches_handlers_and_has_ui_follows() -> None:
    ui = RecordingUI({"confirm": CANCELLED, "select": "b"})
    got: dict[str, Any] = {}

    def ext(api: Any) -> None:
        @api.on("tool_call")
        async def h(event: Any, ctx: Any) -> Any:
            got["has_ui"] = ctx.has_ui
            got["pick"] = await ctx.ui.select("pick", ["a", "b"])
            ctx.ui.notify("checking", "warning")
            ok = await ctx.ui.confirm("run it?", event.tool_name)
            got["ok"] = ok
            if not ok:
                return {"block": True, "reason": "user cancelled" if ok is CANCELLED else "user said no"}
            return None

    s, _ = make_session([call("echo", {"text": "x"}), say("ok")], extensions=[ext], ui=ui)
    await s.prompt("go")
    assert got == {"has_ui": True, "pick": "b", "ok": CANCELLED}
    assert [c[0] for c in ui.calls] == ["select", "notify", "confirm"]
    assert next(m for m in s.messages if m.role == "toolResult").text == "user cancelled"


async def test_bind_extensions_can_set_ui_later_and_has_ui_false_keeps_given_ui() -> None:
    ui = RecordingUI()
    s, _ = make_session([])
    await s.bind_extensions(ui=ui, has_ui=False)
    assert s.ui is ui and s.has_ui is False


# ---------------------------------------------------------------------------- tools returning ToolResult


async def test_tool_result_objects_pass_through() -> None:
    t = AgentTool("structured", "", None, lambda *a: ToolResult.text("body", {"n": 2}))
    s, _ = make_session([call("structured"), say("ok")], tools=[t])
    await s.prompt("go")
    trm = next(m for m in s.messages if m.role == "toolResult")
    assert trm.text == "body" and trm.details == {"n": 2}


# ---------------------------------------------------------------------------- handler shapes


class _Obj:
    def method(self, e: Any) -> Any:
        return ("method", e)

    def __call__(self, e: Any, ctx: Any) -> Any:
        return ("callable", e, ctx)


def _wrapping(fn: Any) -> Any:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    return wrapper


def _kw_only(e: Any, *, extra: int = 1) -> Any:
    return ("kw-only", e, extra)


def _posonly(e: Any, ctx: Any, /) -> Any:
    return ("posonly", e, ctx)


@pytest.mark.parametrize(
    ("handler", "expected"),
    [
        (lambda: "none", "none"),
        (lambda e: ("one", e), ("one", "E")),
        (lambda e, ctx: ("two", e, ctx), ("two", "E", "C")),
        (lambda e, ctx=None: ("default", e, ctx), ("default", "E", "C")),
        (lambda *a: ("varargs", *a), ("varargs", "E", "C")),
        (_kw_only, ("kw-only", "E", 1)),
        (_posonly, ("posonly", "E", "C")),
        (_wrapping(lambda e: ("wrapped", e)), ("wrapped", "E")),  # the wrapped signature counts
        (_Obj().method, ("method", "E")),
        (_Obj(), ("callable", "E", "C")),
        (functools.partial(lambda tag, e: (tag, e), "partial"), ("partial", "E")),
    ],
)
def test_handlers_are_called_with_the_arguments_they_take(handler: Any, expected: Any) -> None:
    from autocue.extensions.extension import normalize_handler

    assert normalize_handler(handler)("E", "C") == expected
