"""``OpenAICompletionsProvider``: the OpenAI Chat Completions API (``openai-completions``).

Streams ``POST {base_url}/chat/completions`` with ``stream_options.include_usage``:
``delta.content`` becomes text, ``delta.reasoning_content`` / ``delta.reasoning`` (what
llama.cpp, vLLM, DeepSeek, OpenRouter send) becomes thinking whose signature is the field
name (so it is sent back under the same field on later turns, as pi does), and
``delta.tool_calls`` are assembled by ``index`` so parallel calls may interleave. Usage maps
``prompt_tokens`` minus ``prompt_tokens_details.cached_tokens`` to input and the cached part
to cache reads. ``model.compat``: ``stream`` (False = non-streaming request),
``max_tokens_field`` (``max_completion_tokens`` or ``max_tokens``), ``supports_store``,
``supports_developer_role``, ``supports_reasoning_effort``.
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
    StopReason,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

_FINISH: dict[str, StopReason] = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "toolUse",
    "function_call": "toolUse",
    "content_filter": "error",
}
_REASONING_FIELDS = ("reasoning_content", "reasoning")


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _image_url(b: ImageContent) -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": f"data:{b.mime_type};base64,{b.data}"}}


def convert_messages(model: Model, context: Context) -> list[dict[str, Any]]:
    """The ``messages`` array for ``context`` (system prompt first)."""
    compat = model.compat
    out: list[dict[str, Any]] = []
    if context.system_prompt:
        dev = model.reasoning and compat.get("supports_developer_role", True)
        out.append({"role": "developer" if dev else "system", "content": context.system_prompt})
    images_ok = "image" in model.input
    for m in prepare_messages(context.messages, model):
        if isinstance(m, UserMessage):
            if isinstance(m.content, str):
                out.append({"role": "user", "content": m.content})
                continue
            parts = content_parts(m.content, _text, _image_url, images_ok)
            if parts:
                out.append({"role": "user", "content": parts})
        elif isinstance(m, AssistantMessage):
            am: dict[str, Any] = {"role": "assistant", "content": None}
            texts = [b.text for b in m.content if isinstance(b, TextContent) and b.text]
            if texts:
                am["content"] = "".join(texts)
            thinking = [b for b in m.content if isinstance(b, ThinkingContent)]
            if thinking and same_model(m, model):
                field = thinking[0].thinking_signature
                if field in _REASONING_FIELDS:
                    am[field] = "\n".join(b.thinking for b in thinking)
            calls = [b for b in m.content if isinstance(b, ToolCall)]
            if calls:
                am["tool_calls"] = [
                    {
                        "id": c.id,
                        "type": "function",
                        "function": {"name": c.name, "arguments": orjson.dumps(c.arguments).decode()},
                    }
                    for c in calls
                ]
            if am["content"] is None and not calls:
                continue
            out.append(am)
        elif isinstance(m, ToolResultMessage):
            out.append({"role": "tool", "tool_call_id": m.tool_call_id, "content": tool_result_text(m)})
            imgs = result_images(m, images_ok, _image_url)
            if imgs:
                out.append({"role": "user", "content": [_text("Attached image(s) from tool result:"), *imgs]})
    return out


def build_body(model: Model, context: Context, options: StreamOptions) -> dict[str, Any]:
    compat = model.compat
    stream = compat.get("stream", True) is not False
    body: dict[str, Any] = {"model": model.id, "messages": convert_messages(model, context), "stream": stream}
    if stream:
        body["stream_options"] = {"include_usage": True}
    if compat.get("supports_store", True):
        body["store"] = False
    max_tokens = options.max_tokens
    if max_tokens:
        body[compat.get("max_tokens_field", "max_completion_tokens")] = max_tokens
    if options.temperature is not None:
        body["temperature"] = options.temperature
    if context.tools:
        body["tools"] = [
            {
                "type": "function",
                "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
            }
            for t in context.tools
        ]
    if options.reasoning and model.reasoning and compat.get("supports_reasoning_effort", True):
        body["reasoning_effort"] = "high" if options.reasoning == "xhigh" else options.reasoning
    return body


class OpenAICompletionsProvider(HttpProvider):
    api = "openai-completions"

    stream_end = "a finish_reason or [DONE]"

    def _prepare(self, model: Model, context: Context, options: StreamOptions) -> Prepared:
        base = (model.base_url or "https://api.openai.com/v1").rstrip("/")
        key = self.api_key(model, options)
        hdrs: dict[str, str] = {"accept": "text/event-stream"}
        if key:
            hdrs["authorization"] = f"Bearer {key}"
        return f"{base}/chat/completions", hdrs, self.payload(build_body(model, context, options), options), None

    def _read(self, b: MessageBuilder, ev: SSEEvent, where: str, out: list[AssistantMessageEvent]) -> Read:
        if ev.data == "[DONE]":
            return Read.END
        return Read.FINISHED if self._chunk(b, loads_event(ev, where), where, out) else Read.MORE

    def _chunk(self, b: MessageBuilder, chunk: Any, where: str, out: list[AssistantMessageEvent]) -> bool:
        """Apply one chunk; True when it carries a finish_reason."""
        if not isinstance(chunk, dict):
            raise ProviderStreamError(f"{where}: expected a JSON object per chunk, got {chunk!r:.200}")
        err = chunk.get("error")
        if err:
            msg = err.get("message", str(err)) if isinstance(err, dict) else str(err)
            code = err.get("code") if isinstance(err, dict) else None
            raise ProviderStreamError(f"{where}: error in stream: {msg}", code if isinstance(code, int) else None)
        if b.msg.response_id is None and isinstance(chunk.get("id"), str):
            b.msg.response_id = chunk["id"]
        usage = chunk.get("usage")
        if isinstance(usage, dict):
            _set_usage(b, usage)
        finished = False
        for choice in chunk.get("choices") or ():
            delta = choice.get("delta") or {}
            for field in _REASONING_FIELDS:
                r = delta.get(field)
                if isinstance(r, str) and r:
                    if b.is_open("text"):
                        b.close("text", out)
                    b.thinking_delta("thinking", r, out, signature=field)
            content = delta.get("content")
            if isinstance(content, str) and content:
                if b.is_open("thinking"):
                    b.close("thinking", out)
                b.text_delta("text", content, out)
            for tc in delta.get("tool_calls") or ():
                idx = tc.get("index", 0)
                k = ("tool", idx)
                fn = tc.get("function") or {}
                if not b.is_open(k):
                    b.close("thinking", out)
                    b.close("text", out)
                    out.append(b.open_tool(k, tc.get("id") or f"call_{idx}", fn.get("name") or ""))
                blk = b.block(k)
                if tc.get("id"):
                    blk.id = tc["id"]
                if fn.get("name"):
                    blk.name = fn["name"]
                args = fn.get("arguments")
                if isinstance(args, str) and args:
                    b.tool_delta(k, args, out)
            fr = choice.get("finish_reason")
            if fr:
                finished = True
                self._finish(b, fr)
        return finished

    def _whole(self, b: MessageBuilder, data: Any, where: str, out: list[AssistantMessageEvent]) -> bool:
        if not isinstance(data, dict) or not isinstance(data.get("choices"), list):
            raise ProviderStreamError(f"{where}: expected a chat.completion object, got {orjson.dumps(data)[:200]!r}")
        b.msg.response_id = data.get("id")
        if isinstance(data.get("usage"), dict):
            _set_usage(b, data["usage"])
        choice = data["choices"][0] if data["choices"] else {}
        message = choice.get("message") or {}
        for field in _REASONING_FIELDS:
            r = message.get(field)
            if isinstance(r, str) and r:
                b.add_thinking(r, out, signature=field)
        if isinstance(message.get("content"), str) and message["content"]:
            b.add_text(message["content"], out)
        for tc in message.get("tool_calls") or ():
            fn = tc.get("function") or {}
            b.add_tool_call(tc.get("id") or "", fn.get("name") or "", fn.get("arguments") or "", out)
        self._finish(b, choice.get("finish_reason") or "stop")
        return True

    def _finish(self, b: MessageBuilder, finish_reason: str) -> None:
        b.msg.stop_reason = _FINISH.get(finish_reason, "stop")
        if finish_reason == "content_filter":
            b.msg.error_message = f"{self.api}: the reply was stopped by the content filter (finish_reason)"


def _set_usage(b: MessageBuilder, usage: dict[str, Any]) -> None:
    details = usage.get("prompt_tokens_details") or {}
    cached = int(details.get("cached_tokens") or 0)
    prompt = int(usage.get("prompt_tokens") or 0)
    b.set_usage(max(0, prompt - cached), int(usage.get("completion_tokens") or 0), cached, 0)


__all__ = ["OpenAICompletionsProvider", "build_body", "convert_messages"]
