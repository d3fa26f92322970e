"""Context preparation shared by every API: what of the history is replayed, and how.

``prepare_messages(messages, model)`` returns the messages a provider should send:

- error and aborted assistant replies are left out (they are incomplete turns);
- a tool call left without a result (the run was aborted, a user message cut in) gets a
  synthetic error result ``"No result provided"`` so every API accepts the history;
- replies from another model keep their text and tool calls, but their thinking turns into
  plain text and opaque signatures (redacted thinking, thought signatures) are dropped:
  those are only valid for the model that produced them.

``same_model(msg, model)`` says whether a reply came from ``model`` (same provider, api, id).
``content_parts(content, text, image, images_ok)`` is a user message's (or a tool result's)
content in one API's part shapes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from autocue.llm.types import (
    AssistantContent,
    AssistantMessage,
    ImageContent,
    Message,
    Model,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserContent,
)


def same_model(msg: AssistantMessage, model: Model) -> bool:
    return msg.provider == model.provider and msg.api == model.api and msg.model == model.id


def _foreign(msg: AssistantMessage) -> AssistantMessage:
    content: list[AssistantContent] = []
    for b in msg.content:
        if isinstance(b, ThinkingContent):
            if b.redacted or not b.thinking.strip():
                continue
            content.append(TextContent(b.thinking))
        elif isinstance(b, TextContent):
            content.append(TextContent(b.text) if b.text_signature is not None else b)
        elif isinstance(b, ToolCall) and b.thought_signature is not None:
            content.append(ToolCall(b.id, b.name, b.arguments))
        else:
            content.append(b)
    return replace(msg, content=content)


def _missing(calls: list[ToolCall], seen: set[str]) -> list[Message]:
    return [
        ToolResultMessage(tc.id, tc.name, [TextContent("No result provided")], is_error=True)
        for tc in calls
        if tc.id not in seen
    ]


def prepare_messages(messages: list[Message], model: Model) -> list[Message]:
    out: list[Message] = []
    pending: list[ToolCall] = []
    seen: set[str] = set()
    for m in messages:
        role = m.role
        if role == "assistant":
            assert isinstance(m, AssistantMessage)
            if pending:
                out.extend(_missing(pending, seen))
                pending, seen = [], set()
            if m.stop_reason == "error" or m.stop_reason == "aborted":
                continue
            msg = m if same_model(m, model) else _foreign(m)
            calls = [b for b in msg.content if isinstance(b, ToolCall)]
            if calls:
                pending, seen = calls, set()
            out.append(msg)
        elif role == "toolResult":
            assert isinstance(m, ToolResultMessage)
            seen.add(m.tool_call_id)
            out.append(m)
        else:
            if pending:
                out.extend(_missing(pending, seen))
                pending, seen = [], set()
            out.append(m)
    return out


def tool_result_text(m: ToolResultMessage) -> str:
    """The text of a tool result; a placeholder when it holds only images."""
    text = "\n".join(b.text for b in m.content if isinstance(b, TextContent))
    if not text and m.content:
        return "(see attached image)"
    return text


def result_images(
    m: ToolResultMessage, images_ok: bool, image: Callable[[ImageContent], dict[str, Any]]
) -> list[dict[str, Any]]:
    """A tool result's images as the API's parts (none when the model takes no images)."""
    return [image(b) for b in m.content if isinstance(b, ImageContent)] if images_ok else []


def content_parts(
    content: str | Sequence[UserContent],
    text: Callable[[str], dict[str, Any]],
    image: Callable[[ImageContent], dict[str, Any]],
    images_ok: bool,
    *,
    skip_empty: bool = False,
) -> list[dict[str, Any]]:
    """``content`` as the API's parts: ``text(s)`` for text (a plain string is one text part),
    ``image(b)`` for images when the model takes them; ``skip_empty`` leaves out empty text."""
    if isinstance(content, str):
        return [text(content)] if content or not skip_empty else []
    parts: list[dict[str, Any]] = []
    for b in content:
        if isinstance(b, TextContent):
            if b.text or not skip_empty:
                parts.append(text(b.text))
        elif images_ok:
            parts.append(image(b))
    return parts


__all__ = ["content_parts", "prepare_messages", "result_images", "same_model", "tool_result_text"]
