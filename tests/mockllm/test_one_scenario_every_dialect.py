"""One tool-use scenario plays the same through every dialect that carries it: each official client
sees the same tool calls (names and arguments) and the same final text. A new dialect adds its
client loop to ``CLIENTS``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anthropic
import ollama
import openai
import pytest

from autocue.mockllm import serve

SCENARIO = """
name: two-tools
initialPrompt: "read a.txt and b.txt"
timeline:
  - llmResponse:
      - assistant: [[0, "Reading both."]]
      - agentToolUse: {toolName: read, args: {path: a.txt}}
      - agentToolUse: {toolName: read, args: {path: b.txt}}
  - llmResponse:
      - agentToolUse: {toolName: bash, args: {command: "wc -l a.txt b.txt"}}
  - llmResponse:
      - assistant: [[0, "a.txt has 3 lines, b.txt has 5."]]
"""
PROMPT = "read a.txt and b.txt"
NAMES = ("read", "bash")
Seen = tuple[list[list[tuple[str, dict[str, Any]]]], str]
"""The tool calls of each reply that made some, and the final text."""


def chat(base: str) -> Seen:
    client = openai.OpenAI(base_url=base + "/v1", api_key="chat", max_retries=0)
    tools: Any = [{"type": "function", "function": {"name": n, "parameters": {"type": "object"}}} for n in NAMES]
    msgs: list[Any] = [{"role": "user", "content": PROMPT}]
    calls: list[list[tuple[str, dict[str, Any]]]] = []
    while True:
        m = client.chat.completions.create(model="m", messages=msgs, tools=tools).choices[0].message
        if not m.tool_calls:
            return calls, m.content or ""
        calls.append([(c.function.name, json.loads(c.function.arguments)) for c in m.tool_calls
                      if c.type == "function"])
        msgs += [m.model_dump(exclude_none=True)]
        msgs += [{"role": "tool", "tool_call_id": c.id, "content": "ok"} for c in m.tool_calls]


def responses(base: str) -> Seen:
    client = openai.OpenAI(base_url=base + "/v1", api_key="responses", max_retries=0)
    tools: Any = [{"type": "function", "name": n, "parameters": {"type": "object"}} for n in NAMES]
    items: list[Any] = [{"role": "user", "content": PROMPT}]
    calls: list[list[tuple[str, dict[str, Any]]]] = []
    while True:
        r = client.responses.create(model="m", input=items, tools=tools)
        fcs = [o for o in r.output if o.type == "function_call"]
        if not fcs:
            return calls, r.output_text
        calls.append([(c.name, json.loads(c.arguments)) for c in fcs])
        items += [o.model_dump(exclude_none=True) for o in r.output]
        items += [{"type": "function_call_output", "call_id": c.call_id, "output": "ok"} for c in fcs]


def messages(base: str) -> Seen:
    client = anthropic.Anthropic(base_url=base, api_key="anthropic", max_retries=0)
    tools: Any = [{"name": n, "input_schema": {"type": "object"}} for n in NAMES]
    msgs: list[Any] = [{"role": "user", "content": PROMPT}]
    calls: list[list[tuple[str, dict[str, Any]]]] = []
    while True:
        r = client.messages.create(model="m", max_tokens=1000, messages=msgs, tools=tools)
        uses = [b for b in r.content if b.type == "tool_use"]
        if not uses:
            return calls, "".join(b.text for b in r.content if b.type == "text")
        calls.append([(u.name, u.input if isinstance(u.input, dict) else {}) for u in uses])
        msgs += [{"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in r.content]},
                 {"role": "user", "content": [{"type": "tool_result", "tool_use_id": u.id, "content": "ok"}
                                              for u in uses]}]


def ollama_chat(base: str) -> Seen:
    client = ollama.Client(host=base, headers={"authorization": "Bearer ollama"})
    tools: Any = [{"type": "function", "function": {"name": n, "parameters": {"type": "object"}}} for n in NAMES]
    msgs: list[Any] = [{"role": "user", "content": PROMPT}]
    calls: list[list[tuple[str, dict[str, Any]]]] = []
    while True:
        m = client.chat(model="m", messages=msgs, tools=tools, stream=False).message
        if not m.tool_calls:
            return calls, m.content or ""
        calls.append([(c.function.name, dict(c.function.arguments)) for c in m.tool_calls])
        msgs += [m, *({"role": "tool", "tool_name": c.function.name, "content": "ok"} for c in m.tool_calls)]


CLIENTS: dict[str, Callable[[str], Seen]] = {"openai-chat": chat, "openai-responses": responses,
                                            "anthropic": messages, "ollama": ollama_chat}


@pytest.mark.parametrize("name", list(CLIENTS))
def test_every_dialect_sees_the_same_tool_calls(name: str, tmp_path: Path) -> None:
    f = tmp_path / "two-tools.yaml"
    f.write_text(SCENARIO)
    with serve(f) as server:
        calls, text = CLIENTS[name](server.base_url)
        server.assert_all_consumed()
    assert calls == [[("read", {"path": "a.txt"}), ("read", {"path": "b.txt"})],
                     [("bash", {"command": "wc -l a.txt b.txt"})]]
    assert text == "a.txt has 3 lines, b.txt has 5."
