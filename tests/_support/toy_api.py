"""A toy wire API in one file: ``POST /v1/toy/chat`` with a tiny JSON dialect.

Request: ``{"model", "stream", "system", "turns": [{"role": "user"|"bot"|"tool", "text"}],
"tools": [{"name"}]}``. Reply: ``{"say", "calls": [{"id", "name", "args"}], "stop"}``; streamed
as JSON lines (``{"say": piece}``, ``{"call": {...}}``, then ``{"stop": ...}``). Errors:
``{"toy_error": {"status", "message"}}``. Registered by ``tests/mockllm/test_wire_toy_api.py``
with ``autocue.mockllm.wire.registry.register``; nothing else of autocue changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

from autocue.catalog.apis import ApiEntry
from autocue.llm.types import AssistantMessage, TextContent, ToolCall
from autocue.mockllm.reply import Reply
from autocue.mockllm.wire import shape
from autocue.mockllm.wire.api import Chunk, WireApi, WireRequest, WireRoute
from autocue.mockllm.wire.common import Segments, SegmentWriter
from autocue.mockllm.wire.fuzz import Fuzzer
from autocue.scenario.writer import TimedReply

ENTRY = ApiEntry("toy", "toy", "Toy Chat", "", "toy_api")
PATH = "/v1/toy/chat"
MEDIA = "application/x-ndjson"
ROLES = ("user", "bot", "tool")
_STOP = {"stop": "done", "length": "cut", "toolUse": "calls"}


class ToyApi(WireApi):
    routes = (WireRoute(PATH),)
    history_key = "turns"
    tool_id_prefix = "toy_"

    def claims(self, path: str) -> bool:
        return path.startswith("/v1/toy/")

    def model_call(self, path: str) -> bool:
        return path == PATH

    def message_text(self, m: dict[str, Any]) -> str:
        return str(m.get("text") or "")

    def validate(self, body: dict[str, Any], start: int = 0) -> None:
        shape.common(body, ())
        turns = shape.required_list(body, "turns")
        for i in range(start, len(turns)):
            t = shape.obj(turns[i], f"turns[{i}]")
            shape.one_of(t.get("role"), ROLES, f"turns[{i}].role", "role")
            shape.string(t, "text", f"turns[{i}]")

    def error_body(self, status: int, message: str, *, kind: str | None = None, code: str | None = None,
                   request_id: str = "req_autocue") -> dict[str, Any]:
        return {"toy_error": {"status": status, "message": message}}

    def json_body(self, reply: Reply, req: WireRequest) -> dict[str, Any]:
        return {"say": "".join(b.text for b in reply.blocks if b.kind == "text"),
                "calls": [{"id": b.id, "name": b.name, "args": b.args} for b in reply.blocks if b.kind == "call"],
                "stop": _STOP.get(reply.stop_reason, "done")}

    def stream(self, reply: Reply, req: WireRequest, fuzz: Fuzzer | None = None) -> Segments:
        w = SegmentWriter(fuzz, sse=False)
        for b in reply.blocks:
            w.pause(b.delay)
            if b.kind == "text":
                for piece in w.pieces(b.text):
                    w.add(orjson.dumps({"say": piece}) + b"\n")
            elif b.kind == "call":
                w.add(orjson.dumps({"call": {"id": b.id, "name": b.name, "args": b.args}}) + b"\n")
        w.add(orjson.dumps({"stop": _STOP.get(reply.stop_reason, "done")}) + b"\n")
        return w.done()

    def media_type(self, req: WireRequest) -> str:
        return MEDIA

    async def read_reply(self, chunks: Sequence[Chunk], *, event_stream: bool, model: str) -> TimedReply:
        raw = b"".join(c for _, c in chunks)
        end = chunks[-1][0] if chunks else 0.0
        lines = [orjson.loads(x) for x in raw.splitlines() if x.strip()]
        if len(lines) == 1 and "say" in lines[0] and "stop" in lines[0]:  # a whole reply
            whole = lines[0]
            lines = [{"say": whole["say"]}, *({"call": c} for c in whole["calls"]), {"stop": whole["stop"]}]
        msg = AssistantMessage(api="toy", provider="recorded", model=model)
        text = "".join(x["say"] for x in lines if "say" in x)
        if text:
            msg.content.append(TextContent(text))
        calls = [x["call"] for x in lines if "call" in x]
        msg.content.extend(ToolCall(c["id"], c["name"], c["args"]) for c in calls)
        stop = next((x["stop"] for x in lines if "stop" in x), "done")
        msg.stop_reason = {v: k for k, v in _STOP.items()}.get(stop, "stop")  # type: ignore[assignment]
        return TimedReply(msg, [end] * len(msg.content), end)


API = ToyApi()
