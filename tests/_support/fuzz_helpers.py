"""A script whose streams give a fuzzer much to cut: multi-byte text, astral characters,
escapes in tool arguments, parallel calls; and the transcript an agent makes of it."""

from __future__ import annotations

import asyncio
from typing import Any

from autocue.agent import Agent
from autocue.agent.tool import tool_from_function
from autocue.llm.providers import create_provider
from autocue.llm.types import AssistantMessage, Model, TextContent, ThinkingContent, ToolCall, ToolResultMessage
from autocue.mockllm import MockLLMServer
from autocue.script import Script, ScriptedResponse, ScriptedToolCall, Turn

API_OF = {"chat": "openai-completions", "responses": "openai-responses", "anthropic": "anthropic-messages",
          "gemini": "google-generative"}
PROMPT = "fuzz me"


def fuzz_script(name: str = "fuzzy") -> Script:
    return Script([Turn(PROMPT, [
        ScriptedResponse([ThinkingContent("Ünïcode thoughts 思考 😀 over several deltas of thinking"),
                          TextContent("Héllo wörld — 日本語 😀🎉 and a quote \" and a backslash \\ done."),
                          ScriptedToolCall("read", {"path": "dír/ファイル😀.txt", "q": "a\"b\\c\n", "n": 12345})]),
        ScriptedResponse([ScriptedToolCall("bash", {"command": "echo 'ü😀' && printf '%s' \"x\""}),
                          ScriptedToolCall("read", {"path": "ß/𝄞/€.md", "lines": [1, 2, 3]})]),
        ScriptedResponse([TextContent("Fertig: ✓ 🚀 — all files read, 完了.")]),
    ])], name=name)


def bash(command: str) -> str:
    """Run a command."""
    return f"ran {command}"


def read(path: str, q: str = "", n: int = 0, lines: list[int] | None = None) -> str:
    """Read a file."""
    return f"contents of {path}"


def transcript(messages: list[Any], *, thinking: bool) -> list[Any]:
    out: list[Any] = []
    for m in messages:
        if isinstance(m, AssistantMessage):
            blocks: list[Any] = []
            for b in m.content:
                if isinstance(b, TextContent):
                    blocks.append(("text", b.text))
                elif isinstance(b, ThinkingContent) and thinking:
                    blocks.append(("thinking", b.thinking))
                elif isinstance(b, ToolCall):
                    blocks.append(("call", b.name, b.arguments))
            out.append(("assistant", m.stop_reason, blocks, m.error_message))
        elif isinstance(m, ToolResultMessage):
            out.append(("result", m.tool_name, m.text, m.is_error))
    return out


def agent_transcript(server: MockLLMServer, api: str, prefix: str, key: str) -> list[Any]:
    """What autocue's provider for ``api`` makes of the script, through ``server`` at ``prefix``."""
    base = server.base_url + prefix + ("/v1" if api in ("chat", "responses") else "")
    model = Model(id="mock-model", api=API_OF[api], provider="mock", base_url=base, reasoning=True)
    agent = Agent(provider=create_provider(API_OF[api]), model=model,
                  tools=[tool_from_function(bash), tool_from_function(read)], get_api_key=lambda _p: key)

    async def run() -> list[Any]:
        await agent.prompt(PROMPT)
        return list(agent.state.messages)

    return transcript(asyncio.run(run()), thinking=api != "chat")
