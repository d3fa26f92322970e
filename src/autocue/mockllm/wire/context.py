"""``ContextBuilder``: autocue messages from a request's history, one API's item at a time
(``WireApi.add_to_context``); tool results are named after the calls they answer."""

from __future__ import annotations

from typing import Any

import orjson

from autocue.llm.types import (
    AssistantMessage,
    Message,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from autocue.mockllm.wire.view import flatten


def args_of(raw: Any) -> dict[str, Any]:
    """Tool-call arguments: an object, or a JSON text of one (anything else: ``{}``)."""
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str) and raw:
        try:
            v = orjson.loads(raw)
        except orjson.JSONDecodeError:
            return {}
        return v if isinstance(v, dict) else {}
    return {}


class ContextBuilder:
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
        m.content.append(ToolCall(cid, name, args_of(args)))
        m.stop_reason = "toolUse"

    def result(self, cid: str, content: Any, is_error: bool = False) -> None:
        self.msgs.append(ToolResultMessage(cid, self.names.get(cid, ""), [TextContent(flatten(content))],
                                           is_error=is_error))

    def user(self, text: str) -> None:
        self.msgs.append(UserMessage(text))

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
                self.user("\n".join(texts))
        elif role == "user":
            self.user(flatten(content))

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
