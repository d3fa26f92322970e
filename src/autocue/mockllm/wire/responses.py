"""OpenAI Responses (``POST /v1/responses``; over a WebSocket on ``GET /v1/responses``: ``ResponsesSocket``).

Streaming events carry ``sequence_number`` from 0 and come in the real API's order:
``response.created``, ``response.in_progress``, then per output item
``response.output_item.added`` ... ``response.output_item.done``, then
``response.completed`` (``response.incomplete`` for a ``length`` stop). Items:

* thinking → a ``reasoning`` item (``rs_``) whose summary streams as
  ``response.reasoning_summary_part.added``, ``response.reasoning_summary_text.delta/done``,
  ``response.reasoning_summary_part.done``; ``encrypted_content`` when the request's
  ``include`` asks for ``reasoning.encrypted_content``;
* text → a ``message`` item (``msg_``): ``response.content_part.added``,
  ``response.output_text.delta``, ``response.output_text.done``, ``response.content_part.done``;
* tool call → a ``function_call`` item (``fc_`` id, ``call_`` call id):
  ``response.function_call_arguments.delta`` / ``.done``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import orjson

from autocue.mockllm.ids import make_id
from autocue.mockllm.wire import shape
from autocue.mockllm.wire.api import (
    Call,
    Chunk,
    LastMessage,
    SocketRefusal,
    SocketTurn,
    Surface,
    WireApi,
    WireRequest,
    WireRoute,
    flatten,
    openai_error,
    with_namespaces,
)
from autocue.mockllm.wire.common import Segments, SegmentWriter, now
from autocue.mockllm.wire.view import deployment, schema_at

if TYPE_CHECKING:  # fuzzing loads with the first fuzz spec
    from collections.abc import Callable, Sequence

    from autocue.mockllm.reply import Block, Reply
    from autocue.mockllm.wire.context import ContextBuilder
    from autocue.mockllm.wire.fuzz import Fuzzer
    from autocue.scenario.writer import TimedReply

CODEX_LITE_HEADER = "x-openai-internal-codex-responses-lite"
"""Codex's Responses "lite" request (sent when no ``model`` is configured) has no top-level
``tools``: they sit in an ``input[]`` item of type ``additional_tools``, grouped in namespaces."""


def _usage(reply: Reply) -> dict[str, Any]:
    return {
        "input_tokens": reply.input_tokens,
        "input_tokens_details": {"cached_tokens": reply.cache_read, "cache_write_tokens": 0},
        "output_tokens": reply.output_tokens,
        "output_tokens_details": {"reasoning_tokens": reply.thinking_tokens},
        "total_tokens": reply.input_tokens + reply.output_tokens,
    }


def _response(reply: Reply, req: WireRequest, created: int, status: str, output: list[Any],
              usage: dict[str, Any] | None) -> dict[str, Any]:
    return _response_object(make_id("resp_", reply.seed), req.body, req.model, created, status, output, usage)


def _response_object(rid: str, b: dict[str, Any], model: str, created: int, status: str, output: list[Any],
                     usage: dict[str, Any] | None) -> dict[str, Any]:
    return {
        "id": rid,
        "object": "response",
        "created_at": created,
        "status": status,
        "background": False,
        "completed_at": created if status == "completed" else None,
        "error": None,
        "incomplete_details": {"reason": "max_output_tokens"} if status == "incomplete" else None,
        "instructions": b.get("instructions"),
        "max_output_tokens": b.get("max_output_tokens"),
        "model": model,
        "output": output,
        "parallel_tool_calls": b.get("parallel_tool_calls", True),
        "previous_response_id": b.get("previous_response_id"),
        "reasoning": {"effort": None, "summary": None},
        "store": b.get("store", True),
        "temperature": 1.0,
        "text": {"format": {"type": "text"}, "verbosity": "medium"},
        "tool_choice": b.get("tool_choice", "auto"),
        "tools": b.get("tools") or [],
        "top_p": 1.0,
        "truncation": "disabled",
        "usage": usage,
        "user": None,
        "metadata": {},
    }


def _wants_encrypted(req: WireRequest) -> bool:
    inc = req.body.get("include")
    return isinstance(inc, list) and "reasoning.encrypted_content" in inc


def _item(reply: Reply, i: int, b: Block, done: bool, encrypted: bool) -> dict[str, Any]:
    status = "completed" if done else "in_progress"
    if b.kind == "thinking":
        item: dict[str, Any] = {
            "id": make_id("rs_", reply.seed, i),
            "type": "reasoning",
            "summary": [{"type": "summary_text", "text": b.text}] if done else [],
        }
        if encrypted:
            item["encrypted_content"] = b.signature
        return item
    if b.kind == "text":
        return {
            "id": make_id("msg_", reply.seed, i),
            "type": "message",
            "status": status,
            "content": [{"type": "output_text", "annotations": [], "logprobs": [], "text": b.text}] if done else [],
            "role": "assistant",
        }
    return {
        "id": make_id("fc_", reply.seed, i),
        "type": "function_call",
        "status": status,
        "arguments": b.args_json if done else "",
        "call_id": b.id,
        "name": b.name,
    }


def _status(reply: Reply) -> str:
    return "incomplete" if reply.stop_reason == "length" else "completed"


def json_body(reply: Reply, req: WireRequest) -> dict[str, Any]:
    enc = _wants_encrypted(req)
    output = [_item(reply, i, b, True, enc) for i, b in enumerate(reply.blocks)]
    return _response(reply, req, now(), _status(reply), output, _usage(reply))


def stream(reply: Reply, req: WireRequest, fuzz: Fuzzer | None = None) -> Segments:
    created = now()
    enc = _wants_encrypted(req)
    w = SegmentWriter(fuzz)
    seq = 0

    def ev(kind: str, data: dict[str, Any]) -> None:
        nonlocal seq
        data["type"] = kind
        data["sequence_number"] = seq
        seq += 1
        w.event(kind, data)

    ev("response.created", {"response": _response(reply, req, created, "in_progress", [], None)})
    ev("response.in_progress", {"response": _response(reply, req, created, "in_progress", [], None)})
    output: list[Any] = []
    for i, b in enumerate(reply.blocks):
        w.pause(b.delay)
        if b.kind == "call" and fuzz is not None:
            b = replace(b, args_json=w.args(b.args, b.args_json))
        item_id = ""
        added = _item(reply, i, b, False, enc)
        item_id = added["id"]
        ev("response.output_item.added", {"output_index": i, "item": added})
        if b.kind == "thinking":
            ev("response.reasoning_summary_part.added", {"item_id": item_id, "output_index": i, "summary_index": 0,
                                                         "part": {"type": "summary_text", "text": ""}})
            for piece in w.pieces(b.text):
                ev("response.reasoning_summary_text.delta", {"item_id": item_id, "output_index": i,
                                                             "summary_index": 0, "delta": piece})
            ev("response.reasoning_summary_text.done", {"item_id": item_id, "output_index": i, "summary_index": 0,
                                                        "text": b.text})
            ev("response.reasoning_summary_part.done", {"item_id": item_id, "output_index": i, "summary_index": 0,
                                                        "part": {"type": "summary_text", "text": b.text}})
        elif b.kind == "text":
            ev("response.content_part.added", {"item_id": item_id, "output_index": i, "content_index": 0,
                                               "part": {"type": "output_text", "annotations": [], "logprobs": [],
                                                        "text": ""}})
            for piece in w.pieces(b.text):
                ev("response.output_text.delta", {"item_id": item_id, "output_index": i, "content_index": 0,
                                                  "delta": piece, "logprobs": []})
            ev("response.output_text.done", {"item_id": item_id, "output_index": i, "content_index": 0,
                                             "text": b.text, "logprobs": []})
            ev("response.content_part.done", {"item_id": item_id, "output_index": i, "content_index": 0,
                                              "part": {"type": "output_text", "annotations": [], "logprobs": [],
                                                       "text": b.text}})
        else:
            for piece in w.pieces(b.args_json):
                ev("response.function_call_arguments.delta", {"item_id": item_id, "output_index": i,
                                                              "delta": piece})
            ev("response.function_call_arguments.done", {"item_id": item_id, "output_index": i,
                                                          "arguments": b.args_json})
        done = _item(reply, i, b, True, enc)
        output.append(done)
        ev("response.output_item.done", {"output_index": i, "item": done})
    status = _status(reply)
    final = "response.incomplete" if status == "incomplete" else "response.completed"
    ev(final, {"response": _response(reply, req, created, status, output, _usage(reply))})
    return w.done()


# ---------------------------------------------------------------------- the request
ROLES = ("user", "assistant", "system", "developer")
PARTS = ("input_text", "input_image", "input_file", "input_audio", "output_text", "refusal", "summary_text",
         "reasoning_text", "text")


def _additional_tools(msgs: list[Any]) -> list[Any]:
    out: list[Any] = []
    for item in msgs:
        if isinstance(item, dict) and item.get("type") == "additional_tools":
            tools = item.get("tools")
            if isinstance(tools, list):
                out.extend(tools)
    return out


def _dumps(v: Any) -> str:
    return v if isinstance(v, str) else orjson.dumps(v).decode()


# ---------------------------------------------------------------------- WebSocket mode
TERMINAL = frozenset({"response.completed", "response.incomplete", "response.failed"})
_TRANSPORT_ONLY = ("type", "stream_id", "generate", "stream", "background")
"""Frame fields that are no part of the HTTP body (``stream``: every answer streams)."""


def _input_items(inp: Any) -> list[Any]:
    if isinstance(inp, str):
        return [{"role": "user", "content": inp}]
    return list(inp) if isinstance(inp, list) else []


class ResponsesSocket:
    """OpenAI's WebSocket mode of the Responses API (``GET /v1/responses`` upgraded), as the
    official client (``client.responses.connect()``) and Codex use it.

    A text frame ``{"type": "response.create", ...}`` holds the body of ``POST /v1/responses``
    (``stream`` and ``background`` aside: every answer streams; ``stream_id`` names a lane whose
    events carry it). With ``previous_response_id`` its ``input`` holds only the new items: the
    body is that response's input and output followed by them. ``generate: false`` warms up:
    ``response.created`` and ``response.completed`` with no output, whose id a later frame can
    continue. Errors are ``{"type": "error", "status": 429, "error": {type, code, message, param,
    headers}}`` (``headers`` also at the top, where Codex reads them)."""

    def turn(self, frame: dict[str, Any], recall: Callable[[str], list[Any] | None]) -> SocketTurn | SocketRefusal:
        lane = frame.get("stream_id")
        if lane is not None and not isinstance(lane, str):
            return SocketRefusal(400, f"stream_id must be a string, got {type(lane).__name__}", "invalid_type",
                                 "stream_id")
        kind = frame.get("type")
        if kind != "response.create":
            return SocketRefusal(400, f"unsupported event type {kind!r}: this WebSocket takes 'response.create'",
                                 "invalid_event", "type", lane)
        if frame.get("background"):
            return SocketRefusal(400, "background responses are not supported over WebSocket", "unsupported_parameter",
                                 "background", lane)
        body = {k: v for k, v in frame.items() if k not in _TRANSPORT_ONLY}
        prev = body.get("previous_response_id")
        if prev is not None:
            history = recall(prev) if isinstance(prev, str) else None
            if history is None:
                return SocketRefusal(400, f"Previous response with id {prev!r} not found.",
                                     "previous_response_not_found", "previous_response_id", lane)
            body["input"] = [*history, *_input_items(body.get("input"))]
        body["stream"] = True
        return SocketTurn(body, lane, frame.get("generate") is not False)

    def finished(self, event: dict[str, Any], body: dict[str, Any]) -> tuple[str, list[Any]] | None:
        if event.get("type") not in TERMINAL:
            return None
        resp = event.get("response")
        if not isinstance(resp, dict) or not isinstance(resp.get("id"), str):
            return None
        output = resp.get("output")
        return resp["id"], [*_input_items(body.get("input")), *(output if isinstance(output, list) else [])]

    def warmup(self, body: dict[str, Any], response_id: str) -> list[dict[str, Any]]:
        created = now()
        model = str(body.get("model") or "autocue-mock")
        usage = {"input_tokens": 0, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 0,
                 "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 0}
        return [
            {"type": "response.created", "sequence_number": 0,
             "response": _response_object(response_id, body, model, created, "in_progress", [], None)},
            {"type": "response.completed", "sequence_number": 1,
             "response": _response_object(response_id, body, model, created, "completed", [], usage)},
        ]

    def error_event(self, status: int, body: Any, headers: dict[str, str], lane: str | None) -> dict[str, Any]:
        err = body.get("error") if isinstance(body, dict) else None
        if not isinstance(err, dict):
            err = openai_error(status, str(body))["error"]
        event: dict[str, Any] = {"type": "error", "status": status, "error": dict(err)}
        if headers:
            event["error"]["headers"] = headers
            event["headers"] = headers
        if lane is not None:
            event["stream_id"] = lane
        return event

    def tag(self, event: dict[str, Any], lane: str) -> None:
        event["stream_id"] = lane


class ResponsesApi(WireApi):
    routes = (WireRoute("/v1/responses"), WireRoute("/responses"),
              # Azure OpenAI: the SDK's path (?api-version=...), a deployment's, and the v1 API
              WireRoute("/openai/responses"), WireRoute("/openai/deployments/{deployment}/responses"),
              WireRoute("/openai/v1/responses"))
    websocket_paths = ("/v1/responses", "/responses")
    socket = ResponsesSocket()
    surfaces = (
        Surface("POST", "/v1/responses", "SSE (`stream: true`)", also=("/responses",)),
        Surface("WEBSOCKET", "/v1/responses", "one JSON text frame per event", what="`response.create` frames, "
                "`previous_response_id` with incremental input, `stream_id` lanes", also=("/responses",)),
        Surface("POST", "/openai/responses", "SSE (`stream: true`)", what="Azure OpenAI, `?api-version=`",
                also=("/openai/deployments/{deployment}/responses", "/openai/v1/responses")),
    )
    history_key = "input"

    def claims(self, path: str) -> bool:
        return "/responses" in path and "/messages" not in path

    def model_call(self, path: str) -> bool:
        return path.endswith("/responses")

    def call(self, path: str) -> Call | None:
        return Call(model=deployment(path))

    def history(self, body: dict[str, Any], query: dict[str, str]) -> list[Any]:
        inp = body.get("input")
        if isinstance(inp, str):
            return [{"role": "user", "content": inp}]
        return inp if isinstance(inp, list) else []

    def tool_list(self, body: dict[str, Any], msgs: list[Any], headers: dict[str, str]) -> list[Any]:
        tools = body.get("tools")
        return with_namespaces(tools if isinstance(tools, list) else _additional_tools(msgs))

    def options(self, body: dict[str, Any], msgs: list[Any], query: dict[str, str],
                headers: dict[str, str]) -> dict[str, Any]:
        lite = headers.get(CODEX_LITE_HEADER, "").lower() in ("true", "1") or (
            not isinstance(body.get("tools"), list) and bool(_additional_tools(msgs)))
        return {"codex_lite": lite}

    def normalize_last(self, m: dict[str, Any]) -> LastMessage:
        if "role" not in m:
            typ = str(m.get("type") or "")
            if typ.endswith("_call_output"):
                out = _dumps(flatten(m.get("output")) if isinstance(m.get("output"), list) else m.get("output", ""))
                return LastMessage("tool", out, out)
            if typ.endswith("_call"):
                return LastMessage("assistant", _dumps(m.get("arguments") or m.get("input") or ""), "")
        return super().normalize_last(m)

    def add_to_context(self, b: ContextBuilder, m: dict[str, Any]) -> None:
        typ = m.get("type")
        if typ == "function_call":
            b.call(m.get("call_id", ""), m.get("name", ""), m.get("arguments"))
        elif typ == "function_call_output":
            b.result(m.get("call_id", ""), m.get("output"))
        elif typ == "reasoning":
            from autocue.llm.types import ThinkingContent

            b.assistant().content.append(ThinkingContent(flatten(m.get("summary"))))
        else:
            b.message(m)

    def validate(self, body: dict[str, Any], start: int = 0) -> None:
        shape.common(body, ("max_output_tokens",))
        shape.opt(body, "instructions", str, "a string")
        inp = body.get("input")
        if inp is None or isinstance(inp, str):
            return
        items = shape.array(inp, "input")
        for i in range(start, len(items)):
            item = items[i]
            w = f"input[{i}]"
            shape.obj(item, w)
            shape.opt(item, "type", str, "a string", w + ".")
            typ = item.get("type")
            if typ in (None, "message"):
                shape.one_of(item.get("role"), ROLES, w + ".role", "role")
                shape.parts(item.get("content"), w + ".content", PARTS, "content part", optional=False)
            elif typ in ("function_call", "custom_tool_call"):
                shape.string(item, "call_id", w)
                shape.string(item, "name", w)
            elif typ in ("function_call_output", "custom_tool_call_output"):
                shape.string(item, "call_id", w)

    def json_body(self, reply: Reply, req: WireRequest) -> dict[str, Any]:
        return json_body(reply, req)

    def stream(self, reply: Reply, req: WireRequest, fuzz: Fuzzer | None = None) -> Segments:
        return stream(reply, req, fuzz)

    async def read_reply(self, chunks: Sequence[Chunk], *, event_stream: bool, model: str) -> TimedReply:
        from autocue.llm.types import ToolCall

        got = await super().read_reply(chunks, event_stream=event_stream, model=model)
        for b in got.message.content:  # the provider's id is "<call_id>|<item id>": the call id is what a client sees
            if isinstance(b, ToolCall):
                b.id = b.id.partition("|")[0]
        return got

    def response_schema(self, body: dict[str, Any]) -> dict[str, Any] | None:
        """``text: {format: {type: json_schema, schema}}``."""
        fmt = schema_at(body, "text", "format")
        return schema_at(fmt, "schema") if fmt is not None and fmt.get("type") == "json_schema" else None


API = ResponsesApi()
