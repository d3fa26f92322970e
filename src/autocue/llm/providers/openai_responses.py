"""``OpenAIResponsesProvider``: the OpenAI Responses API (``openai-responses``).

Streams ``POST {base_url}/responses`` (``store: false``). Output items map by
``output_index``: ``reasoning`` items become thinking (summary text deltas; the whole item,
with its ``encrypted_content``, is kept as the signature and sent back verbatim on later
turns), ``message`` items become text (signature ``{"v":1,"id":<item id>}``, as pi writes
it), ``function_call`` items become tool calls with id ``"<call_id>|<item id>"`` and
streamed ``function_call_arguments.delta``. Usage: ``input_tokens`` minus
``input_tokens_details.cached_tokens`` is input, the cached part cache reads,
``output_tokens`` (reasoning tokens included) output. ``response.failed`` and ``error``
events end the reply with an error; a stream without ``response.completed`` is an error.
"""

from __future__ import annotations

from typing import Any

import orjson

from autocue.llm.events import AssistantMessageEvent
from autocue.llm.providers.builder import MessageBuilder
from autocue.llm.providers.convert import content_parts, prepare_messages, result_images, same_model, tool_result_text
from autocue.llm.providers.http import HttpProvider, Prepared, ProviderStreamError, Read, loads_event
from autocue.llm.providers.sse import SSEEvent
from autocue.llm.stream import StreamOptions
from autocue.llm.types import (
    AssistantMessage,
    Context,
    ImageContent,
    Model,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

_DONE_EVENTS = ("response.completed", "response.incomplete", "response.failed")


def text_signature(item_id: str) -> str:
    return orjson.dumps({"v": 1, "id": item_id}).decode()


def parse_text_signature(sig: str | None) -> str | None:
    """The message item id from a text signature (pi's v1 JSON form or a plain id)."""
    if not sig:
        return None
    if sig.startswith("{"):
        try:
            d = orjson.loads(sig)
            if isinstance(d, dict) and isinstance(d.get("id"), str):
                return str(d["id"])
        except orjson.JSONDecodeError:
            pass
    return sig


def _text(text: str) -> dict[str, Any]:
    return {"type": "input_text", "text": text}


def _image(b: ImageContent) -> dict[str, Any]:
    return {"type": "input_image", "detail": "auto", "image_url": f"data:{b.mime_type};base64,{b.data}"}


def convert_input(model: Model, context: Context) -> list[dict[str, Any]]:
    """The ``input`` array for ``context`` (system prompt first, as a system/developer item)."""
    out: list[dict[str, Any]] = []
    if context.system_prompt:
        out.append({"role": "developer" if model.reasoning else "system", "content": context.system_prompt})
    images_ok = "image" in model.input
    for n, m in enumerate(prepare_messages(context.messages, model)):
        if isinstance(m, UserMessage):
            parts = content_parts(m.content, _text, _image, images_ok)
            if parts:
                out.append({"role": "user", "content": parts})
        elif isinstance(m, AssistantMessage):
            same = same_model(m, model)
            skipped_reasoning = False
            for c in m.content:
                if isinstance(c, ThinkingContent):
                    if same and c.thinking_signature:
                        try:
                            out.append(orjson.loads(c.thinking_signature))
                        except orjson.JSONDecodeError:
                            skipped_reasoning = True
                    else:
                        skipped_reasoning = True
                elif isinstance(c, TextContent):
                    msg_id = parse_text_signature(c.text_signature) or f"msg_{n}"
                    if len(msg_id) > 64:
                        msg_id = f"msg_{abs(hash(msg_id)) % 10**12}"
                    out.append(
                        {
                            "type": "message",
                            "role": "assistant",
                            "content": [{"type": "output_text", "text": c.text, "annotations": []}],
                            "status": "completed",
                            "id": msg_id,
                        }
                    )
                elif isinstance(c, ToolCall):
                    call_id, _, item_id = c.id.partition("|")
                    item: dict[str, Any] = {
                        "type": "function_call",
                        "call_id": call_id,
                        "name": c.name,
                        "arguments": orjson.dumps(c.arguments).decode(),
                    }
                    # An fc_ id is only valid next to the reasoning item it was paired with.
                    if item_id and same and not skipped_reasoning:
                        item["id"] = item_id
                    out.append(item)
        elif isinstance(m, ToolResultMessage):
            out.append(
                {
                    "type": "function_call_output",
                    "call_id": m.tool_call_id.partition("|")[0],
                    "output": tool_result_text(m),
                }
            )
            imgs = result_images(m, images_ok, _image)
            if imgs:
                out.append({"role": "user", "content": [_text("Attached image(s) from tool result:"), *imgs]})
    return out


def build_body(model: Model, context: Context, options: StreamOptions) -> dict[str, Any]:
    stream = model.compat.get("stream", True) is not False
    body: dict[str, Any] = {
        "model": model.id,
        "input": convert_input(model, context),
        "stream": stream,
        "store": False,
    }
    if options.session_id:
        body["prompt_cache_key"] = options.session_id
    if options.max_tokens:
        body["max_output_tokens"] = options.max_tokens
    if options.temperature is not None:
        body["temperature"] = options.temperature
    if context.tools:
        body["tools"] = [
            {
                "type": "function",
                "name": t.name,
                "description": t.description,
                "parameters": t.parameters,
                "strict": False,
            }
            for t in context.tools
        ]
    if options.reasoning and model.reasoning:
        body["reasoning"] = {
            "effort": "high" if options.reasoning == "xhigh" else options.reasoning,
            "summary": "auto",
        }
        body["include"] = ["reasoning.encrypted_content"]
    return body


class OpenAIResponsesProvider(HttpProvider):
    api = "openai-responses"

    stream_end = "response.completed"

    def _prepare(self, model: Model, context: Context, options: StreamOptions) -> Prepared:
        base = (model.base_url or "https://api.openai.com/v1").rstrip("/")
        hdrs: dict[str, str] = {"accept": "text/event-stream"}
        key = self.api_key(model, options)
        if key:
            hdrs["authorization"] = f"Bearer {key}"
        if options.session_id:
            hdrs["session_id"] = options.session_id
        return f"{base}/responses", hdrs, self.payload(build_body(model, context, options), options), None

    def _read(self, b: MessageBuilder, ev: SSEEvent, where: str, out: list[AssistantMessageEvent]) -> Read:
        data = loads_event(ev, where)
        if not isinstance(data, dict):
            raise ProviderStreamError(f"{where}: event {ev.event!r} data is not an object: {ev.data[:200]!r}")
        t = data.get("type") or ev.event
        if t in _DONE_EVENTS:
            self._finish(b, data.get("response") or {}, t)
            return Read.END
        self._event(b, t, data, where, out)
        return Read.MORE

    def _whole(self, b: MessageBuilder, data: Any, where: str, out: list[AssistantMessageEvent]) -> bool:
        if not isinstance(data, dict) or not isinstance(data.get("output"), list):
            raise ProviderStreamError(f"{where}: expected a response object, got {orjson.dumps(data)[:200]!r}")
        for i, it in enumerate(data["output"]):
            self._item_done(b, i, it, out)
        self._finish(b, data, "response." + ("completed" if data.get("status") != "incomplete" else "incomplete"))
        return True

    def _event(
        self, b: MessageBuilder, t: str, d: dict[str, Any], where: str, out: list[AssistantMessageEvent]
    ) -> None:
        k = d.get("output_index", 0)
        if t == "response.output_text.delta" or t == "response.refusal.delta":
            b.text_delta(k, d.get("delta", ""), out)
        elif t == "response.function_call_arguments.delta":
            if b.is_open(k):
                b.tool_delta(k, d.get("delta", ""), out)
        elif t == "response.function_call_arguments.done":
            if b.is_open(k) and isinstance(d.get("arguments"), str):
                b.set_tool_arguments(k, d["arguments"])
        elif t in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            b.thinking_delta(k, d.get("delta", ""), out)
        elif t == "response.reasoning_summary_part.added":
            blk = b.block(k)
            if isinstance(blk, ThinkingContent) and blk.thinking:
                b.thinking_delta(k, "\n\n", out)
        elif t == "response.output_item.added":
            it = d.get("item") or {}
            self._open_item(b, k, it, out)
            if it.get("type") == "function_call" and it.get("arguments"):
                b.tool_delta(k, it["arguments"], out)
        elif t == "response.output_item.done":
            self._item_done(b, k, d.get("item") or {}, out)
        elif t == "response.created" or t == "response.in_progress":
            r = d.get("response") or {}
            if isinstance(r.get("id"), str):
                b.msg.response_id = r["id"]
        elif t == "error":
            code = d.get("code")
            raise ProviderStreamError(f"{code + ': ' if isinstance(code, str) else ''}{d.get('message', d)}")

    def _open_item(self, b: MessageBuilder, k: Any, it: dict[str, Any], out: list[AssistantMessageEvent]) -> None:
        ty = it.get("type")
        if ty == "reasoning":
            out.append(b.open_thinking(k))
        elif ty == "message":
            out.append(b.open_text(k))
        elif ty == "function_call":
            out.append(b.open_tool(k, f"{it.get('call_id', '')}|{it.get('id', '')}", it.get("name", "")))

    def _item_done(self, b: MessageBuilder, k: Any, it: dict[str, Any], out: list[AssistantMessageEvent]) -> None:
        ty = it.get("type")
        if ty not in ("reasoning", "message", "function_call"):
            return
        if not b.is_open(k):
            self._open_item(b, k, it, out)
        blk = b.block(k)
        if ty == "reasoning":
            summary = "\n\n".join(s.get("text", "") for s in it.get("summary") or ())
            if not blk.thinking and summary:
                b.thinking_delta(k, summary, out)
            blk.thinking_signature = orjson.dumps(it).decode()
        elif ty == "message":
            full = "".join(c.get("text") or c.get("refusal") or "" for c in it.get("content") or ())
            if not blk.text and full:
                b.text_delta(k, full, out)
            if isinstance(it.get("id"), str):
                blk.text_signature = text_signature(it["id"])
        elif isinstance(it.get("arguments"), str) and it["arguments"]:
            b.set_tool_arguments(k, it["arguments"])
        b.close(k, out)

    def _finish(self, b: MessageBuilder, r: dict[str, Any], t: str) -> None:
        if isinstance(r.get("id"), str):
            b.msg.response_id = r["id"]
        u = r.get("usage")
        if isinstance(u, dict):
            cached = int((u.get("input_tokens_details") or {}).get("cached_tokens") or 0)
            b.set_usage(max(0, int(u.get("input_tokens") or 0) - cached), int(u.get("output_tokens") or 0), cached, 0)
        if t == "response.failed":
            err = r.get("error") or {}
            b.msg.stop_reason = "error"
            b.msg.error_message = (
                f"{err.get('code') or 'response.failed'}: {err.get('message') or 'the response failed'}"
            )
        elif t == "response.incomplete" or r.get("status") == "incomplete":
            b.msg.stop_reason = "length"


__all__ = ["OpenAIResponsesProvider", "build_body", "convert_input", "parse_text_signature", "text_signature"]
