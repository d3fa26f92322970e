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

from typing import TYPE_CHECKING, Any

from autocue.mockllm.ids import make_id
from autocue.mockllm.incoming import Incoming
from autocue.mockllm.reply import Reply
from autocue.mockllm.wire.common import Segments, SegmentWriter, sse

if TYPE_CHECKING:  # fuzzing loads with the first fuzz spec
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


def json_body(reply: Reply, req: Incoming) -> dict[str, Any]:
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


def stream(reply: Reply, req: Incoming, fuzz: Fuzzer | None = None) -> Segments:
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
