"""OpenAI Chat Completions (``POST /v1/chat/completions``).

Streaming: one ``chatcmpl-`` id for every chunk; a role chunk, content deltas, tool calls
streamed as ``delta.tool_calls[{index, id, type, function{name, arguments: ""}}]`` followed by
argument fragments, a final chunk with ``finish_reason`` (``stop`` / ``tool_calls`` /
``length``), a separate usage chunk with ``choices: []`` when ``stream_options.include_usage``
is set, then ``data: [DONE]``. Thinking is never exposed (as the real API). Several text
blocks are joined with ``"\\n"``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson

from autocue.mockllm.ids import make_id
from autocue.mockllm.incoming import Incoming
from autocue.mockllm.reply import Reply
from autocue.mockllm.wire.common import Segments, SegmentWriter, now

if TYPE_CHECKING:  # fuzzing loads with the first fuzz spec
    from autocue.mockllm.wire.fuzz import Fuzzer

FINISH = {"stop": "stop", "length": "length", "toolUse": "tool_calls"}
DONE = b"data: [DONE]\n\n"


def _usage(reply: Reply) -> dict[str, Any]:
    return {
        "prompt_tokens": reply.input_tokens,
        "completion_tokens": reply.output_tokens,
        "total_tokens": reply.input_tokens + reply.output_tokens,
        "prompt_tokens_details": {"cached_tokens": reply.cache_read, "audio_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": reply.thinking_tokens, "audio_tokens": 0,
                                      "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0},
    }


def json_body(reply: Reply, req: Incoming) -> dict[str, Any]:
    texts = [b.text for b in reply.blocks if b.kind == "text"]
    message: dict[str, Any] = {
        "role": "assistant",
        "content": "\n".join(texts) if texts else None,
        "refusal": None,
        "annotations": [],
    }
    calls = [
        {"id": b.id, "type": "function", "function": {"name": b.name, "arguments": b.args_json}}
        for b in reply.blocks
        if b.kind == "call"
    ]
    if calls:
        message["tool_calls"] = calls
    return {
        "id": make_id("chatcmpl-", reply.seed),
        "object": "chat.completion",
        "created": now(),
        "model": req.model,
        "choices": [{"index": 0, "message": message, "logprobs": None,
                     "finish_reason": FINISH.get(reply.stop_reason, "stop")}],
        "usage": _usage(reply),
        "system_fingerprint": "fp_autocue",
    }


def stream(reply: Reply, req: Incoming, fuzz: Fuzzer | None = None) -> Segments:
    cid = make_id("chatcmpl-", reply.seed)
    created = now()
    model = req.model
    with_usage = req.include_usage
    # Every chunk shares this prefix; only the choice differs.
    head = b'data: {"id":' + orjson.dumps(cid) + b',"object":"chat.completion.chunk","created":' + str(created).encode()
    head += b',"model":' + orjson.dumps(model) + b',"system_fingerprint":"fp_autocue"'
    tail = b',"usage":null}\n\n' if with_usage else b"}\n\n"

    def frame(delta: dict[str, Any], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return head + b',"choices":[' + orjson.dumps(choice) + b"]" + tail

    w = SegmentWriter(fuzz)
    w.add(frame({"role": "assistant", "content": "", "refusal": None}))
    seen_text = False
    calls: list[list[bytes]] = []
    call_index = 0
    for b in reply.blocks:
        if b.kind == "thinking":
            w.pause(b.delay)
            continue
        if b.kind == "text":
            w.pause(b.delay)
            text = ("\n" + b.text) if seen_text else b.text
            seen_text = True
            for piece in w.pieces(text):
                if piece or (fuzz is not None and fuzz.spec.empty):
                    w.add(frame({"content": piece}))
        else:
            k = call_index
            call_index += 1
            run = [frame({"tool_calls": [{"index": k, "id": b.id, "type": "function",
                                          "function": {"name": b.name, "arguments": ""}}]})]
            run += [frame({"tool_calls": [{"index": k, "function": {"arguments": piece}}]})
                    for piece in w.pieces(w.args(b.args, b.args_json))]
            if fuzz is None or b.delay > 0:
                w.pause(b.delay)
                for f in run:
                    w.add(f)
            else:
                calls.append(run)
    # Parallel calls of a fuzzed reply: their deltas interleaved (each call's own order kept).
    for f in fuzz.interleave(calls) if fuzz is not None else []:
        w.add(f)
    w.add(frame({}, FINISH.get(reply.stop_reason, "stop")))
    if with_usage:
        w.add(head + b',"choices":[],"usage":' + orjson.dumps(_usage(reply)) + b"}\n\n")
    w.add(DONE)
    return w.done()
