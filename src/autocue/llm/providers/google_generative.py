"""``GoogleGenerativeProvider``: the Gemini API (``google-generative``).

Streams ``POST {base_url}/v1beta/models/{id}:streamGenerateContent?alt=sse`` with
``x-goog-api-key``. Each SSE chunk is a ``GenerateContentResponse``: ``text`` parts become
text, parts with ``thought: true`` become thinking, ``functionCall`` parts become whole tool
calls; a ``thoughtSignature`` is kept on the block it came with (text, thinking or tool call)
and sent back on later turns for the same model. ``usageMetadata``: ``promptTokenCount``
minus ``cachedContentTokenCount`` is input, ``candidatesTokenCount + thoughtsTokenCount``
output. ``finishReason`` STOP/MAX_TOKENS map to stop/length; safety and other reasons are
errors. A stream without a ``finishReason`` is an error.
"""

from __future__ import annotations

import itertools
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
    ToolResultMessage,
    UserMessage,
)

THINKING_BUDGETS: dict[str, int] = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 24576, "xhigh": 32768}


def _text(text: str) -> dict[str, Any]:
    return {"text": text}


def _inline(b: ImageContent) -> dict[str, Any]:
    return {"inlineData": {"mimeType": b.mime_type, "data": b.data}}


def convert_contents(model: Model, context: Context) -> list[dict[str, Any]]:
    """The ``contents`` array (roles ``user`` and ``model``; tool results of a turn merged)."""
    out: list[dict[str, Any]] = []
    images_ok = "image" in model.input
    for m in prepare_messages(context.messages, model):
        if isinstance(m, UserMessage):
            parts = content_parts(m.content, _text, _inline, images_ok)
            if parts:
                out.append({"role": "user", "parts": parts})
        elif isinstance(m, AssistantMessage):
            same = same_model(m, model)
            parts = []
            for c in m.content:
                if isinstance(c, TextContent):
                    if not c.text.strip():
                        continue
                    p, sig = _text(c.text), c.text_signature
                elif isinstance(c, ThinkingContent):
                    if not c.thinking.strip():
                        continue
                    p, sig = {"thought": True, "text": c.thinking}, c.thinking_signature
                else:
                    p, sig = {"functionCall": {"name": c.name, "args": c.arguments}}, c.thought_signature
                if same and sig:
                    p["thoughtSignature"] = sig
                parts.append(p)
            if parts:
                out.append({"role": "model", "parts": parts})
        elif isinstance(m, ToolResultMessage):
            text = tool_result_text(m)
            part = {
                "functionResponse": {
                    "name": m.tool_name,
                    "response": {"error": text} if m.is_error else {"output": text},
                }
            }
            last = out[-1] if out else None
            if last is not None and last["role"] == "user" and any("functionResponse" in p for p in last["parts"]):
                last["parts"].append(part)
            else:
                out.append({"role": "user", "parts": [part]})
            imgs = result_images(m, images_ok, _inline)
            if imgs:
                out.append({"role": "user", "parts": [_text("Tool result image:"), *imgs]})
    return out


def build_body(model: Model, context: Context, options: StreamOptions) -> dict[str, Any]:
    body: dict[str, Any] = {"contents": convert_contents(model, context)}
    if context.system_prompt:
        body["systemInstruction"] = {"parts": [{"text": context.system_prompt}]}
    if context.tools:
        body["tools"] = [
            {
                "functionDeclarations": [
                    {"name": t.name, "description": t.description, "parametersJsonSchema": t.parameters}
                    for t in context.tools
                ]
            }
        ]
    gen: dict[str, Any] = {}
    if options.max_tokens:
        gen["maxOutputTokens"] = options.max_tokens
    if options.temperature is not None:
        gen["temperature"] = options.temperature
    if options.reasoning and model.reasoning:
        gen["thinkingConfig"] = {
            "includeThoughts": True,
            "thinkingBudget": THINKING_BUDGETS.get(options.reasoning, 8192),
        }
    if gen:
        body["generationConfig"] = gen
    return body


class GoogleGenerativeProvider(HttpProvider):
    api = "google-generative"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._ids = itertools.count(1)

    stream_end = "a candidate with a finishReason"

    def _prepare(self, model: Model, context: Context, options: StreamOptions) -> Prepared:
        base = (model.base_url or "https://generativelanguage.googleapis.com").rstrip("/")
        if not base.endswith(("/v1beta", "/v1")):
            base += "/v1beta"
        stream = model.compat.get("stream", True) is not False
        url = f"{base}/models/{model.id}:" + ("streamGenerateContent?alt=sse" if stream else "generateContent")
        hdrs: dict[str, str] = {}
        key = self.api_key(model, options)
        if key:
            hdrs["x-goog-api-key"] = key
        return url, hdrs, self.payload(build_body(model, context, options), options), stream

    def _read(self, b: MessageBuilder, ev: SSEEvent, where: str, out: list[AssistantMessageEvent]) -> Read:
        return Read.FINISHED if self._chunk(b, loads_event(ev, where), where, out) else Read.MORE

    def _whole(self, b: MessageBuilder, data: Any, where: str, out: list[AssistantMessageEvent]) -> bool:
        finished = False
        for c in data if isinstance(data, list) else [data]:
            finished = self._chunk(b, c, where, out) or finished
        return finished

    def _chunk(self, b: MessageBuilder, c: Any, where: str, out: list[AssistantMessageEvent]) -> bool:
        if not isinstance(c, dict):
            raise ProviderStreamError(f"{where}: expected a GenerateContentResponse object, got {c!r:.200}")
        if isinstance(c.get("error"), dict):
            err = c["error"]
            code = err.get("code")
            raise ProviderStreamError(
                f"{code} {err.get('status', '')}: {err.get('message', '')}".strip(),
                code if isinstance(code, int) else None,
            )
        if isinstance(c.get("responseId"), str):
            b.msg.response_id = c["responseId"]
        u = c.get("usageMetadata")
        if isinstance(u, dict):
            cached = int(u.get("cachedContentTokenCount") or 0)
            b.set_usage(
                max(0, int(u.get("promptTokenCount") or 0) - cached),
                int(u.get("candidatesTokenCount") or 0) + int(u.get("thoughtsTokenCount") or 0),
                cached,
                0,
            )
        finished = False
        for cand in c.get("candidates") or ():
            for p in (cand.get("content") or {}).get("parts") or ():
                sig = p.get("thoughtSignature")
                if "functionCall" in p:
                    b.close("thinking", out)
                    b.close("text", out)
                    fc = p["functionCall"] or {}
                    name = fc.get("name", "")
                    call_id = fc.get("id") or f"{name}_{next(self._ids)}"
                    b.add_tool_call(
                        call_id, name, orjson.dumps(fc.get("args") or {}).decode(), out, thought_signature=sig
                    )
                elif isinstance(p.get("text"), str):
                    if p.get("thought") is True:
                        b.close("text", out)
                        b.thinking_delta("thinking", p["text"], out)
                        if sig:
                            b.block("thinking").thinking_signature = sig
                    else:
                        b.close("thinking", out)
                        b.text_delta("text", p["text"], out)
                        if sig:
                            b.block("text").text_signature = sig
            fr = cand.get("finishReason")
            if fr:
                finished = True
                if fr == "MAX_TOKENS":
                    b.msg.stop_reason = "length"
                elif fr != "STOP":
                    b.msg.stop_reason = "error"
                    b.msg.error_message = f"{self.api}: the model stopped with finishReason {fr}"
        return finished


__all__ = ["GoogleGenerativeProvider", "THINKING_BUDGETS", "build_body", "convert_contents"]
