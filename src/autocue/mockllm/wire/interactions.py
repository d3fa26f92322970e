"""Gemini Interactions (``POST /v1/interactions`` as google-genai 3.x sends it, ``/v1beta/interactions``
as the REST docs name it; ``GET /v1[beta]/interactions/{id}`` reads a stored one back).

The request: ``model`` (or ``agent``), ``input`` (a string, a content block, a list of content
blocks, a list of steps, or legacy ``{role, content}`` turns), ``system_instruction`` (a string),
``tools`` (``{"type": "function", "name", "description", "parameters"}``), ``generation_config``,
``previous_interaction_id`` (the server keeps each interaction's input and steps, so the client
sends only what is new: ``WireApi.expand`` spells the history out before anything reads it),
``stream``, ``store``. Steps: ``user_input`` / ``model_output`` (``content``: ``[{"type": "text",
"text"}]``), ``thought`` (``signature``, ``summary``), ``function_call`` (``id``, ``name``,
``arguments``), ``function_result`` (``call_id``, ``name``, ``result``).

The answer is an ``Interaction``: ``id``, ``status`` (``completed``, ``requires_action`` when it
calls functions, ``incomplete`` at the token limit), ``steps`` (a thought carries the signature
of the calls after it) and ``usage``. Streamed, it is SSE with ``event_type``d events, each with an
``event_id`` a client can resume after (``GET ...?stream=true&last_event_id=``):
``interaction.created``, per step ``step.start`` / ``step.delta`` (``text``, ``thought_summary``,
``thought_signature``, ``arguments_delta``) / ``step.stop``, then ``interaction.completed``.
Errors are the Interactions API's ``{"error": {"code": "invalid_request", "message"}}`` (a string code,
unlike generateContent's ``{"code": 400, "message", "status": "INVALID_ARGUMENT"}``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import orjson

from autocue.mockllm.ids import digest
from autocue.mockllm.wire import shape
from autocue.mockllm.wire.api import Call, Kept, LastMessage, Surface, WireApi, WireRequest, WireRoute, flatten
from autocue.mockllm.wire.common import Segments, SegmentWriter

if TYPE_CHECKING:
    from autocue.mockllm.reply import Reply
    from autocue.mockllm.wire.context import ContextBuilder
    from autocue.mockllm.wire.fuzz import Fuzzer
    from autocue.mockllm.wire.view import Chunk
    from autocue.scenario.writer import TimedReply

ROLE = {"user_input": "user", "model_output": "model", "thought": "model", "function_call": "model",
        "function_result": "tool"}
"""The role of each step type (what ``RequestView`` reads: ``user``, ``model``, ``tool``)."""
_PREFIXES = ("/v1/interactions", "/v1beta/interactions")
ERROR_CODE = {400: "invalid_request", 401: "authentication", 402: "payment_required", 403: "permission_denied",
              404: "not_found", 413: "invalid_request", 415: "invalid_request", 429: "rate_limit_exceeded",
              500: "internal", 503: "unavailable", 504: "deadline_exceeded", 529: "unavailable"}
"""The Interactions API's error ``code`` per HTTP status (a string: ``{"error": {"code", "message"}}``)."""


def interaction_id(reply: Reply) -> str:
    return "v1_" + digest(reply.seed, "interaction", size=16)


def _iso(t: float | None = None) -> str:
    return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if t else \
        datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _status(reply: Reply) -> str:
    if reply.has_calls:
        return "requires_action"
    return "incomplete" if reply.stop_reason == "length" else "completed"


def _usage(reply: Reply) -> dict[str, Any]:
    return {"total_input_tokens": reply.input_tokens, "total_cached_tokens": reply.cache_read,
            "total_output_tokens": max(0, reply.output_tokens - reply.thinking_tokens),
            "total_thought_tokens": reply.thinking_tokens, "total_tool_use_tokens": 0,
            "total_tokens": reply.input_tokens + reply.output_tokens}


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def output_steps(reply: Reply) -> list[dict[str, Any]]:
    """The steps of a reply: thinking → ``thought`` (summary and signature), text → ``model_output``,
    a call → ``function_call``."""
    out: list[dict[str, Any]] = []
    for b in reply.blocks:
        if b.kind == "thinking":
            out.append({"type": "thought", "signature": b.signature, "summary": [_text(b.text)]})
        elif b.kind == "text":
            out.append({"type": "model_output", "content": [_text(b.text)]})
        else:
            out.append({"type": "function_call", "id": b.id, "name": b.name, "arguments": b.args})
    return out


def _head(reply: Reply, req: WireRequest, status: str) -> dict[str, Any]:
    return {"id": interaction_id(reply), "object": "interaction", "model": req.model, "status": status,
            "created": _iso(), "updated": _iso()}


def json_body(reply: Reply, req: WireRequest) -> dict[str, Any]:
    out = _head(reply, req, _status(reply))
    out["role"] = "model"
    out["steps"] = output_steps(reply)
    out["usage"] = _usage(reply)
    prev = req.body.get("previous_interaction_id")
    if isinstance(prev, str):
        out["previous_interaction_id"] = prev
    return out


def events(reply: Reply, req: WireRequest, pieces: Callable[[str], list[str]],
           args: Callable[[dict[str, Any], str], str]) -> list[tuple[float, dict[str, Any]]]:
    """``(delay, event)`` of a streamed interaction, each event with its ``event_id``."""
    ev: list[tuple[float, dict[str, Any]]] = [(0.0, {"event_type": "interaction.created",
                                                     "interaction": _head(reply, req, "in_progress")})]
    for i, b in enumerate(reply.blocks):
        if b.kind == "thinking":
            start: dict[str, Any] = {"type": "thought"}
            deltas = [{"type": "thought_summary", "content": _text(p)} for p in pieces(b.text) if p]
            deltas.append({"type": "thought_signature", "signature": b.signature})
        elif b.kind == "text":
            start = {"type": "model_output"}
            deltas = [{"type": "text", "text": p} for p in pieces(b.text) if p]
        else:
            start = {"type": "function_call", "id": b.id, "name": b.name, "arguments": {}}
            deltas = [{"type": "arguments_delta", "arguments": p} for p in pieces(args(b.args, b.args_json)) if p]
        ev.append((b.delay, {"event_type": "step.start", "index": i, "step": start}))
        ev += [(0.0, {"event_type": "step.delta", "index": i, "delta": d}) for d in deltas]
        ev.append((0.0, {"event_type": "step.stop", "index": i}))
    done = _head(reply, req, _status(reply))
    done["usage"] = _usage(reply)
    ev.append((0.0, {"event_type": "interaction.completed", "interaction": done}))
    for n, (_, e) in enumerate(ev, 1):
        e["event_id"] = f"evt_{n}"
    return ev


def stream(reply: Reply, req: WireRequest, fuzz: Fuzzer | None = None, after: str | None = None) -> Segments:
    w = SegmentWriter(fuzz)
    evs = events(reply, req, w.pieces, w.args)
    if after is not None:
        ids = [e["event_id"] for _, e in evs]
        evs = evs[ids.index(after) + 1:] if after in ids else evs
    for delay, e in evs:
        w.pause(delay)
        w.event(e["event_type"], e)
    return w.done()


# ---------------------------------------------------------------------- the request
STEP_TYPES = frozenset({*ROLE, "code_execution_call", "code_execution_result", "google_search_call",
                        "google_search_result", "url_context_call", "url_context_result", "file_search_call",
                        "file_search_result", "google_maps_call", "google_maps_result", "mcp_server_tool_call",
                        "mcp_server_tool_result"})
CONTENT_TYPES = frozenset({"text", "image", "audio", "document", "video"})


def input_steps(value: Any) -> list[Any]:
    """The ``input`` of a request as steps: a string or content blocks make one ``user_input``;
    ``{role, content}`` turns become ``user_input`` / ``model_output`` steps."""
    if value is None:
        return []
    if isinstance(value, str):
        return [{"type": "user_input", "content": [_text(value)]}]
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list):
        return []
    out: list[Any] = []
    pending: list[Any] = []
    for item in value:
        if isinstance(item, dict) and item.get("type") not in STEP_TYPES and "role" not in item:
            pending.append(item if "type" in item else {**item, "type": "text"})
            continue
        if pending:
            out.append({"type": "user_input", "content": pending})
            pending = []
        if isinstance(item, dict) and "role" in item and "type" not in item:
            content = item.get("content")
            blocks = [_text(content)] if isinstance(content, str) else content if isinstance(content, list) else []
            out.append({"type": "model_output" if item["role"] == "model" else "user_input", "content": blocks})
        else:
            out.append(item)
    if pending:
        out.append({"type": "user_input", "content": pending})
    return out


def _content(c: Any, w: str) -> None:
    shape.obj(c, w)
    kind = c.get("type", "text" if "text" in c else None)
    if not isinstance(kind, str) or kind not in CONTENT_TYPES:
        raise shape.MalformedRequestError(f"{w}.type must be one of {', '.join(sorted(CONTENT_TYPES))}, "
                                          f"got {kind!r}")
    if kind == "text":
        shape.string(c, "text", w)


def _step(s: Any, w: str) -> None:
    shape.obj(s, w)
    if "role" in s and "type" not in s:  # a legacy turn
        shape.string(s, "role", w)
        content = s.get("content")
        if not isinstance(content, str):
            for j, c in enumerate(shape.array(content, w + ".content")):
                _content(c, f"{w}.content[{j}]")
        return
    kind = s.get("type")
    if kind is not None and not isinstance(kind, str):
        raise shape.fail(w + ".type", "a string", kind)
    if kind not in STEP_TYPES:
        if kind in CONTENT_TYPES or "text" in s:
            _content(s, w)
            return
        raise shape.MalformedRequestError(f"{w}.type must be a step type (user_input, model_output, thought, "
                                          f"function_call, function_result, ...) or a content type, got {kind!r}")
    if kind in ("user_input", "model_output"):
        content = s.get("content")
        for j, c in enumerate(shape.array(content, w + ".content") if content is not None else []):
            _content(c, f"{w}.content[{j}]")
    elif kind == "function_call":
        shape.string(s, "name", w)
        shape.string(s, "id", w)
        shape.opt(s, "arguments", dict, "an object", w + ".")
    elif kind == "function_result":
        shape.string(s, "call_id", w)
        if "result" not in s:
            raise shape.MalformedRequestError(f"{w}.result is required")
    elif kind == "thought":
        shape.opt(s, "signature", str, "a string", w + ".")


class InteractionsApi(WireApi):
    routes = (WireRoute("/v1/interactions"), WireRoute("/v1beta/interactions"),
              WireRoute("/v1/interactions/{id}", ("GET",)), WireRoute("/v1beta/interactions/{id}", ("GET",)))
    surfaces = (
        Surface("POST", "/v1beta/interactions", "SSE of typed `step.*` events with resumable `event_id`s",
                also=("/v1/interactions",)),
        Surface("GET", "/v1beta/interactions/{id}", "SSE after `last_event_id` (`stream=true`)",
                what="a kept interaction", also=("/v1/interactions/{id}",)),
    )
    history_key = "input"

    def claims(self, path: str) -> bool:
        return path.startswith(_PREFIXES)

    def model_call(self, path: str) -> bool:
        return path in _PREFIXES

    def call(self, path: str) -> Call | None:
        if path in _PREFIXES:
            return Call()
        rest = path.partition("/interactions/")[2]
        return Call(stored=rest) if rest and "/" not in rest else None

    # ------------------------------------------------------------------ stored context
    def expand(self, body: dict[str, Any], kept: Callable[[str], Kept | None]) -> dict[str, Any]:
        prev = body.get("previous_interaction_id")
        if not isinstance(prev, str) or not prev:
            return body
        got = kept(prev)
        if got is None:
            raise LookupError(f"previous_interaction_id {prev!r}: no such interaction on this server (unknown, "
                              "not stored with store: false, or evicted)")
        return {**body, "input": [*got.context, *input_steps(body.get("input"))]}

    def keep(self, req: WireRequest, reply: Reply) -> tuple[str, list[Any]] | None:
        if req.body.get("store") is False:
            return None
        return interaction_id(reply), [*input_steps(req.body.get("input")), *output_steps(reply)]

    def resume(self, kept: Kept, after: str | None) -> Segments:
        return stream(kept.reply, kept.req, None, after)

    # ------------------------------------------------------------------ reading
    def history(self, body: dict[str, Any], query: dict[str, str]) -> list[Any]:
        return [{**s, "role": ROLE.get(str(s.get("type")), "user")} if isinstance(s, dict) else s
                for s in input_steps(body.get("input"))]

    def message_text(self, m: dict[str, Any]) -> str:
        kind = m.get("type")
        if kind == "function_result":
            return _dumps(m.get("result"))
        if kind == "thought":
            return flatten(m.get("summary"))
        return flatten(m.get("content"))

    def system_text(self, body: dict[str, Any], msgs: list[Any]) -> str:
        return flatten(body.get("system_instruction"))

    def normalize_last(self, m: dict[str, Any]) -> LastMessage:
        role = m.get("role")
        text = self.message_text(m)
        if role == "tool":
            return LastMessage("tool", text, text)
        return LastMessage("assistant" if role == "model" else "user", text, "")

    def add_to_context(self, b: ContextBuilder, m: dict[str, Any]) -> None:
        from autocue.llm.types import TextContent, ThinkingContent

        kind = m.get("type")
        if kind == "function_call":
            b.call(str(m.get("id") or m.get("name") or ""), str(m.get("name") or ""), m.get("arguments"))
        elif kind == "function_result":
            b.result(str(m.get("call_id") or ""), self.message_text(m), bool(m.get("is_error")))
        elif kind == "thought":
            b.assistant().content.append(ThinkingContent(self.message_text(m), m.get("signature")))
        elif kind == "model_output":
            b.assistant().content.append(TextContent(self.message_text(m)))
        else:
            b.user(self.message_text(m))

    # ------------------------------------------------------------------ checking
    def validate(self, body: dict[str, Any], start: int = 0) -> None:
        if not isinstance(body.get("model"), str) and not isinstance(body.get("agent"), str):
            raise shape.MalformedRequestError("model (or agent) is required: a string such as 'gemini-3-flash'")
        for key in ("stream", "store", "background"):
            shape.opt(body, key, bool, "a boolean")
        shape.opt(body, "system_instruction", str, "a string")
        shape.opt(body, "generation_config", dict, "an object")
        shape.opt(body, "previous_interaction_id", str, "a string")
        value = body.get("input")
        if value is None:
            if not body.get("previous_interaction_id") and not body.get("continuation_token"):
                raise shape.MalformedRequestError("input is required (a string, content or steps)")
        elif isinstance(value, dict):
            _step(value, "input")
        elif isinstance(value, list):
            for i in range(start, len(value)):
                _step(value[i], f"input[{i}]")
        elif not isinstance(value, str):
            raise shape.fail("input", "a string, a content object or a list of content or steps", value)
        tools = body.get("tools")
        for i, t in enumerate(shape.array(tools, "tools") if tools is not None else []):
            shape.obj(t, f"tools[{i}]")
            if t.get("type") == "function":
                shape.string(t, "name", f"tools[{i}]")

    def error_body(self, status: int, message: str, *, kind: str | None = None, code: str | None = None,
                   request_id: str = "req_autocue") -> dict[str, Any]:
        return {"error": {"code": ERROR_CODE.get(status) or ("internal" if status >= 500 else "invalid_request"),
                          "message": message}}

    # ------------------------------------------------------------------ rendering
    def json_body(self, reply: Reply, req: WireRequest) -> dict[str, Any]:
        return json_body(reply, req)

    def stream(self, reply: Reply, req: WireRequest, fuzz: Fuzzer | None = None) -> Segments:
        return stream(reply, req, fuzz)

    # ------------------------------------------------------------------ recording
    async def read_reply(self, chunks: Sequence[Chunk], *, event_stream: bool, model: str) -> TimedReply:
        return read_reply(chunks, event_stream=event_stream, model=model, api=self.entry.name)


def _dumps(v: Any) -> str:
    return v if isinstance(v, str) else flatten(v) or orjson.dumps(v).decode()


def read_reply(chunks: Sequence[Chunk], *, event_stream: bool, model: str, api: str) -> TimedReply:
    """A recorded interaction (its steps, or its events) as an assistant message."""
    from autocue.llm.types import AssistantMessage, StopReason, Usage
    from autocue.mockllm.wire.readback import wire_items
    from autocue.scenario.writer import TimedReply

    steps: dict[int, dict[str, Any]] = {}
    times: dict[int, float] = {}
    head: dict[str, Any] = {}
    end = chunks[-1][0] if chunks else 0.0
    for t, item in wire_items(chunks, event_stream=event_stream):
        data = item.data  # an SSE event's text, or a whole JSON body
        if isinstance(data, str):
            try:
                data = orjson.loads(data)
            except orjson.JSONDecodeError:
                continue
        if not isinstance(data, dict):
            continue
        kind = data.get("event_type")
        if kind is None and isinstance(data.get("steps"), list):  # a whole interaction
            head = data
            for i, s in enumerate(data["steps"]):
                if isinstance(s, dict):
                    steps[i], times[i] = s, t
        elif kind in ("interaction.created", "interaction.completed") and isinstance(data.get("interaction"), dict):
            head = {**head, **data["interaction"]}
        elif kind == "step.start" and isinstance(data.get("step"), dict):
            i = int(data.get("index", len(steps)))
            steps[i], times[i] = _opened(data["step"]), t
        elif kind == "step.delta" and isinstance(data.get("delta"), dict):
            _apply(steps.setdefault(int(data.get("index", 0)), {}), data["delta"])
    content = [c for i in sorted(steps) if (c := _block(steps[i])) is not None]
    block_times = [times.get(i, end) for i in sorted(steps) if _block(steps[i]) is not None]
    u: dict[str, Any] = head["usage"] if isinstance(head.get("usage"), dict) else {}
    thought = int(u.get("total_thought_tokens") or 0)
    usage = Usage(int(u.get("total_input_tokens") or 0), int(u.get("total_output_tokens") or 0) + thought,
                  int(u.get("total_cached_tokens") or 0), 0, int(u.get("total_tokens") or 0))
    status = head.get("status")
    stop: StopReason = "toolUse" if status == "requires_action" else "length" if status == "incomplete" else "stop"
    msg = AssistantMessage(content, api=api, provider="recorded", model=str(head.get("model") or model),
                           usage=usage, stop_reason=stop, response_id=head.get("id"))
    return TimedReply(msg, block_times, end)


def _opened(step: dict[str, Any]) -> dict[str, Any]:
    s = dict(step)
    if s.get("type") == "function_call":
        s["_args"] = ""
    return s


def _apply(step: dict[str, Any], delta: dict[str, Any]) -> None:
    kind = delta.get("type")
    if kind == "text":
        step.setdefault("content", []).append(_text(str(delta.get("text") or "")))
    elif kind == "thought_summary" and isinstance(delta.get("content"), dict):
        step.setdefault("summary", []).append(delta["content"])
    elif kind == "thought_signature":
        step["signature"] = delta.get("signature")
    elif kind == "arguments_delta":
        step["_args"] = step.get("_args", "") + str(delta.get("arguments") or "")


def _block(s: dict[str, Any]) -> Any:
    from autocue.llm.types import TextContent, ThinkingContent, ToolCall

    kind = s.get("type")
    if kind == "thought":
        return ThinkingContent("".join(c.get("text", "") for c in s.get("summary") or [] if isinstance(c, dict)),
                               s.get("signature"))
    if kind == "model_output":
        return TextContent("".join(c.get("text", "") for c in s.get("content") or [] if isinstance(c, dict)))
    if kind == "function_call":
        args: dict[str, Any] = s["arguments"] if isinstance(s.get("arguments"), dict) else {}
        if s.get("_args"):
            try:
                parsed = orjson.loads(s["_args"])
            except orjson.JSONDecodeError:
                parsed = {}
            args = parsed if isinstance(parsed, dict) else {}
        return ToolCall(str(s.get("id") or ""), str(s.get("name") or ""), args)
    return None


API = InteractionsApi()
