"""The in-process back-end (``ScriptedProvider`` through ``Agent``) and the HTTP back-end (the
mock server through autocue's real providers) play the same script to the same transcript,
over each of the four APIs. Also: every harbor conformance scenario loads and plays."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx2
import pytest
from conformance import harbor_scenarios
from mockllm_helpers import tools_script

from autocue.agent import Agent
from autocue.agent.tool import tool_from_function
from autocue.llm.providers import create_provider
from autocue.llm.types import AssistantMessage, Model, TextContent, ThinkingContent, ToolCall, ToolResultMessage
from autocue.mockllm import MockState, serve
from autocue.script import ScriptedProvider, scripted_model


def bash(command: str) -> str:
    """Run a command."""
    return f"ran {command}"


def read(path: str) -> str:
    """Read a file."""
    return f"contents of {path}"


def transcript(messages: list[Any], *, thinking: bool) -> list[Any]:
    out: list[Any] = []
    for m in messages:
        if isinstance(m, AssistantMessage):
            blocks = []
            for b in m.content:
                if isinstance(b, TextContent):
                    blocks.append(("text", b.text))
                elif isinstance(b, ThinkingContent):
                    if thinking:
                        blocks.append(("thinking", b.thinking))
                elif isinstance(b, ToolCall):
                    blocks.append(("call", b.name, b.arguments))
            out.append(("assistant", m.stop_reason, blocks, m.error_message))
        elif isinstance(m, ToolResultMessage):
            out.append(("result", m.tool_name, m.text, m.is_error))
        else:
            out.append((m.role, getattr(m, "text", None)))
    return out


async def run(agent: Agent) -> list[Any]:
    await agent.prompt("list the files")
    return list(agent.state.messages)


API_OF = {"chat": "openai-completions", "responses": "openai-responses", "anthropic": "anthropic-messages",
          "gemini": "google-generative"}


@pytest.mark.parametrize("api", list(API_OF))
def test_in_process_and_http_back_ends_agree(api: str) -> None:
    tools = [tool_from_function(bash), tool_from_function(read)]
    local = Agent(provider=ScriptedProvider(tools_script().all_steps()), model=scripted_model(), tools=tools)
    expected = transcript(asyncio.run(run(local)), thinking=api != "chat")
    with serve(tools_script()) as server:
        base = server.openai_base_url if api in ("chat", "responses") else server.base_url
        model = Model(id="mock-model", api=API_OF[api], provider="mock", base_url=base, reasoning=True)
        remote = Agent(provider=create_provider(API_OF[api]), model=model, tools=tools,
                       get_api_key=lambda _p: f"agree-{api}")
        got = transcript(asyncio.run(run(remote)), thinking=api != "chat")
        status = server.session(f"agree-{api}")
    assert got == expected
    assert (status["consumed"], status["remaining"], status["errors"]) == (3, 0, [])
    assert [m[1] for m in got if m[0] == "assistant"] == ["toolUse", "toolUse", "stop"]


def harbor_files() -> list[Path]:
    return harbor_scenarios()


def test_every_harbor_scenario_loads_and_plays(tmp_path: Path) -> None:
    state = MockState(harbor_files())
    assert len(state.playables) == len(harbor_files())
    with serve(harbor_files(), workspace=tmp_path) as server:
        for name, playable in server.state.playables.items():
            replies = 0
            messages: list[Any] = [{"role": "user", "content": playable.first_prompt or "start"}]
            for _ in range(playable.total + 1):
                r = httpx2.post(server.base_url + "/v1/messages", headers={"x-api-key": "h", "x-scenario-name": name},
                                json={"model": "m", "max_tokens": 100, "messages": messages})
                if r.status_code != 200:
                    # a scripted error, an fs assertion about work no real agent did, or the end of the script
                    assert r.headers["x-autocue-error"] in ("scripted", "assertion", "exhausted"), r.text
                    if r.headers["x-autocue-error"] != "scripted":
                        break
                    continue
                replies += 1
                content = r.json()["content"]
                messages.append({"role": "assistant", "content": content})
                uses = [b for b in content if b["type"] == "tool_use"]
                messages.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": u["id"],
                                                              "content": "ok"} for u in uses] or "continue"})
            assert replies >= 1, name
            s = server.session(f"h@{name}")
            assert s["consumed"] >= replies
