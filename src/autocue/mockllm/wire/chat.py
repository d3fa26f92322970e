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
from autocue.mockllm.wire.api import Call, Surface, WireApi, WireRequest, WireRoute
from autocue.mockllm.wire.common import Segments, SegmentWriter, now
from autocue.mockllm.wire.view import deployment, schema_at

if TYPE_CHECKING:  # fuzzing loads with the first fuzz spec
    from autocue.mockllm.embeddings import EmbedRequest
    from autocue.mockllm.reply import Reply
    from autocue.mockllm.wire.fuzz import Fuzzer

def _b64(v: list[float]) -> str:
    """A vector as OpenAI's ``encoding_format: base64`` sends it: little-endian float32s."""
    import base64
    import struct

    return base64.b64encode(struct.pack(f"<{len(v)}f", *v)).decode()


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
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    for b in reply.blocks:
        if b.kind == "text":
            texts.append(b.text)
        elif b.kind == "call":
            calls.append({"id": b.id, "type": "function", "function": {"name": b.name, "arguments": b.args_json}})
    message: dict[str, Any] = {
        "role": "assistant",
        "content": "\n".join(texts) if texts else None,
        "refusal": None,
        "annotations": [],
    }
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
    return calls is None or (type(calls) is list and all(map(_plain_call, calls)))


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


def _embed_inputs(body: dict[str, Any]) -> list[str]:
    """``input``: a string, a list of strings, or token ids (one list, or a list of lists)."""
    inp = body.get("input")
    if isinstance(inp, str):
        return [inp]
    if isinstance(inp, list) and inp:
        if all(isinstance(x, str) for x in inp):
            return list(inp)
        if all(isinstance(x, int) for x in inp):
            return [" ".join(map(str, inp))]
        if all(isinstance(x, list) and all(isinstance(y, int) for y in x) for x in inp):
            return [" ".join(map(str, x)) for x in inp]
    raise shape.fail("input", "a string, a non-empty list of strings, or token ids", inp)


class ChatApi(WireApi):
    """Chat Completions, and OpenAI's embeddings (``POST /v1/embeddings``)."""

    routes = (WireRoute("/v1/chat/completions"), WireRoute("/chat/completions"), WireRoute("/v1/embeddings"),
              WireRoute("/embeddings"),
              # OpenRouter (and other OpenAI-compatible gateways under /api/v1)
              WireRoute("/api/v1/chat/completions"), WireRoute("/api/v1/embeddings"),
              WireRoute("/api/v1/models", ("GET",)),
              # Azure OpenAI: deployment paths (?api-version=...) and the v1 API
              WireRoute("/openai/deployments/{deployment}/chat/completions"),
              WireRoute("/openai/deployments/{deployment}/embeddings"),
              WireRoute("/openai/v1/chat/completions"), WireRoute("/openai/v1/embeddings"),
              WireRoute("/openai/v1/models", ("GET",)))
    surfaces = (
        Surface("POST", "/v1/chat/completions", "SSE (`stream: true`)", also=("/chat/completions",)),
        Surface("POST", "/v1/embeddings", what="embeddings", also=("/embeddings",)),
        Surface("GET", "/v1/models", what="model list",
                also=("/models", "/v1/models/{model}", "/api/v1/models", "/openai/v1/models")),
        Surface("POST", "/api/v1/chat/completions", "SSE (`stream: true`)", what="OpenRouter",
                also=("/api/v1/embeddings",)),
        Surface("POST", "/openai/deployments/{deployment}/chat/completions", "SSE (`stream: true`)",
                what="Azure OpenAI, `?api-version=`",
                also=("/openai/deployments/{deployment}/embeddings", "/openai/v1/chat/completions")),
    )

    def claims(self, path: str) -> bool:
        return path.endswith(("/chat/completions", "/embeddings")) or path in ("/api/v1/models", "/openai/v1/models")

    def model_call(self, path: str) -> bool:
        return path.endswith("/chat/completions")

    def call(self, path: str) -> Call | None:
        """An Azure deployment path names the model (Azure calls the deployment, whatever the body says)."""
        if path.endswith("/models"):
            return Call(listing=True)
        return Call(embed=path.endswith("/embeddings"), model=deployment(path))

    def embed_request(self, body: dict[str, Any], call: Call, path: str) -> EmbedRequest:
        from autocue.mockllm.embeddings import EmbedRequest

        texts = _embed_inputs(body)
        model = body.get("model") or call.model
        if not isinstance(model, str) or not model:
            raise shape.fail("model", "the embedding model's name", model)
        dims = body.get("dimensions")
        if dims is not None and (type(dims) is not int or dims < 1):
            raise shape.fail("dimensions", "a positive integer", dims)
        fmt = body.get("encoding_format", "float")
        if fmt not in ("float", "base64"):
            raise shape.fail("encoding_format", "'float' or 'base64'", fmt)
        return EmbedRequest(texts, model, dims, {"encoding_format": fmt})

    def embed_body(self, vectors: list[list[float]], req: EmbedRequest) -> dict[str, Any]:
        b64 = req.options.get("encoding_format") == "base64"
        data = [{"object": "embedding", "index": i, "embedding": _b64(v) if b64 else v}
                for i, v in enumerate(vectors)]
        tokens = req.input_tokens
        return {"object": "list", "data": data, "model": req.model,
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens}}

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

    def response_schema(self, body: dict[str, Any]) -> dict[str, Any] | None:
        """``response_format: {type: json_schema, json_schema: {schema}}``."""
        return schema_at(body, "response_format", "json_schema", "schema")


API = ChatApi()
