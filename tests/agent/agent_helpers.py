"""Small builders shared by the agent tests."""

from __future__ import annotations

from typing import Any

from autocue.agent import Agent, AgentTool
from autocue.llm import TextContent, ThinkingContent
from autocue.script import ScriptedProvider, ScriptedResponse, ScriptedToolCall, Step, scripted_model


def call(name: str, args: dict[str, Any] | None = None, id: str | None = None) -> ScriptedResponse:
    return ScriptedResponse([ScriptedToolCall(name, args or {}, id)])


def calls(*pairs: tuple[str, dict[str, Any]]) -> ScriptedResponse:
    return ScriptedResponse([ScriptedToolCall(n, a) for n, a in pairs])


def say(text: str) -> ScriptedResponse:
    return ScriptedResponse([TextContent(text)])


def think_say(thought: str, text: str) -> ScriptedResponse:
    return ScriptedResponse([ThinkingContent(thought), TextContent(text)])


def make_agent(steps: list[Step], tools: list[AgentTool], **kw: Any) -> tuple[Agent, ScriptedProvider, list[Any]]:
    provider = ScriptedProvider(steps)
    agent = Agent(provider=provider, model=scripted_model(), tools=tools, **kw)
    events: list[Any] = []
    agent.subscribe(events.append)
    return agent, provider, events


def echo_tool(name: str = "echo") -> AgentTool:
    async def run(tool_call_id: str, params: dict[str, Any], signal: Any, on_update: Any) -> str:
        return f"echo:{params.get('text', '')}"

    return AgentTool(
        name,
        "Echo the text back",
        {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
        run,
    )
