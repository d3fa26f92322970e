"""OpenAI Responses (``POST /v1/responses``).

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

from autocue.mockllm.ids import make_id
from autocue.mockllm.incoming import Incoming
from autocue.mockllm.reply import Block, Reply
from autocue.mockllm.wire.common import Segments, SegmentWriter, now

if TYPE_CHECKING:  # fuzzing loads with the first fuzz spec
    from autocue.mockllm.wire.fuzz import Fuzzer


def _usage(reply: Reply) -> dict[str, Any]:
    return {
        "input_tokens": reply.input_tokens,
        "input_tokens_details": {"cached_tokens": reply.cache_read, "cache_write_tokens": 0},
        "output_tokens": reply.output_tokens,
        "output_tokens_details": {"reasoning_tokens": reply.thinking_tokens},
        "total_tokens": reply.input_tokens + reply.output_tokens,
    }


def _response(reply: Reply, req: Incoming, created: int, status: str, output: list[Any],
              usage: dict[str, Any] | None) -> dict[str, Any]:
    b = req.body
    return {
        "id": make_id("resp_", reply.seed),
        "object": "response",
        "created_at": created,
        "status": status,
        "background": False,
        "completed_at": created if status == "completed" else None,
        "error": None,
        "incomplete_details": {"reason": "max_output_tokens"} if status == "incomplete" else None,
        "instructions": b.get("instructions"),
        "max_output_tokens": b.get("max_output_tokens"),
        "model": req.model,
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


def _wants_encrypted(req: Incoming) -> bool:
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


def json_body(reply: Reply, req: Incoming) -> dict[str, Any]:
    enc = _wants_encrypted(req)
    output = [_item(reply, i, b, True, enc) for i, b in enumerate(reply.blocks)]
    return _response(reply, req, now(), _status(reply), output, _usage(reply))


def stream(reply: Reply, req: Incoming, fuzz: Fuzzer | None = None) -> Segments:
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
