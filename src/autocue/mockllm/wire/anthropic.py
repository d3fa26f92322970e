"""Anthropic Messages (``POST /v1/messages``, also ``?beta=true``).

Streaming, in the real order: ``message_start`` (empty content, ``stop_reason: null``,
usage), then per block ``content_block_start`` / ``content_block_delta`` /
``content_block_stop`` (a ``ping`` after the first block starts): thinking blocks stream
``thinking_delta`` then one ``signature_delta``; text streams ``text_delta``; tool calls
(``toolu_`` ids) start with ``input: {}`` and stream ``input_json_delta`` fragments. Then
``message_delta`` with ``delta.stop_reason`` (``end_turn`` / ``tool_use`` / ``max_tokens``),
``stop_sequence: null`` and top-level ``usage``, then ``message_stop``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from autocue.mockllm.ids import make_id
from autocue.mockllm.wire import shape
from autocue.mockllm.wire.api import Call, LastMessage, Surface, WireApi, WireRequest, WireRoute, flatten
from autocue.mockllm.wire.common import Segments, SegmentWriter, sse
from autocue.mockllm.wire.view import schema_at

if TYPE_CHECKING:  # fuzzing loads with the first fuzz spec
    from autocue.mockllm.reply import Reply
    from autocue.mockllm.wire.fuzz import Fuzzer

STOP = {"stop": "end_turn", "length": "max_tokens", "toolUse": "tool_use"}
PING = b'event: ping\ndata: {"type":"ping"}\n\n'
STOP_FRAME = b'event: message_stop\ndata: {"type":"message_stop"}\n\n'


def _usage(reply: Reply, output_tokens: int) -> dict[str, Any]:
    return {
        "input_tokens": reply.input_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": reply.cache_read,
        "output_tokens": output_tokens,
        "service_tier": "standard",
    }


def message_id(reply: Reply) -> str:
    return make_id("msg_01", reply.seed)


def json_body(reply: Reply, req: WireRequest) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    for b in reply.blocks:
        if b.kind == "text":
            content.append({"type": "text", "text": b.text})
        elif b.kind == "thinking":
            content.append({"type": "thinking", "thinking": b.text, "signature": b.signature})
        else:
            content.append({"type": "tool_use", "id": b.id, "name": b.name, "input": b.args})
    return {
        "id": message_id(reply),
        "type": "message",
        "role": "assistant",
        "model": req.model,
        "content": content,
        "stop_reason": STOP.get(reply.stop_reason, "end_turn"),
        "stop_sequence": None,
        "usage": _usage(reply, reply.output_tokens),
    }


def stream(reply: Reply, req: WireRequest, fuzz: Fuzzer | None = None) -> Segments:
    w = SegmentWriter(fuzz, ping=PING)
    start: dict[str, Any] = {
        "id": message_id(reply),
        "type": "message",
        "role": "assistant",
        "model": req.model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": _usage(reply, 1),
    }
    w.add(sse("message_start", {"type": "message_start", "message": start}))
    pinged = False
    for i, b in enumerate(reply.blocks):
        w.pause(b.delay)
        if b.kind == "text":
            block: dict[str, Any] = {"type": "text", "text": ""}
        elif b.kind == "thinking":
            block = {"type": "thinking", "thinking": "", "signature": ""}
        else:
            block = {"type": "tool_use", "id": b.id, "name": b.name, "input": {}}
        w.add(sse("content_block_start", {"type": "content_block_start", "index": i, "content_block": block}))
        if not pinged:
            w.add(PING)
            pinged = True
        if b.kind == "text":
            for piece in w.pieces(b.text):
                w.add(sse("content_block_delta", {"type": "content_block_delta", "index": i,
                                                  "delta": {"type": "text_delta", "text": piece}}))
        elif b.kind == "thinking":
            for piece in w.pieces(b.text):
                w.add(sse("content_block_delta", {"type": "content_block_delta", "index": i,
                                                  "delta": {"type": "thinking_delta", "thinking": piece}}))
            w.add(sse("content_block_delta", {"type": "content_block_delta", "index": i,
                                              "delta": {"type": "signature_delta", "signature": b.signature}}))
        else:
            w.add(sse("content_block_delta", {"type": "content_block_delta", "index": i,
                                              "delta": {"type": "input_json_delta", "partial_json": ""}}))
            for piece in w.pieces(w.args(b.args, b.args_json)):
                w.add(sse("content_block_delta", {"type": "content_block_delta", "index": i,
                                                  "delta": {"type": "input_json_delta", "partial_json": piece}}))
        w.add(sse("content_block_stop", {"type": "content_block_stop", "index": i}))
    if not pinged:
        w.add(PING)
    w.add(sse("message_delta", {
        "type": "message_delta",
        "delta": {"stop_reason": STOP.get(reply.stop_reason, "end_turn"), "stop_sequence": None},
        "usage": {"input_tokens": reply.input_tokens, "cache_creation_input_tokens": 0,
                  "cache_read_input_tokens": reply.cache_read, "output_tokens": reply.output_tokens},
    }))
    w.add(STOP_FRAME)
    return w.done()


# ---------------------------------------------------------------------- the request
ROLES = ("user", "assistant", "system", "developer")
BLOCKS = ("text", "image", "document", "search_result", "tool_use", "tool_result", "thinking",
          "redacted_thinking", "server_tool_use", "container_upload", "tool_reference")
_TOOL_BLOCK = re.compile(r"[a-z_]+_tool_(use|result)")
"""Server-tool blocks (``web_search_tool_result``, ``mcp_tool_use``, ...)."""
ERROR_TYPE = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    504: "timeout_error",
    529: "overloaded_error",
}
KIND_TYPE = {"overloaded": "overloaded_error", "rate_limit": "rate_limit_error", "context_overflow":
             "invalid_request_error"}


class AnthropicApi(WireApi):
    routes = (WireRoute("/v1/messages"), WireRoute("/messages"), WireRoute("/v1/messages/count_tokens"),
              WireRoute("/messages/count_tokens"))
    surfaces = (
        Surface("POST", "/v1/messages", "SSE (`stream: true`)", also=("/v1/messages?beta=true", "/messages")),
        Surface("POST", "/v1/messages/count_tokens", what="token count"),
    )
    tool_id_prefix = "toolu_01"

    def claims(self, path: str) -> bool:
        return "/messages" in path

    def model_call(self, path: str) -> bool:
        return path.endswith("/messages")

    def call(self, path: str) -> Call:
        return Call(count=path.endswith("/count_tokens"))

    def function_tools(self, tools: list[Any]) -> list[str]:
        """Every named tool but server tools (``web_search_20250305``)."""
        out: list[str] = []
        for t in tools:
            if not isinstance(t, dict):
                continue
            typ = t.get("type")
            fn = t.get("function")
            if isinstance(fn, dict) and isinstance(fn.get("name"), str):
                out.append(fn["name"])
            elif isinstance(t.get("name"), str) and not (typ not in (None, "custom") and "_20" in str(typ)):
                out.append(t["name"])
        return out

    def normalize_last(self, m: dict[str, Any]) -> LastMessage:
        if isinstance(m.get("content"), list):
            blocks = [b for b in m["content"] if isinstance(b, dict)]
            results = [flatten(b.get("content")) for b in blocks if b.get("type") == "tool_result"]
            if results:
                text = "\n".join([*results, *(str(b["text"]) for b in blocks if isinstance(b.get("text"), str))])
                return LastMessage("tool", text, "\n".join(results))
        return super().normalize_last(m)

    def validate(self, body: dict[str, Any], start: int = 0) -> None:
        shape.common(body, ("max_tokens",))
        shape.parts(body.get("system"), "system", ("text",), "system block", "text blocks")
        msgs = shape.required_list(body, "messages")
        for i in range(start, len(msgs)):
            m = msgs[i]
            w = f"messages[{i}]"
            shape.obj(m, w)
            shape.one_of(m.get("role"), ROLES, w + ".role", "role")
            content = m.get("content")
            if isinstance(content, str):
                continue
            for j, block in enumerate(shape.array(content, w + ".content")):
                wb = f"{w}.content[{j}]"
                typ = shape.typed(block, wb, BLOCKS, "content block type", _TOOL_BLOCK)
                if typ == "tool_use":
                    shape.string(block, "id", wb)
                    shape.string(block, "name", wb)
                    shape.opt(block, "input", dict, "an object", wb + ".")
                elif typ == "tool_result":
                    shape.string(block, "tool_use_id", wb)
                    shape.opt(block, "is_error", bool, "a boolean", wb + ".")
                    shape.parts(block.get("content"), wb + ".content", BLOCKS, "content block")
                elif typ == "thinking":
                    shape.string(block, "thinking", wb)

    def error_body(self, status: int, message: str, *, kind: str | None = None, code: str | None = None,
                   request_id: str = "req_autocue") -> dict[str, Any]:
        etype = KIND_TYPE.get(kind or "") or ERROR_TYPE.get(status) or (
            "api_error" if status >= 500 else "invalid_request_error")
        return {"type": "error", "error": {"type": etype, "message": message}, "request_id": request_id}

    def json_body(self, reply: Reply, req: WireRequest) -> dict[str, Any]:
        return json_body(reply, req)

    def stream(self, reply: Reply, req: WireRequest, fuzz: Fuzzer | None = None) -> Segments:
        return stream(reply, req, fuzz)

    def response_schema(self, body: dict[str, Any]) -> dict[str, Any] | None:
        """``output_config: {format: {type: json_schema, schema}}`` (or the beta's ``output_format``)."""
        return schema_at(body, "output_config", "format", "schema") or schema_at(body, "output_format", "schema")


API = AnthropicApi()
