"""Response factories over HTTP: a script step that is a function of the live context.

``call_factory(step, req)`` rebuilds an autocue ``Context`` from the request (system prompt,
messages with tool calls and tool results, declared tools) for any of the four APIs and
calls the factory with it. Only synchronous factories can be played by the server; an
``AssistantMessage`` result is turned back into a scripted response.
"""

from __future__ import annotations

import inspect
from typing import Any

import orjson

from autocue.llm.types import (
    AssistantMessage,
    Context,
    Message,
    TextContent,
    ThinkingContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from autocue.mockllm.incoming import Incoming, _flatten
from autocue.script.model import ScriptedResponse, ScriptedToolCall, Step


def call_factory(step: Step, req: Incoming) -> ScriptedResponse:
    assert not isinstance(step, ScriptedResponse)
    out = step(request_context(req))
    if inspect.isawaitable(out):
        close = getattr(out, "close", None)
        if callable(close):
            close()
        raise TypeError("async response factories cannot be played by the HTTP server; make it synchronous")
    if isinstance(out, AssistantMessage):
        blocks: list[TextContent | ThinkingContent | ScriptedToolCall] = []
        for b in out.content:
            blocks.append(ScriptedToolCall(b.name, b.arguments, b.id) if isinstance(b, ToolCall) else b)
        return ScriptedResponse(blocks, stop_reason=out.stop_reason if out.stop_reason != "toolUse" else None)
    if not isinstance(out, ScriptedResponse):
        raise TypeError(f"a response factory must return a ScriptedResponse or AssistantMessage, got "
                        f"{type(out).__name__}")
    return out


def _args(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str) and raw:
        try:
            v = orjson.loads(raw)
        except orjson.JSONDecodeError:
            return {}
        return v if isinstance(v, dict) else {}
    return {}


def _tools(req: Incoming) -> list[Tool]:
    out: list[Tool] = []
    for t in req.body.get("tools") or []:
        if not isinstance(t, dict):
            continue
        decls = t.get("functionDeclarations") or t.get("function_declarations")
        if isinstance(decls, list):
            for d in decls:
                if isinstance(d, dict) and "name" in d:
                    out.append(Tool(d["name"], d.get("description", ""), d.get("parameters") or {}))
            continue
        fn: dict[str, Any] = t["function"] if isinstance(t.get("function"), dict) else t
        if isinstance(fn.get("name"), str):
            out.append(Tool(fn["name"], fn.get("description") or "",
                            fn.get("parameters") or fn.get("input_schema") or {}))
    return out


def request_context(req: Incoming) -> Context:
    """The autocue ``Context`` a request carries: its system prompt, messages and declared tools."""
    b = _ContextBuilder()
    for m in req.messages():
        if not isinstance(m, dict):
            continue
        if req.api == "gemini":
            b.gemini_content(m)
        elif not b.responses_item(m):
            b.message(m)
    return Context(req.system_text() or None, b.msgs, _tools(req))


class _ContextBuilder:
    """Autocue messages from a request's messages, one API's message at a time; tool results
    are named after the calls they answer."""

    def __init__(self) -> None:
        self.msgs: list[Message] = []
        self.names: dict[str, str] = {}

    def assistant(self) -> AssistantMessage:
        """The assistant message being built (consecutive assistant parts make one message)."""
        if self.msgs and isinstance(self.msgs[-1], AssistantMessage):
            return self.msgs[-1]
        m = AssistantMessage(stop_reason="stop")
        self.msgs.append(m)
        return m

    def call(self, cid: str, name: str, args: Any) -> None:
        self.names[cid] = name
        m = self.assistant()
        m.content.append(ToolCall(cid, name, _args(args)))
        m.stop_reason = "toolUse"

    def result(self, cid: str, content: Any, is_error: bool = False) -> None:
        self.msgs.append(ToolResultMessage(cid, self.names.get(cid, ""), [TextContent(_flatten(content))],
                                           is_error=is_error))

    def gemini_content(self, m: dict[str, Any]) -> None:
        for p in m.get("parts") or []:
            if not isinstance(p, dict):
                continue
            if "functionCall" in p:
                fc = p["functionCall"]
                self.call(fc.get("id") or fc.get("name", ""), fc.get("name", ""), fc.get("args"))
            elif "functionResponse" in p:
                fr = p["functionResponse"]
                self.result(fr.get("id") or fr.get("name", ""), orjson.dumps(fr.get("response")).decode())
            elif isinstance(p.get("text"), str):
                if m.get("role") == "model":
                    text = p["text"]
                    self.assistant().content.append(ThinkingContent(text) if p.get("thought") else TextContent(text))
                else:
                    self.msgs.append(UserMessage(p["text"]))

    def responses_item(self, m: dict[str, Any]) -> bool:
        """An OpenAI Responses item that is not a message (a call, its output, reasoning); False otherwise."""
        typ = m.get("type")
        if typ == "function_call":
            self.call(m.get("call_id", ""), m.get("name", ""), m.get("arguments"))
        elif typ == "function_call_output":
            self.result(m.get("call_id", ""), m.get("output"))
        elif typ == "reasoning":
            self.assistant().content.append(ThinkingContent(_flatten(m.get("summary"))))
        else:
            return False
        return True

    def message(self, m: dict[str, Any]) -> None:
        """A chat, Anthropic or Responses message (``role`` and ``content``)."""
        role, content = m.get("role"), m.get("content")
        if role == "tool":
            self.result(m.get("tool_call_id", ""), content)
        elif role == "assistant":
            self.assistant_message(content, m.get("tool_calls") or [])
        elif role == "user" and isinstance(content, list):
            texts: list[str] = []
            for b in content:
                if isinstance(b, dict) and b.get("type") == "tool_result":
                    self.result(b.get("tool_use_id", ""), b.get("content"), bool(b.get("is_error")))
                elif isinstance(b, dict) and isinstance(b.get("text"), str):
                    texts.append(b["text"])
            if texts:
                self.msgs.append(UserMessage("\n".join(texts)))
        elif role == "user":
            self.msgs.append(UserMessage(_flatten(content)))

    def assistant_message(self, content: Any, tool_calls: list[Any]) -> None:
        a = self.assistant()
        if isinstance(content, list):
            for b in content:
                if not isinstance(b, dict):
                    continue
                if b.get("type") == "tool_use":
                    self.call(b.get("id", ""), b.get("name", ""), b.get("input"))
                elif b.get("type") == "thinking":
                    a.content.append(ThinkingContent(b.get("thinking", ""), b.get("signature")))
                elif isinstance(b.get("text"), str):
                    a.content.append(TextContent(b["text"]))
        elif isinstance(content, str) and content:
            a.content.append(TextContent(content))
        for tc in tool_calls:
            fn = tc.get("function") or {}
            self.call(tc.get("id", ""), fn.get("name", ""), fn.get("arguments"))
