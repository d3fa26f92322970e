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
from autocue.mockllm.wire import shape
from autocue.mockllm.wire.api import WireApi, WireRequest, WireRoute
from autocue.mockllm.wire.common import Segments, SegmentWriter, now

if TYPE_CHECKING:  # fuzzing loads with the first fuzz spec
    from autocue.mockllm.reply import Reply
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


def json_body(reply: Reply, req: WireRequest) -> dict[str, Any]:
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


def stream(reply: Reply, req: WireRequest, fuzz: Fuzzer | None = None) -> Segments:
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


# ---------------------------------------------------------------------- the request
ROLES = ("system", "developer", "user", "assistant", "tool", "function")
PARTS = ("text", "image_url", "input_audio", "file", "refusal")
_ROLE_SET = frozenset(ROLES)
_STR_OR_NONE = (str, type(None))


def _plain_call(tc: Any) -> bool:
    fn = tc.get("function") if type(tc) is dict else False
    return fn is not False and isinstance(tc.get("id"), _STR_OR_NONE) and (
        fn is None or (type(fn) is dict and type(fn.get("name")) is str
                       and isinstance(fn.get("arguments"), _STR_OR_NONE)))


def _plain_message(m: Any) -> bool:
    """A message with a known role, string (or no) content, a string (or no) ``tool_call_id``
    and well-formed (or no) tool calls: valid, without building the paths an error would name."""
    role = m.get("role") if type(m) is dict else None
    if not (type(role) is str and role in _ROLE_SET and isinstance(m.get("content"), _STR_OR_NONE)
            and isinstance(m.get("tool_call_id"), _STR_OR_NONE)):
        return False
    calls = m.get("tool_calls")
    return calls is None or (type(calls) is list and all(_plain_call(tc) for tc in calls))


def _check(b: dict[str, Any], start: int) -> None:
    shape.common(b, ("max_tokens", "max_completion_tokens", "n"))
    msgs = shape.required_list(b, "messages")
    for i in range(start, len(msgs)):
        m = msgs[i]
        if _plain_message(m):
            continue
        w = f"messages[{i}]"
        shape.obj(m, w)
        shape.one_of(m.get("role"), ROLES, w + ".role", "role")
        shape.parts(m.get("content"), w + ".content", PARTS, "content part")
        shape.opt(m, "tool_call_id", str, "a string", w + ".")
        calls = m.get("tool_calls")
        if calls is not None:
            for j, tc in enumerate(shape.array(calls, w + ".tool_calls")):
                wc = f"{w}.tool_calls[{j}]"
                shape.opt(shape.obj(tc, wc), "id", str, "a string", wc + ".")
                fn = tc.get("function")
                if fn is not None:
                    shape.string(shape.obj(fn, wc + ".function"), "name", wc + ".function")
                    shape.opt(fn, "arguments", str, "a string", wc + ".function.")
    for i, t in enumerate(b.get("tools") or []):
        fn = t.get("function")
        if fn is not None and not (type(fn) is dict and type(fn.get("name")) is str):
            shape.string(shape.obj(fn, f"tools[{i}].function"), "name", f"tools[{i}].function")


class ChatApi(WireApi):
    routes = (WireRoute("/v1/chat/completions"), WireRoute("/chat/completions"))

    def claims(self, path: str) -> bool:
        return path.endswith("/chat/completions")

    def model_call(self, path: str) -> bool:
        return path.endswith("/chat/completions")

    def flat_items(self, items: list[Any]) -> bool:
        """Plain messages nest 6 levels at most, and are valid: no walk needed."""
        return all(map(_plain_message, items))

    def validate(self, body: dict[str, Any], start: int = 0) -> None:
        _check(body, start)

    def options(self, body: dict[str, Any], msgs: list[Any], query: dict[str, str],
                headers: dict[str, str]) -> dict[str, Any]:
        so = body.get("stream_options")
        return {"include_usage": isinstance(so, dict) and bool(so.get("include_usage"))}

    def json_body(self, reply: Reply, req: WireRequest) -> dict[str, Any]:
        return json_body(reply, req)

    def stream(self, reply: Reply, req: WireRequest, fuzz: Fuzzer | None = None) -> Segments:
        return stream(reply, req, fuzz)


API = ChatApi()
