"""The loop reuses its LLM Context between model calls only while it would hold the same objects."""

from __future__ import annotations

from typing import Any

from autocue.agent import Agent, AgentTool
from autocue.llm import TextContent
from autocue.llm.types import Context
from autocue.script import ScriptedProvider, ScriptedResponse, ScriptedToolCall, scripted_model


async def _ok(tool_call_id: str, params: dict[str, Any], signal: Any, on_update: Any) -> str:
    return "ok"


TOOL = AgentTool("noop", "does nothing", {"type": "object"}, _ok)


def _recording(seen: list[tuple[Context, int, str | None, list[str]]], reply: ScriptedResponse) -> Any:
    def factory(ctx: Context) -> ScriptedResponse:
        seen.append((ctx, len(ctx.messages), ctx.system_prompt, [t.name for t in ctx.tools]))
        return reply

    return factory


async def test_each_model_call_sees_the_whole_history() -> None:
    seen: list[tuple[Context, int, str | None, list[str]]] = []
    steps = [
        _recording(seen, ScriptedResponse([ScriptedToolCall("noop", {})])),
        _recording(seen, ScriptedResponse([ScriptedToolCall("noop", {})])),
        _recording(seen, ScriptedResponse([TextContent("done")])),
    ]
    agent = Agent(provider=ScriptedProvider(steps), model=scripted_model(), tools=[TOOL], system_prompt="one")

    def listener(ev: Any) -> None:
        if ev.type == "tool_execution_end" and len(seen) == 1:
            seen[0][0].messages = []  # a provider that replaced the list it was given

    agent.subscribe(listener)
    await agent.prompt("go")
    # user; +assistant +toolResult per tool step
    assert [(n, sp, tools) for _, n, sp, tools in seen] == [(1, "one", ["noop"]), (3, "one", ["noop"]),
                                                             (5, "one", ["noop"])]
    last = seen[-1][0]
    assert len(last.messages) == 5 and last.messages[-1].role == "toolResult"
    assert seen[0][0].messages == []  # the replaced list was not reused for later calls


async def test_a_context_the_provider_changed_is_not_handed_out_again() -> None:
    seen: list[tuple[Context, int, str | None, list[str]]] = []
    steps = [
        _recording(seen, ScriptedResponse([ScriptedToolCall("noop", {})])),
        _recording(seen, ScriptedResponse([TextContent("done")])),
    ]
    agent = Agent(provider=ScriptedProvider(steps), model=scripted_model(), tools=[TOOL], system_prompt="one")

    def listener(ev: Any) -> None:
        if ev.type == "tool_execution_end":
            seen[0][0].system_prompt = "changed by the provider"

    agent.subscribe(listener)
    await agent.prompt("go")
    assert [sp for _, _, sp, _ in seen] == ["one", "one"]
    assert seen[1][0] is not seen[0][0]
