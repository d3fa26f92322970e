"""Real clients driving a whole tool loop, for the recording tests: the official ``openai`` and
``anthropic`` SDKs and autocue's own providers. Each returns the replies it got, normalized to
plain data (text, thinking, tool calls with ids, stop reason; or the error status), so a run
through the recording proxy and a run against the replayed recording compare with ``==``.

A loop sends the prompt, answers every tool call with ``"ok <name>"``, retries the same request
after an HTTP error (the SDKs' own retries are off so every attempt is seen), and moves to the
next prompt when a reply has no tool calls.
"""

from __future__ import annotations

import asyncio
from typing import Any

import anthropic
import openai

from autocue.llm.providers import create_provider
from autocue.llm.stream import StreamOptions
from autocue.llm.types import (
    AssistantMessage,
    Context,
    Message,
    Model,
    TextContent,
    ThinkingContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

Reply = dict[str, Any]
TOOLS = [("bash", "run a command"), ("read", "read a file")]
SCHEMA = {"type": "object", "properties": {"command": {"type": "string"}, "path": {"type": "string"}}}
MAX_CALLS = 20


def upstream_loop(name: str, style: str | None = None) -> str:
    """The scenario an upstream plays in the record-and-replay tests (thinking, a tool call, two parallel
    calls, a 429, unicode, a second user turn), named ``name``, in ``style`` when given; the user
    sends ``LOOP_PROMPTS``."""
    server = f"server: {{llmApiStyle: {style}}}\n" if style else ""
    return f"name: {name}\n{server}{_LOOP}"


_LOOP = """\
initialPrompt: "list the files, my token is TOKEN-XYZZY-123"
timeline:
  - llmResponse:
      - think: [[0, "Let me look around."]]
      - assistant: [[0, "Listing."]]
      - agentToolUse: {toolName: bash, toolCallId: call_ls, args: {command: ls}}
  - llmResponse:
      - agentToolUse: {toolName: read, toolCallId: call_a, args: {path: a.txt}}
      - agentToolUse: {toolName: read, toolCallId: call_b, args: {path: b.txt}}
  - llmResponse:
      - error: {statusCode: 429, message: slow down, retryAfterSeconds: 0}
  - llmResponse:
      - assistant: [[0, "Both files say hello. Ünïcödé ✓ 👋"]]
  - userInputs: [[0, "now summarize"]]
  - llmResponse:
      - assistant: [[0, "Summary: hello twice."]]
"""
LOOP_PROMPTS = ["list the files, my token is TOKEN-XYZZY-123", "now summarize"]


def openai_chat(base_url: str, key: str, prompts: list[str]) -> list[Reply]:
    client = openai.OpenAI(base_url=base_url + "/v1", api_key=key, max_retries=0)
    tools: Any = [{"type": "function", "function": {"name": n, "description": d, "parameters": SCHEMA}}
                  for n, d in TOOLS]
    msgs: list[Any] = []
    out: list[Reply] = []
    for prompt in prompts:
        msgs.append({"role": "user", "content": prompt})
        for _ in range(MAX_CALLS):
            try:
                stream = client.chat.completions.create(model="m", messages=msgs, tools=tools, stream=True,
                                                        stream_options={"include_usage": True})
                text, thinking, calls, stop = "", "", {}, None
                for chunk in stream:
                    for ch in chunk.choices:
                        d = ch.delta
                        text += d.content or ""
                        thinking += getattr(d, "reasoning_content", None) or ""
                        for tc in d.tool_calls or []:
                            c = calls.setdefault(tc.index, {"id": tc.id, "name": "", "args": ""})
                            if tc.function and tc.function.name:
                                c["name"] = tc.function.name
                            if tc.function and tc.function.arguments:
                                c["args"] += tc.function.arguments
                        stop = ch.finish_reason or stop
            except openai.APIStatusError as e:
                out.append({"error": e.status_code})
                continue
            listed = [(c["id"], c["name"], c["args"]) for c in calls.values()]
            out.append({"text": text, "thinking": thinking, "calls": listed, "stop": stop})
            am: dict[str, Any] = {"role": "assistant", "content": text or None}
            if listed:
                am["tool_calls"] = [{"id": i, "type": "function", "function": {"name": n, "arguments": a}}
                                    for i, n, a in listed]
            msgs.append(am)
            msgs.extend({"role": "tool", "tool_call_id": i, "content": f"ok {n}"} for i, n, _ in listed)
            if not listed:
                break
    return out


def openai_responses(base_url: str, key: str, prompts: list[str]) -> list[Reply]:
    client = openai.OpenAI(base_url=base_url + "/v1", api_key=key, max_retries=0)
    tools: Any = [{"type": "function", "name": n, "description": d, "parameters": SCHEMA} for n, d in TOOLS]
    items: list[Any] = []
    out: list[Reply] = []
    for prompt in prompts:
        items.append({"role": "user", "content": prompt})
        for _ in range(MAX_CALLS):
            try:
                with client.responses.stream(model="m", input=items, tools=tools) as stream:
                    final = stream.get_final_response()
            except openai.APIStatusError as e:
                out.append({"error": e.status_code})
                continue
            text, thinking, calls = "", "", []
            for it in final.output:
                if it.type == "message":
                    text += "".join(getattr(c, "text", "") for c in it.content)
                elif it.type == "reasoning":
                    thinking += "".join(s.text for s in it.summary)
                elif it.type == "function_call":
                    calls.append((it.call_id, it.name, it.arguments))
            out.append({"text": text, "thinking": thinking, "calls": calls, "stop": final.status})
            if text:
                items.append({"role": "assistant", "content": text})
            for i, n, a in calls:
                items.append({"type": "function_call", "call_id": i, "name": n, "arguments": a})
                items.append({"type": "function_call_output", "call_id": i, "output": f"ok {n}"})
            if not calls:
                break
    return out


def openai_responses_websocket(base_url: str, key: str, prompts: list[str]) -> list[Reply]:
    """The Responses loop over the official client's WebSocket (``responses.connect()``): each frame
    holds only the new items and continues the last response by ``previous_response_id``."""
    client = openai.OpenAI(base_url=base_url + "/v1", api_key=key, max_retries=0)
    tools: Any = [{"type": "function", "name": n, "description": d, "parameters": SCHEMA} for n, d in TOOLS]
    out: list[Reply] = []
    prev: str | None = None
    with client.responses.connect() as conn:
        for prompt in prompts:
            new: list[Any] = [{"role": "user", "content": prompt}]
            for _ in range(MAX_CALLS):
                more: Any = {"previous_response_id": prev} if prev else {}
                conn.response.create(model="m", input=new, tools=tools, **more)
                final = None
                for ev in conn:
                    if ev.type == "error":
                        out.append({"error": ev.status})
                        break
                    if ev.type == "response.completed":
                        final = ev.response
                        break
                if final is None:
                    continue  # the same frame again: the client's retry
                text, thinking, calls = "", "", []
                for it in final.output:
                    if it.type == "message":
                        text += "".join(getattr(c, "text", "") for c in it.content)
                    elif it.type == "reasoning":
                        thinking += "".join(s.text for s in it.summary)
                    elif it.type == "function_call":
                        calls.append((it.call_id, it.name, it.arguments))
                out.append({"text": text, "thinking": thinking, "calls": calls, "stop": final.status})
                prev = final.id
                new = [{"type": "function_call_output", "call_id": i, "output": f"ok {n}"} for i, n, _ in calls]
                if not calls:
                    break
    return out


def anthropic_messages(base_url: str, key: str, prompts: list[str]) -> list[Reply]:
    client = anthropic.Anthropic(base_url=base_url, api_key=key, max_retries=0)
    tools: Any = [{"name": n, "description": d, "input_schema": SCHEMA} for n, d in TOOLS]
    msgs: list[Any] = []
    out: list[Reply] = []
    for prompt in prompts:
        msgs.append({"role": "user", "content": prompt})
        for _ in range(MAX_CALLS):
            try:
                with client.messages.stream(model="m", max_tokens=1024, messages=msgs, tools=tools) as stream:
                    final = stream.get_final_message()
            except anthropic.APIStatusError as e:
                out.append({"error": e.status_code})
                continue
            text, thinking, calls = "", "", []
            for b in final.content:
                if b.type == "text":
                    text += b.text
                elif b.type == "thinking":
                    thinking += b.thinking
                elif b.type == "tool_use":
                    calls.append((b.id, b.name, b.input))
            out.append({"text": text, "thinking": thinking, "calls": calls, "stop": final.stop_reason})
            msgs.append({"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in final.content]})
            if calls:
                msgs.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": i, "content": f"ok {n}"}
                                                         for i, n, _ in calls]})
            else:
                break
    return out


PROVIDER_API = {"chat": "openai-completions", "responses": "openai-responses", "anthropic": "anthropic-messages",
                "gemini": "google-generative"}


def autocue_provider(api: str, base_url: str, key: str, prompts: list[str]) -> list[Reply]:
    """A tool loop through autocue's own provider for ``api`` (chat, responses, anthropic, gemini)."""
    return asyncio.run(_provider_loop(api, base_url, key, prompts))


async def _provider_loop(api: str, base_url: str, key: str, prompts: list[str]) -> list[Reply]:
    name = PROVIDER_API[api]
    provider = create_provider(name)
    url = base_url + "/v1" if api in ("chat", "responses") else base_url
    model = Model(id="m", api=name, provider="rec", base_url=url)
    ctx = Context("You are terse.", [], [Tool(n, d, SCHEMA) for n, d in TOOLS])
    messages: list[Message] = ctx.messages
    out: list[Reply] = []
    for prompt in prompts:
        messages.append(UserMessage(prompt))
        for _ in range(MAX_CALLS):
            msg: AssistantMessage = await provider.stream(model, ctx, StreamOptions(api_key=key)).result()
            if msg.stop_reason == "error":
                out.append({"error": msg.error_status})
                continue
            # A Responses call id is "<call_id>|<item id>"; item ids are the server's own (like response ids).
            calls = [(b.id.partition("|")[0], b.name, b.arguments) for b in msg.content if isinstance(b, ToolCall)]
            out.append({
                "text": "".join(b.text for b in msg.content if isinstance(b, TextContent)),
                "thinking": "".join(b.thinking for b in msg.content if isinstance(b, ThinkingContent)),
                "calls": calls,
                "stop": msg.stop_reason,
            })
            messages.append(msg)
            messages.extend(ToolResultMessage(b.id, b.name, [TextContent(f"ok {b.name}")])
                            for b in msg.content if isinstance(b, ToolCall))
            if not calls:
                break
    return out
