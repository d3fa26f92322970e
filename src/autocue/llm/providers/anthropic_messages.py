"""``AnthropicMessagesProvider``: the Anthropic Messages API (``anthropic-messages``).

Streams ``POST {base_url}/v1/messages`` (``anthropic-version: 2023-06-01``, ``x-api-key``).
``content_block_start/delta/stop`` map by ``index`` onto text, thinking (``thinking_delta``
plus ``signature_delta``: the signature is kept on the block and sent back on later turns),
``redacted_thinking`` (kept opaque, ``redacted=True``) and ``tool_use`` (``input_json_delta``
parsed incrementally). Usage: ``input_tokens`` (uncached), ``cache_read_input_tokens``,
``cache_creation_input_tokens`` and ``output_tokens`` from ``message_start`` /
``message_delta``. A stream ``error`` event (``overloaded_error``...) ends the reply with
stop reason ``error`` and the matching status (529, 429, 500) so retries work. A stream that
ends before ``message_stop`` is an error. Thinking levels map to ``budget_tokens``.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from autocue.llm.events import AssistantMessageEvent
from autocue.llm.providers.builder import MessageBuilder
from autocue.llm.providers.convert import content_parts, prepare_messages, same_model
from autocue.llm.providers.http import HttpProvider, Prepared, ProviderStreamError, Read, loads_event
from autocue.llm.providers.sse import SSEEvent
from autocue.llm.stream import StreamOptions
from autocue.llm.types import (
    AssistantMessage,
    Context,
    ImageContent,
    Model,
    StopReason,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

ANTHROPIC_VERSION = "2023-06-01"
THINKING_BUDGETS: dict[str, int] = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384, "xhigh": 32000}
_STOP: dict[str, StopReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "toolUse",
    "refusal": "error",
}
_ERROR_STATUS = {
    "overloaded_error": 529,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "invalid_request_error": 400,
    "authentication_error": 401,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
}
_BAD_ID = re.compile(r"[^a-zA-Z0-9_-]")


def tool_id(raw: str) -> str:
    """A tool-call id Anthropic accepts (``^[a-zA-Z0-9_-]{1,64}$``)."""
    return _BAD_ID.sub("_", raw)[:64] or "toolu_empty"


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _image(b: ImageContent) -> dict[str, Any]:
    return {"type": "image", "source": {"type": "base64", "media_type": b.mime_type, "data": b.data}}


def convert_messages(model: Model, context: Context) -> list[dict[str, Any]]:
    """The ``messages`` array: tool results of one turn merged into one user message."""
    out: list[dict[str, Any]] = []
    images_ok = "image" in model.input
    for m in prepare_messages(context.messages, model):
        if isinstance(m, UserMessage):
            blocks = content_parts(m.content, _text, _image, images_ok, skip_empty=True)
            if blocks:
                out.append({"role": "user", "content": blocks})
        elif isinstance(m, AssistantMessage):
            same = same_model(m, model)
            blocks = []
            for c in m.content:
                if isinstance(c, ThinkingContent):
                    if c.redacted:
                        if same and c.thinking_signature:
                            blocks.append({"type": "redacted_thinking", "data": c.thinking_signature})
                    elif same and c.thinking_signature:
                        blocks.append({"type": "thinking", "thinking": c.thinking, "signature": c.thinking_signature})
                    elif c.thinking.strip():
                        # No signature (or another model's): the API would reject a thinking block.
                        blocks.append(_text(c.thinking))
                elif isinstance(c, TextContent):
                    if c.text:
                        blocks.append(_text(c.text))
                elif isinstance(c, ToolCall):
                    blocks.append({"type": "tool_use", "id": tool_id(c.id), "name": c.name, "input": c.arguments})
            if blocks:
                out.append({"role": "assistant", "content": blocks})
        elif isinstance(m, ToolResultMessage):
            block: dict[str, Any] = {
                "type": "tool_result",
                "tool_use_id": tool_id(m.tool_call_id),
                "content": content_parts(m.content, _text, _image, images_ok, skip_empty=True),
            }
            if m.is_error:
                block["is_error"] = True
            last = out[-1] if out else None
            if (
                last is not None
                and last["role"] == "user"
                and last["content"]
                and last["content"][-1]["type"] == "tool_result"
            ):
                last["content"].append(block)
            else:
                out.append({"role": "user", "content": [block]})
    return out


def build_body(model: Model, context: Context, options: StreamOptions) -> dict[str, Any]:
    stream = model.compat.get("stream", True) is not False
    max_tokens = options.max_tokens or model.max_tokens
    body: dict[str, Any] = {"model": model.id, "messages": convert_messages(model, context), "max_tokens": max_tokens}
    if stream:
        body["stream"] = True
    if context.system_prompt:
        body["system"] = [{"type": "text", "text": context.system_prompt, "cache_control": {"type": "ephemeral"}}]
    if context.tools:
        body["tools"] = [
            {"name": t.name, "description": t.description, "input_schema": t.parameters} for t in context.tools
        ]
    thinking = options.reasoning if model.reasoning else None
    if thinking and thinking != "off":
        budget = THINKING_BUDGETS.get(thinking, 8192)
        if body["max_tokens"] <= budget:
            body["max_tokens"] = budget + 4096
        body["thinking"] = {"type": "enabled", "budget_tokens": budget}
    elif options.temperature is not None:
        body["temperature"] = options.temperature
    return body


class AnthropicMessagesProvider(HttpProvider):
    api = "anthropic-messages"

    stream_end = "message_stop"

    def _prepare(self, model: Model, context: Context, options: StreamOptions) -> Prepared:
        base = (model.base_url or "https://api.anthropic.com").rstrip("/")
        url = f"{base}/messages" if base.endswith("/v1") else f"{base}/v1/messages"
        hdrs: dict[str, str] = {"anthropic-version": ANTHROPIC_VERSION, "accept": "text/event-stream"}
        key = self.api_key(model, options)
        if key:
            if model.compat.get("auth_token"):
                hdrs["authorization"] = f"Bearer {key}"
            else:
                hdrs["x-api-key"] = key
        body = self.payload(build_body(model, context, options), options)
        if "thinking" in body:
            hdrs["anthropic-beta"] = "interleaved-thinking-2025-05-14"
        return url, hdrs, body, None

    def _read(self, b: MessageBuilder, ev: SSEEvent, where: str, out: list[AssistantMessageEvent]) -> Read:
        if ev.event == "ping":
            return Read.MORE
        data = loads_event(ev, where)
        if not isinstance(data, dict):
            raise ProviderStreamError(f"{where}: event {ev.event!r} data is not an object: {ev.data[:200]!r}")
        t = data.get("type", ev.event)
        if t == "message_stop":
            return Read.END
        self._event(b, t, data, where, out)
        return Read.MORE

    def _event(
        self, b: MessageBuilder, t: str, data: dict[str, Any], where: str, out: list[AssistantMessageEvent]
    ) -> None:
        if t == "content_block_delta":
            k = data.get("index", 0)
            d = data.get("delta") or {}
            dt = d.get("type")
            if dt == "text_delta":
                b.text_delta(k, d.get("text", ""), out)
            elif dt == "thinking_delta":
                b.thinking_delta(k, d.get("thinking", ""), out)
            elif dt == "signature_delta":
                blk = b.block(k)
                if isinstance(blk, ThinkingContent):
                    blk.thinking_signature = (blk.thinking_signature or "") + d.get("signature", "")
            elif dt == "input_json_delta":
                if not b.is_open(k):
                    raise ProviderStreamError(f"{where}: input_json_delta for block {k} that was never started")
                pj = d.get("partial_json", "")
                if pj:
                    b.tool_delta(k, pj, out)
        elif t == "content_block_start":
            k = data.get("index", 0)
            cb = data.get("content_block") or {}
            ct = cb.get("type")
            if ct == "text":
                out.append(b.open_text(k))
                if cb.get("text"):
                    b.text_delta(k, cb["text"], out)
            elif ct == "thinking":
                out.append(b.open_thinking(k, cb.get("signature") or None))
                if cb.get("thinking"):
                    b.thinking_delta(k, cb["thinking"], out)
            elif ct == "redacted_thinking":
                out.append(b.open_thinking(k, cb.get("data")))
                b.block(k).redacted = True
                b.block(k).thinking = "[Reasoning redacted]"
            elif ct in ("tool_use", "server_tool_use"):
                out.append(b.open_tool(k, cb.get("id", ""), cb.get("name", "")))
                inp = cb.get("input")
                if isinstance(inp, dict) and inp:
                    b.tool_delta(k, orjson.dumps(inp).decode(), out)
        elif t == "content_block_stop":
            b.close(data.get("index", 0), out)
        elif t == "message_start":
            m = data.get("message") or {}
            b.msg.response_id = m.get("id")
            self._usage(b, m.get("usage") or {})
        elif t == "message_delta":
            d = data.get("delta") or {}
            sr = d.get("stop_reason")
            if sr:
                self._stop(b, sr)
            self._usage(b, data.get("usage") or {})
        elif t == "error":
            err = data.get("error") or {}
            kind = err.get("type", "error")
            status = _ERROR_STATUS.get(kind)
            text = f"{kind}: {err.get('message', '')}"
            raise ProviderStreamError(f"{status} {text}" if status else text, status)

    def _usage(self, b: MessageBuilder, u: dict[str, Any]) -> None:
        """Counts the event names; the others keep their value (``message_delta`` sends only some)."""
        if not u:
            return
        cur = b.msg.usage
        old = (cur.input, cur.output, cur.cache_read, cur.cache_write)
        keys = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
        b.set_usage(*(int(u[k]) if u.get(k) is not None else n for k, n in zip(keys, old, strict=True)))

    def _whole(self, b: MessageBuilder, data: Any, where: str, out: list[AssistantMessageEvent]) -> bool:
        if not isinstance(data, dict) or data.get("type") == "error" or not isinstance(data.get("content"), list):
            if isinstance(data, dict) and data.get("type") == "error":
                self._event(b, "error", data, where, out)
            raise ProviderStreamError(f"{where}: expected a message object, got {orjson.dumps(data)[:200]!r}")
        b.msg.response_id = data.get("id")
        self._usage(b, data.get("usage") or {})
        for cb in data["content"]:
            ct = cb.get("type")
            if ct == "text":
                b.add_text(cb.get("text", ""), out)
            elif ct == "thinking":
                b.add_thinking(cb.get("thinking", ""), out, signature=cb.get("signature"))
            elif ct == "redacted_thinking":
                b.add_thinking("[Reasoning redacted]", out, signature=cb.get("data"), redacted=True)
            elif ct in ("tool_use", "server_tool_use"):
                b.add_tool_call(
                    cb.get("id", ""), cb.get("name", ""), orjson.dumps(cb.get("input") or {}).decode(), out
                )
        self._stop(b, data.get("stop_reason") or "end_turn")
        return True

    def _stop(self, b: MessageBuilder, stop_reason: str) -> None:
        b.msg.stop_reason = _STOP.get(stop_reason, "stop")
        if stop_reason == "refusal":
            b.msg.error_message = f"{self.api}: the model refused to answer (stop_reason refusal)"


__all__ = ["ANTHROPIC_VERSION", "AnthropicMessagesProvider", "THINKING_BUDGETS", "build_body", "convert_messages"]
