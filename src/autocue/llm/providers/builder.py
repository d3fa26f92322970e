"""``MessageBuilder``: the shared bookkeeping of a streaming reply.

Providers feed it what the wire says (a text delta for block key K, a tool call's argument
fragment, ...) and get back the stream events to yield. It owns the partial
``AssistantMessage`` (one object, mutated in place as pi does), opens blocks on first use,
closes them with their ``*_end`` event, and parses streamed tool arguments incrementally
(``partial_json``). Blocks are addressed by a provider-chosen key (an SSE ``index``, an
output-item id, ...) so interleaved parallel tool calls land in the right block.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from autocue.llm.events import (
    AssistantMessageEvent,
    DoneEvent,
    ErrorEvent,
    StartEvent,
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
    ThinkingDeltaEvent,
    ThinkingEndEvent,
    ThinkingStartEvent,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from autocue.llm.providers.partial_json import parse_json_arguments, parse_partial_json
from autocue.llm.types import AssistantMessage, Model, StopReason, TextContent, ThinkingContent, ToolCall, Usage


@dataclass(slots=True)
class _Open:
    index: int
    kind: str
    args: list[str] = field(default_factory=list)


class MessageBuilder:
    """Builds one assistant message from wire events and produces the matching stream events."""

    __slots__ = ("_open", "model", "msg", "problems")

    def __init__(self, model: Model) -> None:
        self.model = model
        self.msg = AssistantMessage(api=model.api, provider=model.provider, model=model.id)
        self._open: dict[Any, _Open] = {}
        self.problems: list[str] = []
        """Non-fatal oddities seen on the wire (bad tool JSON...), reported with a failure."""

    def start(self) -> StartEvent:
        return StartEvent(self.msg)

    # ------------------------------------------------------------------ blocks
    def is_open(self, key: Any) -> bool:
        return key in self._open

    def block(self, key: Any) -> Any:
        """The content block open under ``key`` (or ``None``)."""
        o = self._open.get(key)
        return self.msg.content[o.index] if o is not None else None

    def _append(self, key: Any, block: TextContent | ThinkingContent | ToolCall, kind: str) -> int:
        content = self.msg.content
        content.append(block)
        self._open[key] = _Open(len(content) - 1, kind)
        return len(content) - 1

    def open_text(self, key: Any) -> TextStartEvent:
        return TextStartEvent(self._append(key, TextContent(""), "text"), self.msg)

    def open_thinking(self, key: Any, signature: str | None = None) -> ThinkingStartEvent:
        return ThinkingStartEvent(self._append(key, ThinkingContent("", signature), "thinking"), self.msg)

    def open_tool(self, key: Any, call_id: str, name: str) -> ToolCallStartEvent:
        return ToolCallStartEvent(self._append(key, ToolCall(call_id, name, {}), "toolCall"), self.msg)

    def _reopen(self, key: Any, kind: str, out: list[AssistantMessageEvent], signature: str | None) -> int:
        """The index of the ``kind`` block under ``key``, opened first (closing another kind) if needed."""
        o = self._open.get(key)
        if o is not None and o.kind == kind:
            return o.index
        self.close(key, out)
        out.append(self.open_text(key) if kind == "text" else self.open_thinking(key, signature))
        return self._open[key].index

    def text_delta(self, key: Any, delta: str, out: list[AssistantMessageEvent]) -> None:
        """Append text under ``key`` (opening a text block first if needed)."""
        i = self._reopen(key, "text", out, None)
        b = self.msg.content[i]
        assert isinstance(b, TextContent)
        b.text += delta
        out.append(TextDeltaEvent(i, delta, self.msg))

    def thinking_delta(
        self, key: Any, delta: str, out: list[AssistantMessageEvent], signature: str | None = None
    ) -> None:
        i = self._reopen(key, "thinking", out, signature)
        b = self.msg.content[i]
        assert isinstance(b, ThinkingContent)
        b.thinking += delta
        out.append(ThinkingDeltaEvent(i, delta, self.msg))

    def tool_delta(self, key: Any, delta: str, out: list[AssistantMessageEvent]) -> None:
        """Append an argument fragment to the tool call open under ``key``."""
        o = self._open[key]
        o.args.append(delta)
        b = self.msg.content[o.index]
        assert isinstance(b, ToolCall)
        b.arguments = parse_partial_json("".join(o.args))
        out.append(ToolCallDeltaEvent(o.index, delta, self.msg))

    def set_tool_arguments(self, key: Any, text: str) -> None:
        """Replace the accumulated argument text (a server's final, complete arguments)."""
        o = self._open[key]
        o.args = [text]

    def close(self, key: Any, out: list[AssistantMessageEvent]) -> None:
        """Close the block under ``key`` with its ``*_end`` event (no-op when not open)."""
        o = self._open.pop(key, None)
        if o is None:
            return
        b = self.msg.content[o.index]
        if isinstance(b, TextContent):
            out.append(TextEndEvent(o.index, b.text, self.msg))
        elif isinstance(b, ThinkingContent):
            out.append(ThinkingEndEvent(o.index, b.thinking, self.msg))
        elif isinstance(b, ToolCall):
            args, problem = parse_json_arguments("".join(o.args))
            if problem is not None:
                self.problems.append(f"tool call {b.name!r} ({b.id}): {problem}")
            b.arguments = args
            out.append(ToolCallEndEvent(o.index, b, self.msg))

    def close_all(self, out: list[AssistantMessageEvent]) -> None:
        """Close every open block, in content order."""
        for key, _ in sorted(self._open.items(), key=lambda kv: kv[1].index):
            self.close(key, out)

    # ------------------------------------------------------------------ whole blocks
    def add_text(self, text: str, out: list[AssistantMessageEvent], signature: str | None = None) -> None:
        """A complete text block (non-streaming responses)."""
        key = object()
        out.append(self.open_text(key))
        self.block(key).text_signature = signature
        if text:
            self.text_delta(key, text, out)
        self.close(key, out)

    def add_thinking(
        self, text: str, out: list[AssistantMessageEvent], signature: str | None = None, redacted: bool = False
    ) -> None:
        key = object()
        out.append(self.open_thinking(key, signature))
        self.block(key).redacted = redacted
        if text:
            self.thinking_delta(key, text, out)
        self.close(key, out)

    def add_tool_call(
        self,
        call_id: str,
        name: str,
        args_json: str,
        out: list[AssistantMessageEvent],
        thought_signature: str | None = None,
    ) -> None:
        key = object()
        out.append(self.open_tool(key, call_id, name))
        self.block(key).thought_signature = thought_signature
        if args_json:
            self.tool_delta(key, args_json, out)
        self.close(key, out)

    # ------------------------------------------------------------------ end
    def set_usage(self, input: int, output: int, cache_read: int = 0, cache_write: int = 0) -> None:
        u = Usage.of(input, output, cache_read, cache_write)
        u.cost = self.model.usage_cost(u)
        self.msg.usage = u

    def done(self, out: list[AssistantMessageEvent]) -> None:
        """Close open blocks and append ``done`` (``error`` when the stop reason is ``error``,
        e.g. a content filter, with ``error_message`` set by the provider). A ``toolUse`` reply without tool calls, or
        tool calls under ``stop``, are corrected to what the content holds."""
        self.close_all(out)
        msg = self.msg
        has_calls = any(isinstance(b, ToolCall) for b in msg.content)
        if has_calls and msg.stop_reason == "stop":
            msg.stop_reason = "toolUse"
        elif not has_calls and msg.stop_reason == "toolUse":
            msg.stop_reason = "stop"
        if self.problems:
            # A tool call whose arguments are not JSON cannot be run as the model meant it.
            msg.stop_reason = "error"
            msg.error_message = f"{self.model.api}: " + "; ".join(self.problems)
        reason: StopReason = msg.stop_reason
        if reason == "error" or reason == "aborted":
            if msg.error_message is None:
                msg.error_message = f"{self.model.api}: the model stopped with an error and no message"
            out.append(ErrorEvent(reason, msg))
            return
        out.append(DoneEvent(reason, msg))


__all__ = ["MessageBuilder"]
