"""Hook semantics of the extension runner, driven through a real AgentSession and scripted model."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from session_helpers import call, calls, make_session, record, say

from autocue.agent import ToolExecutionEndEvent
from autocue.extensions import ExtensionErrorEvent, ToolCallResult, ToolResultPatch
from autocue.llm.types import Context, TextContent
from autocue.script import ScriptedResponse


def tool_results(session: Any) -> list[Any]:
    return [m for m in session.messages if m.role == "toolResult"]


# ---------------------------------------------------------------------------- tool_call


async def test_tool_call_first_block_wins_and_stops_the_chain() -> None:
    seen: list[str] = []
    executed: list[str] = []

    def first(api: Any) -> None:
        @api.on("tool_call")
        def h(event: Any, ctx: Any) -> Any:
            seen.append("first")
            return {"block": True, "reason": "not now"}

    def second(api: Any) -> None:
        api.on("tool_call", lambda e, ctx: seen.append("second"))
        api.on("tool_execution_start", lambda e: executed.append(e.tool_name))

    s, _p = make_session([call("echo", {"text": "x"}), say("ok")], extensions=[first, second])
    events = record(s)
    await s.prompt("go")
    assert seen == ["first"]
    [trm] = tool_results(s)
    assert trm.is_error is True
    assert trm.text == "not now"
    [end] = [e for e in events if isinstance(e, ToolExecutionEndEvent)]
    assert end.blocked is True and end.is_error is True


async def test_tool_call_block_without_reason_uses_default_text() -> None:
    s, _ = make_session([call("echo", {"text": "x"}), say("ok")],
                        extensions=[lambda api: api.on("tool_call", lambda e: ToolCallResult(block=True))])
    await s.prompt("go")
    assert tool_results(s)[0].text == "Tool execution was blocked"


async def test_raising_tool_call_handler_blocks_with_error_as_reason_and_reports() -> None:
    def ext(api: Any) -> None:
        @api.on("tool_call")
        def h(event: Any) -> None:
            raise ValueError("policy engine down")

    s, _ = make_session([call("echo", {"text": "x"}), say("ok")], extensions=[ext])
    events = record(s)
    await s.prompt("go")
    [trm] = tool_results(s)
    assert trm.is_error and trm.text == "ValueError: policy engine down"
    [end] = [e for e in events if isinstance(e, ToolExecutionEndEvent)]
    assert end.blocked is True
    errs = [e for e in events if isinstance(e, ExtensionErrorEvent)]
    assert len(errs) == 1 and errs[0].event == "tool_call" and "policy engine down" in (errs[0].stack or "")
    assert s.get_last_assistant_text() == "ok"


async def test_async_tool_call_handler_can_block_and_sync_ones_before_it_run_first() -> None:
    order: list[str] = []

    def ext(api: Any) -> None:
        api.on("tool_call", lambda e: order.append("sync"))

        @api.on("tool_call")
        async def h(event: Any, ctx: Any) -> Any:
            await asyncio.sleep(0)
            order.append("async")
            return ToolCallResult(True, "async says no")

        api.on("tool_call", lambda e: order.append("never"))

    s, _ = make_session([call("echo", {"text": "x"}), say("ok")], extensions=[ext])
    await s.prompt("go")
    assert order == ["sync", "async"]
    assert tool_results(s)[0].text == "async says no"


async def test_tool_call_input_is_the_dict_the_tool_receives() -> None:
    def ext(api: Any) -> None:
        @api.on("tool_call")
        def h(event: Any) -> None:
            event.input["text"] = event.input["text"].upper()

    s, _ = make_session([call("echo", {"text": "quiet"}), say("ok")], extensions=[ext])
    await s.prompt("go")
    assert tool_results(s)[0].text == "echo: QUIET"


async def test_hooks_fire_exactly_once_per_tool_call_in_parallel_batches() -> None:
    counts: dict[str, list[str]] = {"call": [], "result": []}

    def ext(api: Any) -> None:
        api.on("tool_call", lambda e: counts["call"].append(e.tool_call_id))
        api.on("tool_result", lambda e: counts["result"].append(e.tool_call_id))

    s, _ = make_session([calls(("echo", {"text": "a"}), ("echo", {"text": "b"}), ("echo", {"text": "c"})), say("ok")],
                        extensions=[ext])
    await s.prompt("go")
    assert counts["call"] == ["call_1", "call_2", "call_3"]
    assert counts["result"] == ["call_1", "call_2", "call_3"]


# ---------------------------------------------------------------------------- tool_result


async def test_tool_result_patches_chain_like_middleware() -> None:
    seen: list[str] = []

    def a(api: Any) -> None:
        @api.on("tool_result")
        def h(event: Any) -> Any:
            seen.append(event.content[0].text)
            return {"content": [{"type": "text", "text": event.content[0].text + " +a"}]}

    def b(api: Any) -> None:
        @api.on("tool_result")
        def h(event: Any) -> Any:
            seen.append(event.content[0].text)
            return ToolResultPatch(details={"by": "b"})

    def c(api: Any) -> None:
        @api.on("tool_result")
        async def h(event: Any) -> Any:
            seen.append(f"{event.content[0].text}|{event.details}")
            return {"content": event.content[0].text + " +c"}

    s, _ = make_session([call("echo", {"text": "x"}), say("ok")], extensions=[a, b, c])
    await s.prompt("go")
    assert seen == ["echo: x", "echo: x +a", "echo: x +a|{'by': 'b'}"]
    [trm] = tool_results(s)
    assert trm.text == "echo: x +a +c"
    assert trm.details == {"by": "b"}
    assert trm.is_error is False


async def test_tool_result_is_error_patch_applies_and_handlers_see_error_results() -> None:
    seen: list[tuple[str, bool]] = []

    def ext(api: Any) -> None:
        @api.on("tool_result")
        def h(event: Any) -> Any:
            seen.append((event.tool_name, event.is_error))
            if event.tool_name == "echo":
                return {"is_error": True}
            return {"isError": False, "content": "recovered"}

    s, _ = make_session([calls(("echo", {"text": "x"}), ("boom", {})), say("ok")], extensions=[ext])
    await s.prompt("go")
    assert seen == [("echo", False), ("boom", True)]
    echo_r, boom_r = tool_results(s)
    assert echo_r.is_error is True
    assert boom_r.is_error is False and boom_r.text == "recovered"


async def test_raising_tool_result_handler_is_reported_and_the_chain_goes_on() -> None:
    def ext(api: Any) -> None:
        api.on("tool_result", lambda e: 1 / 0)
        api.on("tool_result", lambda e: {"content": "second ran"})

    s, _ = make_session([call("echo", {"text": "x"}), say("ok")], extensions=[ext])
    events = record(s)
    await s.prompt("go")
    assert tool_results(s)[0].text == "second ran"
    errs = [e for e in events if e.type == "extension_error"]
    assert [e.event for e in errs] == ["tool_result"] and "ZeroDivisionError" in errs[0].error


async def test_blocked_calls_do_not_reach_tool_result() -> None:
    results: list[str] = []

    def ext(api: Any) -> None:
        api.on("tool_call", lambda e: {"block": True, "reason": "no"})
        api.on("tool_result", lambda e: results.append(e.tool_name))

    s, _ = make_session([call("echo", {"text": "x"}), say("ok")], extensions=[ext])
    await s.prompt("go")
    assert results == []


# ---------------------------------------------------------------------------- ordering


async def test_event_order_around_a_tool_call() -> None:
    log: list[str] = []

    def ext(api: Any) -> None:
        for name in ("tool_execution_start", "tool_call", "tool_result", "tool_execution_end", "message_start",
                     "message_end"):
            api.on(name, lambda e, ctx, name=name: log.append(name if not hasattr(e, "message") else
                                                              f"{name}:{e.message.role}"))

    s, _ = make_session([call("echo", {"text": "x"}), say("ok")], extensions=[ext])
    await s.prompt("go")
    i = log.index("tool_execution_start")
    assert log[i:i + 6] == [
        "tool_execution_start", "tool_call", "tool_result", "tool_execution_end",
        "message_start:toolResult", "message_end:toolResult",
    ]


async def test_extensions_see_events_before_listeners_and_persistence_comes_last() -> None:
    log: list[str] = []
    holder: dict[str, Any] = {}

    def entries() -> int:
        return len(holder["s"].session_manager.get_entries())

    def ext(api: Any) -> None:
        @api.on("message_end")
        def h(event: Any) -> None:
            log.append(f"ext:{event.message.role}:{entries()}")

    s, _ = make_session([say("hello")], extensions=[ext])
    holder["s"] = s
    s.subscribe(lambda e: log.append(f"sub:{e.message.role}:{entries()}") if e.type == "message_end" else None)
    base = entries()
    await s.prompt("go")
    assert log == [f"ext:user:{base}", f"sub:user:{base}", f"ext:assistant:{base + 1}", f"sub:assistant:{base + 1}"]
    assert entries() == base + 2


async def test_async_handlers_keep_event_order() -> None:
    log: list[str] = []

    def ext(api: Any) -> None:
        @api.on("turn_start")
        async def ts(event: Any) -> None:
            await asyncio.sleep(0)
            log.append(f"turn_start:{event.turn_index}")

        api.on("turn_end", lambda e: log.append(f"turn_end:{e.turn_index}"))

    s, _ = make_session([call("echo", {"text": "x"}), say("ok")], extensions=[ext])
    s.subscribe(lambda e: log.append("sub:" + e.type) if e.type in ("turn_start", "turn_end") else None)
    await s.prompt("go")
    assert log == ["turn_start:0", "sub:turn_start", "turn_end:0", "sub:turn_end",
                   "turn_start:1", "sub:turn_start", "turn_end:1", "sub:turn_end"]


async def test_handler_errors_in_plain_events_are_reported_and_the_session_goes_on() -> None:
    def ext(api: Any) -> None:
        @api.on("turn_end")
        async def h(event: Any) -> None:
            raise KeyError("missing")

    s, _ = make_session([say("fine")], extensions=[ext])
    events = record(s)
    await s.prompt("go")
    errs = [e for e in events if isinstance(e, ExtensionErrorEvent)]
    assert len(errs) == 1 and errs[0].event == "turn_end" and errs[0].extension_path == "<factory ext>"
    assert s.get_last_assistant_text() == "fine"
    assert errs[0].to_json()["type"] == "extension_error"


# ---------------------------------------------------------------------------- input


async def test_input_transforms_chain() -> None:
    def a(api: Any) -> None:
        api.on("input", lambda e: {"action": "transform", "text": e.text + " [a]"})

    def b(api: Any) -> None:
        api.on("input", lambda e: {"action": "transform", "text": e.text + " [b]"})

    def c(api: Any) -> None:
        api.on("input", lambda e: {"action": "continue"})

    s, _ = make_session([say("ok")], extensions=[a, c, b])
    await s.prompt("hello")
    assert s.messages[0].text == "hello [a] [b]"


async def test_input_handled_short_circuits_everything() -> None:
    later: list[str] = []

    def a(api: Any) -> None:
        api.on("input", lambda e: {"action": "handled"})

    def b(api: Any) -> None:
        api.on("input", lambda e: later.append("b"))
        api.on("before_agent_start", lambda e: later.append("bas"))

    s, p = make_session([say("unused")], extensions=[a, b])
    await s.prompt("hello")
    assert later == [] and p.calls == 0 and s.messages == []


async def test_input_event_carries_source() -> None:
    sources: list[str] = []

    def ext(api: Any) -> None:
        api.on("input", lambda e: sources.append(e.source))

        @api.on("session_start")
        async def start(event: Any, ctx: Any) -> None:
            pass

        api.register_command("relay", lambda args, ctx: api.send_user_message(args))

    s, _ = make_session([say("1"), say("2")], extensions=[ext])
    await s.prompt("typed")
    await s.prompt("/relay from extension")
    assert sources == ["interactive", "extension"]
    assert s.messages[-2].text == "from extension"


# ---------------------------------------------------------------------------- context


async def test_context_chains_on_a_copy_for_this_call_only() -> None:
    seen_by_model: list[list[str]] = []

    def model_step(text: str) -> Any:
        def step(ctx: Context) -> ScriptedResponse:
            seen_by_model.append([m.text for m in ctx.messages if m.role == "user"])
            return ScriptedResponse([TextContent(text)])
        return step

    def a(api: Any) -> None:
        @api.on("context")
        def h(event: Any) -> Any:
            event.messages[0].content = "REDACTED"  # mutating the copy is fine
            return None

    def b(api: Any) -> None:
        @api.on("context")
        def h(event: Any) -> Any:
            return {"messages": [*event.messages, event.messages[0]]}

    s, _ = make_session([model_step("one")], extensions=[a, b])
    await s.prompt("secret")
    assert seen_by_model == [["REDACTED", "REDACTED"]]
    assert s.messages[0].text == "secret"  # the session's own history is untouched
    assert len(s.messages) == 2


async def test_no_context_handler_means_no_transform_seam() -> None:
    s, _ = make_session([say("x")])
    assert s.agent.transform_context is None
    assert s.agent.before_tool_call is None and s.agent.after_tool_call is None


# ---------------------------------------------------------------------------- before_agent_start


async def test_before_agent_start_collects_messages_and_chains_the_system_prompt() -> None:
    prompts_seen: list[str | None] = []
    sp_seen: list[str] = []

    def step(ctx: Context) -> ScriptedResponse:
        prompts_seen.append(ctx.system_prompt)
        return ScriptedResponse([TextContent("ok")])

    def a(api: Any) -> None:
        @api.on("before_agent_start")
        def h(event: Any) -> Any:
            sp_seen.append(event.system_prompt)
            return {"message": {"custom_type": "note", "content": "from a", "display": False},
                    "system_prompt": event.system_prompt + " +a"}

    def b(api: Any) -> None:
        @api.on("before_agent_start")
        async def h(event: Any) -> Any:
            sp_seen.append(event.system_prompt)
            return {"message": {"customType": "note", "content": "from b"}, "systemPrompt": event.system_prompt + " +b"}

    s, _ = make_session([step], extensions=[a, b], system_prompt="BASE")
    await s.prompt("hi")
    assert sp_seen == ["BASE", "BASE +a"]
    assert prompts_seen == ["BASE +a +b"]
    roles = [(m.role, getattr(m, "custom_type", None)) for m in s.messages]
    assert roles == [("user", None), ("custom", "note"), ("custom", "note"), ("assistant", None)]
    custom_entries = [e for e in s.session_manager.get_entries() if e.type == "custom_message"]
    assert [e.content for e in custom_entries] == ["from a", "from b"]


async def test_system_prompt_resets_to_base_when_no_handler_changes_it() -> None:
    prompts: list[str | None] = []
    state = {"n": 0}

    def step(ctx: Context) -> ScriptedResponse:
        prompts.append(ctx.system_prompt)
        return ScriptedResponse([TextContent("ok")])

    def ext(api: Any) -> None:
        @api.on("before_agent_start")
        def h(event: Any) -> Any:
            state["n"] += 1
            return {"system_prompt": "CHANGED"} if state["n"] == 1 else None

    s, _ = make_session([step, step], extensions=[ext], system_prompt="BASE")
    await s.prompt("one")
    await s.prompt("two")
    assert prompts == ["CHANGED", "BASE"]


# ---------------------------------------------------------------------------- session_before_*


async def test_session_before_tree_can_cancel_navigation() -> None:
    def ext(api: Any) -> None:
        api.on("session_before_tree", lambda e: {"cancel": True})

    s, _ = make_session([say("a")], extensions=[ext])
    await s.prompt("one")
    leaf = s.session_manager.get_leaf_id()
    first = s.session_manager.get_entries()[0].id
    assert await s.navigate_tree(first) is False
    assert s.session_manager.get_leaf_id() == leaf


async def test_first_cancel_wins_in_session_before_switch() -> None:
    calls_: list[str] = []

    def a(api: Any) -> None:
        api.on("session_before_switch", lambda e: calls_.append("a") or {"cancel": True})

    def b(api: Any) -> None:
        api.on("session_before_switch", lambda e: calls_.append("b"))

    s, _ = make_session([], extensions=[a, b])
    assert await s.new_session() is False
    assert calls_ == ["a"]


@pytest.mark.parametrize("ret", [None, {"cancel": False}])
async def test_session_before_switch_without_cancel_lets_new_session_happen(ret: Any) -> None:
    switched: list[str] = []

    def ext(api: Any) -> None:
        api.on("session_before_switch", lambda e: ret)
        api.on("session_switch", lambda e: switched.append(e.reason))

    s, _ = make_session([say("a")], extensions=[ext])
    await s.prompt("one")
    old_id = s.session_id
    assert await s.new_session() is True
    assert switched == ["new"] and s.session_id != old_id and s.messages == []
    assert [e.type for e in s.session_manager.get_entries()] == ["model_change", "thinking_level_change"]
