"""Agent loop semantics: ordering, parallelism, blocking, validation, errors, abort, steering."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from agent_helpers import call, calls, echo_tool, make_agent, say

from autocue.agent import (
    AfterToolCallResult,
    Agent,
    AgentBusyError,
    AgentTool,
    BeforeToolCallResult,
    ToolExecutionEndEvent,
    ToolResult,
    TurnEndEvent,
)
from autocue.llm import AssistantMessage, TextContent, ToolResultMessage, UserMessage
from autocue.script import ScriptedResponse, ScriptedToolCall


def types(events: list[Any]) -> list[str]:
    return [e.type for e in events if e.type != "message_update"]


async def test_event_order_around_one_tool_call() -> None:
    agent, provider, events = make_agent([call("echo", {"text": "hi"}), say("done")], [echo_tool()])
    new = await agent.prompt("go")
    assert types(events) == [
        "agent_start", "turn_start",
        "message_start", "message_end",            # user prompt
        "message_start", "message_end",            # assistant with tool call
        "tool_execution_start", "tool_execution_end",
        "message_start", "message_end",            # tool result
        "turn_end",
        "turn_start",
        "message_start", "message_end",            # final assistant
        "turn_end", "agent_end",
    ]
    roles = [m.role for m in new]
    assert roles == ["user", "assistant", "toolResult", "assistant"]
    result = new[2]
    assert isinstance(result, ToolResultMessage)
    assert result.text == "echo:hi" and result.is_error is False and result.tool_call_id == "call_1"
    assert provider.consumed == 2 and provider.remaining == 0
    assert agent.state.messages == new


async def test_message_updates_are_streamed_for_the_assistant_only() -> None:
    agent, _, events = make_agent([say("x" * 40)], [])
    await agent.prompt("go")
    updates = [e for e in events if e.type == "message_update"]
    assert [u.assistant_message_event.type for u in updates] == [
        "text_start", "text_delta", "text_delta", "text_delta", "text_end",
    ]
    assert all(u.message.role == "assistant" for u in updates)


async def test_parallel_calls_really_overlap_and_finalize_in_model_order() -> None:
    running: set[str] = set()
    both = asyncio.Event()
    order: list[str] = []

    def slow(name: str, delay: float) -> AgentTool:
        async def run(tool_call_id: str, params: dict[str, Any], signal: Any, on_update: Any) -> str:
            running.add(name)
            if len(running) == 2:
                both.set()
            # Each tool waits until the other is running too: only true concurrency passes.
            await asyncio.wait_for(both.wait(), timeout=5)
            await asyncio.sleep(delay)
            order.append(name)
            return name

        return AgentTool(name, "", {"type": "object"}, run)

    agent, _, events = make_agent(
        [calls(("a", {}), ("b", {})), say("ok")], [slow("a", 0.05), slow("b", 0.0)]
    )
    await agent.prompt("go")
    assert order == ["b", "a"]  # b finished first ...
    ends = [e.tool_name for e in events if e.type == "tool_execution_end"]
    assert ends == ["a", "b"]  # ... but results are finalized in the model's order
    starts = [i for i, e in enumerate(events) if e.type == "tool_execution_start"]
    first_end = next(i for i, e in enumerate(events) if e.type == "tool_execution_end")
    assert len(starts) == 2 and max(starts) < first_end  # both prepared before any finalize


async def test_exclusive_tool_runs_alone() -> None:
    active = 0
    peak: dict[str, int] = {}

    def tool(name: str, mode: Any) -> AgentTool:
        async def run(tool_call_id: str, params: dict[str, Any], signal: Any, on_update: Any) -> str:
            nonlocal active
            active += 1
            await asyncio.sleep(0.01)
            peak[tool_call_id] = active
            active -= 1
            return name

        return AgentTool(name, "", {"type": "object"}, run, execution_mode=mode)

    agent, _, _ = make_agent(
        [calls(("p", {}), ("p", {}), ("x", {}), ("p", {}), ("p", {})), say("ok")],
        [tool("p", "parallel"), tool("x", "exclusive")],
    )
    await agent.prompt("go")
    assert peak["call_3"] == 1  # the exclusive call ran alone
    assert peak["call_1"] == 2 and peak["call_4"] == 2  # its neighbours ran in pairs


async def test_blocked_call_is_structural_and_never_executes() -> None:
    executed: list[str] = []

    async def run(tool_call_id: str, params: dict[str, Any], signal: Any, on_update: Any) -> str:
        executed.append(tool_call_id)
        return "ran"

    def gate(ctx: Any, signal: Any) -> BeforeToolCallResult | None:
        if ctx.args.get("path") == "secret":
            return BeforeToolCallResult(block=True, reason="Plan mode: writes are off")
        return None

    agent, _, events = make_agent(
        [calls(("w", {"path": "secret"}), ("w", {"path": "ok"})), say("fine")],
        [AgentTool("w", "", {"type": "object"}, run)],
        before_tool_call=gate,
    )
    await agent.prompt("go")
    ends = [e for e in events if isinstance(e, ToolExecutionEndEvent)]
    assert [(e.blocked, e.is_error) for e in ends] == [(True, True), (False, False)]
    assert ends[0].result.text_content == "Plan mode: writes are off"
    assert executed == ["call_2"]


async def test_a_raising_gate_blocks_with_the_error_as_reason() -> None:
    def gate(ctx: Any, signal: Any) -> None:
        raise RuntimeError("policy engine down")

    agent, _, events = make_agent([call("echo", {"text": "x"}), say("ok")], [echo_tool()], before_tool_call=gate)
    await agent.prompt("go")
    end = next(e for e in events if isinstance(e, ToolExecutionEndEvent))
    assert end.blocked and end.is_error
    assert "policy engine down" in end.result.text_content


async def test_invalid_arguments_become_an_error_result_for_the_model() -> None:
    agent, _, _ = make_agent([call("echo", {"text": 5}), say("ok")], [echo_tool()])
    new = await agent.prompt("go")
    res = new[2]
    assert isinstance(res, ToolResultMessage) and res.is_error
    assert 'Validation failed for tool "echo"' in res.text
    assert "text: must be string, got integer" in res.text
    assert '{"text": 5}' in res.text


async def test_unknown_tool_gives_pis_error_text() -> None:
    agent, _, _ = make_agent([call("nope"), say("ok")], [echo_tool()])
    new = await agent.prompt("go")
    res = new[2]
    assert isinstance(res, ToolResultMessage) and res.is_error
    assert res.text == "Tool nope not found"


async def test_tool_exception_becomes_error_result_and_keeps_the_exception() -> None:
    async def run(tool_call_id: str, params: dict[str, Any], signal: Any, on_update: Any) -> str:
        raise ValueError("disk on fire")

    agent, _, events = make_agent([call("t"), say("ok")], [AgentTool("t", "", None, run)])
    new = await agent.prompt("go")
    res = new[2]
    assert isinstance(res, ToolResultMessage) and res.is_error and res.text == "disk on fire"
    end = next(e for e in events if isinstance(e, ToolExecutionEndEvent))
    assert isinstance(end.error, ValueError)
    assert new[-1].role == "assistant"  # the loop went on and the model answered


async def test_after_tool_call_replaces_fields_one_by_one() -> None:
    def after(ctx: Any, signal: Any) -> AfterToolCallResult:
        assert ctx.result.text_content == "echo:a"
        return AfterToolCallResult(details={"patched": True})

    agent, _, _ = make_agent([call("echo", {"text": "a"}), say("ok")], [echo_tool()], after_tool_call=after)
    new = await agent.prompt("go")
    res = new[2]
    assert isinstance(res, ToolResultMessage)
    assert res.text == "echo:a" and res.details == {"patched": True} and res.is_error is False


async def test_abort_reaches_a_running_tool_and_ends_the_run() -> None:
    started = asyncio.Event()
    saw_abort: list[str | None] = []

    async def run(tool_call_id: str, params: dict[str, Any], signal: Any, on_update: Any) -> str:
        started.set()
        await asyncio.wait_for(signal.wait(), timeout=5)
        saw_abort.append(signal.reason)
        raise RuntimeError("interrupted")

    agent, provider, events = make_agent([call("t"), say("never")], [AgentTool("t", "", None, run)])
    task = asyncio.create_task(agent.prompt("go"))
    await asyncio.wait_for(started.wait(), timeout=5)
    agent.abort("user pressed stop")
    new = await asyncio.wait_for(task, timeout=5)
    assert saw_abort == ["user pressed stop"]
    last = new[-1]
    assert isinstance(last, AssistantMessage)
    assert last.stop_reason == "aborted" and last.error_message == "user pressed stop"
    assert provider.consumed == 1  # the aborted turn did not eat the next scripted reply
    assert events[-1].type == "agent_end"
    assert not agent.is_streaming


async def test_steering_mid_turn_reaches_the_next_model_call() -> None:
    seen: list[list[str]] = []

    def factory(ctx: Any) -> ScriptedResponse:
        seen.append([m.role + ":" + (m.text if hasattr(m, "text") else "") for m in ctx.messages])
        return ScriptedResponse([TextContent("ack")])

    agent_ref: list[Agent] = []

    async def run(tool_call_id: str, params: dict[str, Any], signal: Any, on_update: Any) -> str:
        agent_ref[0].steer("also do Y")
        return "did X"

    agent, _, events = make_agent([call("t"), factory], [AgentTool("t", "", None, run)])
    agent_ref.append(agent)
    await agent.prompt("do X")
    assert seen == [["user:do X", "assistant:", "toolResult:did X", "user:also do Y"]]
    turn_ends = [e for e in events if isinstance(e, TurnEndEvent)]
    assert len(turn_ends) == 2


async def test_sequential_mode_skips_remaining_calls_when_steered() -> None:
    agent_ref: list[Agent] = []

    async def run(tool_call_id: str, params: dict[str, Any], signal: Any, on_update: Any) -> str:
        if tool_call_id == "call_1":
            agent_ref[0].steer("stop that")
        return "ran " + tool_call_id

    agent, _, _ = make_agent(
        [calls(("t", {}), ("t", {})), say("ok")], [AgentTool("t", "", None, run)], tool_execution="sequential"
    )
    agent_ref.append(agent)
    new = await agent.prompt("go")
    results = [m for m in new if isinstance(m, ToolResultMessage)]
    assert [r.text for r in results] == ["ran call_1", "Skipped due to queued user message."]
    assert results[1].is_error
    assert isinstance(new[4], UserMessage) and new[4].content == "stop that"


async def test_follow_up_restarts_the_loop_after_it_would_stop() -> None:
    agent, provider, _ = make_agent([say("first"), say("second")], [])
    agent.follow_up("and then?")
    new = await agent.prompt("hello")
    assert [m.role for m in new] == ["user", "assistant", "user", "assistant"]
    assert provider.remaining == 0


async def test_tool_updates_are_emitted_before_the_end() -> None:
    async def run(tool_call_id: str, params: dict[str, Any], signal: Any, on_update: Any) -> str:
        on_update(ToolResult.text("50%"))
        on_update(ToolResult.text("100%"))
        return "done"

    agent, _, events = make_agent([call("t"), say("ok")], [AgentTool("t", "", None, run)])
    await agent.prompt("go")
    names = [e.type for e in events if e.type.startswith("tool_execution")]
    assert names == ["tool_execution_start", "tool_execution_update", "tool_execution_update", "tool_execution_end"]


async def test_async_listeners_run_in_order() -> None:
    agent, _, _ = make_agent([say("ok")], [])
    log: list[str] = []

    async def slow(ev: Any) -> None:
        await asyncio.sleep(0)
        log.append("slow:" + ev.type)

    agent.subscribe(slow)
    agent.subscribe(lambda ev: log.append("fast:" + ev.type))
    await agent.prompt("go")
    assert log[:4] == ["slow:agent_start", "fast:agent_start", "slow:turn_start", "fast:turn_start"]


async def test_turn_metrics_are_measured() -> None:
    async def run(tool_call_id: str, params: dict[str, Any], signal: Any, on_update: Any) -> str:
        await asyncio.sleep(0.01)
        return "x"

    agent, _, events = make_agent(
        [calls(("t", {}), ("t", {})), say("ok")], [AgentTool("t", "", None, run)]
    )
    await agent.prompt("go")
    first = next(e for e in events if isinstance(e, TurnEndEvent))
    m = first.metrics
    assert [t.tool_call_id for t in m.tool_timings] == ["call_1", "call_2"]
    assert all(t.ms > 0 for t in m.tool_timings)
    assert m.tool_time_ms >= max(t.ms for t in m.tool_timings)
    assert m.model_latency_ms >= 0 and m.message_count == 4


async def test_prompt_while_running_is_refused_and_continue_checks_roles() -> None:
    gate = asyncio.Event()

    async def run(tool_call_id: str, params: dict[str, Any], signal: Any, on_update: Any) -> str:
        await gate.wait()
        return "x"

    agent, _, _ = make_agent([call("t"), say("ok")], [AgentTool("t", "", None, run)])
    task = asyncio.create_task(agent.prompt("one"))
    await asyncio.sleep(0.01)
    with pytest.raises(AgentBusyError, match="already processing"):
        await agent.prompt("two")
    gate.set()
    await task
    with pytest.raises(ValueError, match="Cannot continue from message role: assistant"):
        await agent.continue_()
    empty, _, _ = make_agent([], [])
    with pytest.raises(ValueError, match="no messages"):
        await empty.continue_()


async def test_failed_reply_ends_the_run_without_running_tools() -> None:
    from autocue.script import ScriptedError

    agent, _, events = make_agent(
        [ScriptedResponse([ScriptedToolCall("echo", {"text": "x"})], error=ScriptedError("boom", kind="overloaded"))],
        [echo_tool()],
    )
    new = await agent.prompt("go")
    last = new[-1]
    assert isinstance(last, AssistantMessage) and last.stop_reason == "error"
    assert last.error_message == "529 overloaded_error: boom" and last.error_status == 529
    assert not any(e.type == "tool_execution_start" for e in events)
    assert types(events)[-2:] == ["turn_end", "agent_end"]


async def test_failed_replies_are_left_out_of_the_next_context() -> None:
    from autocue.script import ScriptedError

    seen: list[list[str]] = []

    def factory(ctx: Any) -> ScriptedResponse:
        seen.append([m.role for m in ctx.messages])
        return ScriptedResponse([TextContent("ok")])

    agent, _, _ = make_agent([ScriptedResponse(error=ScriptedError("flaky", kind="rate_limit")), factory], [])
    await agent.prompt("one")
    agent.append_message(UserMessage("two"))
    await agent.continue_()
    assert seen == [["user", "user"]]
