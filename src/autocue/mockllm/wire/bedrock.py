"""AWS Bedrock runtime (``POST /model/{modelId}/<action>``; the model id URL-encoded: a model id, an
inference profile such as ``us.anthropic.claude-sonnet-4-5-20250929-v1:0``, or an ARN).

* ``converse`` / ``converse-stream``: the Converse body (``messages`` of content blocks ``text``,
  ``toolUse``, ``toolResult``, ``reasoningContent``; ``system``; ``toolConfig.tools[].toolSpec``;
  ``inferenceConfig``). The whole answer is ``output.message``, ``stopReason`` (``end_turn`` /
  ``tool_use`` / ``max_tokens``), ``usage`` and ``metrics``; the stream is event-stream messages
  (``wire/eventstream.py``): ``messageStart``, per block ``contentBlockStart`` (tool calls only:
  ``toolUseId``, ``name``), ``contentBlockDelta`` (``text``, ``toolUse.input`` JSON fragments,
  ``reasoningContent`` text then its ``signature``), ``contentBlockStop``, then ``messageStop``
  and ``metadata`` (usage, metrics).
* ``invoke`` / ``invoke-with-response-stream`` with Anthropic's Messages body
  (``anthropic_version: bedrock-2023-05-31``, no ``model``): the answers are the Anthropic wire
  module's; streamed, each Anthropic event is a ``chunk`` message ``{"bytes": base64(event JSON)}``.
  With a Titan (``amazon.titan-embed-*``) or Cohere (``cohere.embed-*``) model id, ``invoke`` is an
  embeddings request in that model's body.
* ``count-tokens``: ``{"inputTokens": n}``.
* ``GET /foundation-models`` (the ``bedrock`` control plane's ListFoundationModels): the scenarios' models.

Errors are ``{"message": ...}`` with the ``x-amzn-ErrorType`` header (``ThrottlingException``,
``ValidationException``, ...), which botocore turns into its exception and retries by.
"""

from __future__ import annotations

import base64
import uuid
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import orjson

from autocue.mockllm.ids import digest, make_id
from autocue.mockllm.wire import anthropic, eventstream, shape
from autocue.mockllm.wire.api import Call, Chunk, LastMessage, Surface, WireApi, WireRequest, WireRoute, flatten
from autocue.mockllm.wire.common import Segments, SegmentWriter

if TYPE_CHECKING:
    from autocue.mockllm.embeddings import EmbedRequest
    from autocue.mockllm.reply import Reply
    from autocue.mockllm.wire.context import ContextBuilder
    from autocue.mockllm.wire.fuzz import Fuzzer
    from autocue.scenario.writer import TimedReply

PREFIX = "/model/"
LISTING = "/foundation-models"
ACTIONS = {"converse": False, "converse-stream": True, "invoke": False, "invoke-with-response-stream": True}
ERROR_TYPE = {
    400: "ValidationException", 401: "AccessDeniedException", 403: "AccessDeniedException",
    404: "ResourceNotFoundException", 408: "ModelTimeoutException", 413: "ValidationException",
    424: "ModelErrorException", 429: "ThrottlingException", 500: "InternalServerException",
    503: "ServiceUnavailableException", 529: "ServiceUnavailableException",
}
STOP = {"stop": "end_turn", "length": "max_tokens", "toolUse": "tool_use"}
BLOCKS = ("text", "image", "document", "video", "audio", "toolUse", "toolResult", "guardContent", "cachePoint",
          "reasoningContent", "citationsContent", "searchResult")
_ANTHROPIC = anthropic.API


def split(path: str) -> tuple[str, str]:
    """``(model id, action)`` of ``/model/{modelId}/{action}``."""
    model, _, action = path[len(PREFIX):].rpartition("/")
    return model, action


def embedding_model(model: str) -> str:
    """``titan`` or ``cohere`` for an embedding model id (an ARN or a profile id too), else ``""``."""
    m = model.lower()
    return "titan" if "titan-embed" in m else "cohere" if "cohere.embed" in m else ""


def is_anthropic(body: dict[str, Any]) -> bool:
    """An InvokeModel body in Anthropic's shape (Converse has neither key)."""
    return "anthropic_version" in body or "max_tokens" in body


# ---------------------------------------------------------------------- reading
def anthropic_message(m: dict[str, Any]) -> dict[str, Any]:
    """A Converse message as an Anthropic one (an Anthropic message as it is)."""
    content = m.get("content")
    if not isinstance(content, list) or not any(isinstance(b, dict) and "type" not in b for b in content):
        return m
    return {"role": m.get("role"), "content": [x for b in content if (x := _block(b)) is not None]}


def _block(b: Any) -> dict[str, Any] | None:
    if not isinstance(b, dict):
        return None
    if "type" in b:
        return b
    if isinstance(b.get("text"), str):
        return {"type": "text", "text": b["text"]}
    if isinstance(tu := b.get("toolUse"), dict):
        return {"type": "tool_use", "id": tu.get("toolUseId", ""), "name": tu.get("name", ""),
                "input": tu.get("input") if isinstance(tu.get("input"), dict) else {}}
    if isinstance(tr := b.get("toolResult"), dict):
        parts: list[Any] = tr["content"] if isinstance(tr.get("content"), list) else []
        text = "\n".join(p["text"] if isinstance(p.get("text"), str) else orjson.dumps(p.get("json")).decode()
                         for p in parts if isinstance(p, dict) and ("text" in p or "json" in p))
        return {"type": "tool_result", "tool_use_id": tr.get("toolUseId", ""), "content": text,
                "is_error": tr.get("status") == "error"}
    rc = b.get("reasoningContent")
    if isinstance(rc, dict) and isinstance(rt := rc.get("reasoningText"), dict):
        return {"type": "thinking", "thinking": rt.get("text", ""), "signature": rt.get("signature", "")}
    return None


def _check_converse(body: dict[str, Any], start: int) -> None:
    msgs = shape.required_list(body, "messages")
    for i in range(start, len(msgs)):
        w = f"messages[{i}]"
        m = shape.obj(msgs[i], w)
        shape.one_of(m.get("role"), ("user", "assistant"), w + ".role", "role")
        for j, b in enumerate(shape.array(m.get("content"), w + ".content")):
            wb = f"{w}.content[{j}]"
            keys = list(shape.obj(b, wb))
            if len(keys) != 1 or keys[0] not in BLOCKS:
                raise shape.MalformedRequestError(f"{wb} must have exactly one member of {', '.join(BLOCKS)}, "
                                                  f"got {', '.join(keys)[:80] or 'none'}")
            if keys[0] == "toolUse":
                shape.string(shape.obj(b["toolUse"], wb + ".toolUse"), "toolUseId", wb + ".toolUse")
                shape.string(b["toolUse"], "name", wb + ".toolUse")
            elif keys[0] == "toolResult":
                shape.string(shape.obj(b["toolResult"], wb + ".toolResult"), "toolUseId", wb + ".toolResult")
                for k, c in enumerate(shape.array(b["toolResult"].get("content"), wb + ".toolResult.content")):
                    shape.opt(shape.obj(c, f"{wb}.toolResult.content[{k}]"), "text", str, "a string",
                              f"{wb}.toolResult.content[{k}].")
    for i, s in enumerate(shape.array(body.get("system", []), "system")):
        shape.obj(s, f"system[{i}]")
    tc = body.get("toolConfig")
    if tc is not None:
        for i, t in enumerate(shape.array(shape.obj(tc, "toolConfig").get("tools"), "toolConfig.tools")):
            shape.obj(t, f"toolConfig.tools[{i}]")


# ---------------------------------------------------------------------- rendering
def _usage(reply: Reply) -> dict[str, Any]:
    return {"inputTokens": reply.input_tokens, "outputTokens": reply.output_tokens,
            "totalTokens": reply.input_tokens + reply.output_tokens, "cacheReadInputTokens": reply.cache_read,
            "cacheWriteInputTokens": 0}


def _latency(reply: Reply) -> int:
    return int(reply.total_delay * 1000) + 1


def converse_body(reply: Reply) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    for b in reply.blocks:
        if b.kind == "text":
            content.append({"text": b.text})
        elif b.kind == "thinking":
            content.append({"reasoningContent": {"reasoningText": {"text": b.text, "signature": b.signature}}})
        else:
            content.append({"toolUse": {"toolUseId": b.id, "name": b.name, "input": b.args}})
    return {"output": {"message": {"role": "assistant", "content": content}},
            "stopReason": STOP.get(reply.stop_reason, "end_turn"), "usage": _usage(reply),
            "metrics": {"latencyMs": _latency(reply)}}


def converse_stream(reply: Reply, fuzz: Fuzzer | None) -> Segments:
    """The Converse stream; a ``fuzz`` cuts deltas anywhere and writes tool arguments in another valid
    form (the binary framing takes no SSE comments or line endings)."""
    w = SegmentWriter(fuzz, sse=False)
    pieces = fuzz.pieces if fuzz is not None else w.pieces
    ev = eventstream.event
    w.add(ev("messageStart", {"role": "assistant"}))
    for i, b in enumerate(reply.blocks):
        w.pause(b.delay)
        if b.kind == "text":
            for piece in pieces(b.text):
                w.add(ev("contentBlockDelta", {"delta": {"text": piece}, "contentBlockIndex": i}))
        elif b.kind == "thinking":
            for piece in pieces(b.text):
                w.add(ev("contentBlockDelta", {"delta": {"reasoningContent": {"text": piece}}, "contentBlockIndex": i}))
            w.add(ev("contentBlockDelta", {"delta": {"reasoningContent": {"signature": b.signature}},
                                           "contentBlockIndex": i}))
        else:
            w.add(ev("contentBlockStart", {"start": {"toolUse": {"toolUseId": b.id, "name": b.name}},
                                           "contentBlockIndex": i}))
            for piece in pieces(fuzz.args_json(b.args, b.args_json) if fuzz else b.args_json):
                w.add(ev("contentBlockDelta", {"delta": {"toolUse": {"input": piece}}, "contentBlockIndex": i}))
        w.add(ev("contentBlockStop", {"contentBlockIndex": i}))
    w.add(ev("messageStop", {"stopReason": STOP.get(reply.stop_reason, "end_turn")}))
    w.add(ev("metadata", {"usage": _usage(reply), "metrics": {"latencyMs": _latency(reply)}}))
    return w.done()


def invoke_body(reply: Reply, req: WireRequest) -> dict[str, Any]:
    body = anthropic.json_body(reply, req)
    body["id"] = make_id("msg_bdrk_01", reply.seed)
    return body


def invoke_stream(reply: Reply, req: WireRequest, fuzz: Fuzzer | None) -> Segments:
    """Anthropic's stream, each event (pings and comments dropped) in a ``chunk`` message."""
    from autocue.llm.providers.sse import SSEDecoder

    dec = SSEDecoder()
    out: Segments = []
    delay = 0.0
    for d, frame in anthropic.stream(reply, req, fuzz):
        delay += d
        for e in dec.feed(frame):
            if e.event == "ping" or not e.data:
                continue
            data = orjson.loads(e.data)
            if data.get("type") == "message_start":
                data["message"]["id"] = make_id("msg_bdrk_01", reply.seed)
            elif data.get("type") == "message_stop":
                data["amazon-bedrock-invocationMetrics"] = {
                    "inputTokenCount": reply.input_tokens, "outputTokenCount": reply.output_tokens,
                    "invocationLatency": _latency(reply), "firstByteLatency": 1}
            out.append((delay, eventstream.event("chunk", {"bytes": base64.b64encode(orjson.dumps(data)).decode()})))
            delay = 0.0
    if delay > 0:
        out.append((delay, b""))
    return out


# ---------------------------------------------------------------------- reading a recording back
def _sse(event: str, data: dict[str, Any]) -> bytes:
    return b"event: " + event.encode() + b"\ndata: " + orjson.dumps(data) + b"\n\n"


class _ConverseToAnthropic:
    """Converse stream events as Anthropic SSE events (what autocue's Anthropic provider reads)."""

    def __init__(self, model: str) -> None:
        self.model = model
        self.open: dict[int, str] = {}
        self.stop = "end_turn"

    def event(self, kind: str, d: dict[str, Any]) -> bytes:
        i = int(d.get("contentBlockIndex", 0))
        if kind == "messageStart":
            return _sse("message_start", {"type": "message_start", "message": {
                "id": "msg_recorded", "type": "message", "role": "assistant", "model": self.model, "content": [],
                "stop_reason": None, "usage": {"input_tokens": 0, "output_tokens": 0}}})
        if kind == "contentBlockStart":
            tu = d.get("start", {}).get("toolUse", {})
            self.open[i] = "tool_use"
            return self._start(i, {"type": "tool_use", "id": tu.get("toolUseId", ""), "name": tu.get("name", ""),
                                   "input": {}})
        if kind == "contentBlockDelta":
            delta = d.get("delta", {})
            out = b""
            if "text" in delta:
                if i not in self.open:
                    self.open[i] = "text"
                    out += self._start(i, {"type": "text", "text": ""})
                return out + self._delta(i, {"type": "text_delta", "text": delta["text"]})
            if "toolUse" in delta:
                return self._delta(i, {"type": "input_json_delta", "partial_json": delta["toolUse"].get("input", "")})
            rc = delta.get("reasoningContent", {})
            if i not in self.open:
                self.open[i] = "thinking"
                out += self._start(i, {"type": "thinking", "thinking": "", "signature": ""})
            if "signature" in rc:
                return out + self._delta(i, {"type": "signature_delta", "signature": rc["signature"]})
            return out + self._delta(i, {"type": "thinking_delta", "thinking": rc.get("text", "")})
        if kind == "contentBlockStop":
            return _sse("content_block_stop", {"type": "content_block_stop", "index": i}) if i in self.open else b""
        if kind == "messageStop":
            self.stop = str(d.get("stopReason") or "end_turn")
            return b""
        if kind == "metadata":
            u = d.get("usage", {})
            return _sse("message_delta", {"type": "message_delta", "delta": {"stop_reason": self.stop},
                                          "usage": {"input_tokens": u.get("inputTokens", 0),
                                                    "output_tokens": u.get("outputTokens", 0),
                                                    "cache_read_input_tokens": u.get("cacheReadInputTokens", 0)}}) \
                + _sse("message_stop", {"type": "message_stop"})
        return b""

    def _start(self, i: int, block: dict[str, Any]) -> bytes:
        return _sse("content_block_start", {"type": "content_block_start", "index": i, "content_block": block})

    def _delta(self, i: int, delta: dict[str, Any]) -> bytes:
        return _sse("content_block_delta", {"type": "content_block_delta", "index": i, "delta": delta})


def _anthropic_json(body: dict[str, Any], model: str) -> dict[str, Any]:
    """A whole Converse answer as an Anthropic message (an Anthropic one as it is)."""
    if "output" not in body:
        return body
    msg = body["output"].get("message") or {}
    content = [b for b in (_block(x) for x in msg.get("content") or []) if b is not None]
    u = body.get("usage") or {}
    return {"id": "msg_recorded", "type": "message", "role": "assistant", "model": model, "content": content,
            "stop_reason": body.get("stopReason", "end_turn"),
            "usage": {"input_tokens": u.get("inputTokens", 0), "output_tokens": u.get("outputTokens", 0),
                      "cache_read_input_tokens": u.get("cacheReadInputTokens", 0)}}


def as_anthropic(chunks: Sequence[Chunk], model: str) -> tuple[list[Chunk], bool]:
    """A recorded Bedrock reply as Anthropic's wire: ``(chunks, streamed)``."""
    raw = b"".join(c for _, c in chunks)
    if raw.lstrip()[:1] in (b"{", b"["):
        t = chunks[-1][0] if chunks else 0.0
        return [(t, orjson.dumps(_anthropic_json(orjson.loads(raw), model)))], False
    dec = eventstream.Decoder()
    conv = _ConverseToAnthropic(model)
    out: list[Chunk] = []
    for t, data in chunks:
        for m in dec.feed(data):
            payload = orjson.loads(m.payload) if m.payload else {}
            if not m.is_event:
                err = {"type": "error", "error": {"type": m.kind, "message": payload.get("message", "")}}
                out.append((t, _sse("error", err)))
            elif m.kind == "chunk":
                event = base64.b64decode(payload.get("bytes", ""))
                out.append((t, b"event: " + orjson.loads(event).get("type", "message").encode() + b"\ndata: "
                            + event + b"\n\n"))
            else:
                out.append((t, conv.event(m.kind, payload)))
    return out, True


# ---------------------------------------------------------------------- the API
class BedrockApi(WireApi):
    routes = (WireRoute("/model/{rest:path}"), WireRoute(LISTING, ("GET",)))
    surfaces = (
        Surface("POST", "/model/{modelId}/converse"),
        Surface("POST", "/model/{modelId}/converse-stream", "`application/vnd.amazon.eventstream`"),
        Surface("POST", "/model/{modelId}/invoke", what="Anthropic's body; Titan and Cohere embeddings"),
        Surface("POST", "/model/{modelId}/invoke-with-response-stream",
                "`application/vnd.amazon.eventstream` of `chunk`s (Anthropic's events)"),
        Surface("POST", "/model/{modelId}/count-tokens", what="token count"),
        Surface("GET", "/foundation-models", what="model list (the control plane's)"),
    )
    tool_id_prefix = "tooluse_"

    def claims(self, path: str) -> bool:
        return path.startswith(PREFIX) or path == LISTING

    def model_call(self, path: str) -> bool:
        model, action = split(path) if path.startswith(PREFIX) else ("", "")
        return action in ACTIONS and not embedding_model(model)

    def call(self, path: str) -> Call | None:
        if path == LISTING:
            return Call(listing=True)
        model, action = split(path)
        if not model:
            return None
        if action == "count-tokens":
            return Call(count=True)
        if action not in ACTIONS:
            return None
        if embedding_model(model):
            return Call(embed=True, model=model) if action == "invoke" else None
        return Call(model=model, stream=ACTIONS[action])

    def count_body(self, tokens: int) -> dict[str, Any]:
        return {"inputTokens": tokens}

    def models_body(self, names: list[str], path: str) -> dict[str, Any]:
        return {"modelSummaries": [{
            "modelArn": f"arn:aws:bedrock:us-east-1::foundation-model/{n}", "modelId": n, "modelName": n,
            "providerName": "autocue", "inputModalities": ["TEXT"], "outputModalities": ["TEXT"],
            "responseStreamingSupported": True, "customizationsSupported": [], "inferenceTypesSupported": ["ON_DEMAND"],
            "modelLifecycle": {"status": "ACTIVE"}} for n in names]}

    # ------------------------------------------------------------------ embeddings
    def embed_request(self, body: dict[str, Any], call: Call, path: str) -> EmbedRequest:
        from autocue.mockllm.embeddings import EmbedRequest

        model = call.model or ""
        if embedding_model(model) == "titan":
            text = body.get("inputText")
            if not isinstance(text, str):
                raise shape.fail("inputText", "a string", text)
            dims = body.get("dimensions")
            if dims is not None and (type(dims) is not int or dims not in (256, 384, 512, 1024, 1536)):
                raise shape.fail("dimensions", "256, 512 or 1024", dims)
            return EmbedRequest([text], model, dims, {"family": "titan"},
                                default_dimensions=1536 if "text-v1" in model or "image" in model else 1024)
        texts = body.get("texts")
        if not (isinstance(texts, list) and texts and all(isinstance(t, str) for t in texts)):
            raise shape.fail("texts", "a non-empty array of strings", texts)
        types = body.get("embedding_types")
        if types is not None and not (isinstance(types, list) and all(t == "float" for t in types)):
            raise shape.fail("embedding_types", "['float'] (the mock serves float embeddings)", types)
        dims = body.get("output_dimension")
        if dims is not None and (type(dims) is not int or dims < 1):
            raise shape.fail("output_dimension", "a positive integer", dims)
        return EmbedRequest(list(texts), model, dims, {"family": "cohere", "by_type": types is not None},
                            default_dimensions=1536 if "v4" in model else 1024)

    def embed_body(self, vectors: list[list[float]], req: EmbedRequest) -> dict[str, Any]:
        if req.options.get("family") == "titan":
            return {"embedding": vectors[0], "inputTextTokenCount": req.input_tokens}
        by_type = req.options.get("by_type")
        return {"id": str(uuid.UUID(digest("\n".join(req.texts), req.model, size=16))),
                "embeddings": {"float": vectors} if by_type else vectors,
                "response_type": "embeddings_by_type" if by_type else "embeddings_floats", "texts": req.texts}

    # ------------------------------------------------------------------ reading
    def message_text(self, m: dict[str, Any]) -> str:
        return flatten(anthropic_message(m).get("content"))

    def system_text(self, body: dict[str, Any], msgs: list[Any]) -> str:
        return flatten(body.get("system"))

    def tool_list(self, body: dict[str, Any], msgs: list[Any], headers: dict[str, str]) -> list[Any]:
        tc = body.get("toolConfig")
        if not isinstance(tc, dict):
            return super().tool_list(body, msgs, headers)
        out: list[Any] = []
        for t in tc.get("tools") or []:
            spec = t.get("toolSpec") if isinstance(t, dict) else None
            if isinstance(spec, dict):
                schema = spec.get("inputSchema")
                out.append({"name": spec.get("name"), "description": spec.get("description") or "",
                            "input_schema": schema.get("json", {}) if isinstance(schema, dict) else {}})
        return out

    def function_tools(self, tools: list[Any]) -> list[str]:
        return _ANTHROPIC.function_tools(tools)

    def normalize_last(self, m: dict[str, Any]) -> LastMessage:
        return _ANTHROPIC.normalize_last(anthropic_message(m))

    def add_to_context(self, b: ContextBuilder, m: dict[str, Any]) -> None:
        b.message(anthropic_message(m))

    def validate(self, body: dict[str, Any], start: int = 0) -> None:
        inp = body.get("input")
        if isinstance(inp, dict) and "messages" not in body:  # CountTokens: {input: {converse | invokeModel}}
            conv = inp.get("converse")
            if isinstance(conv, dict):
                _check_converse(conv, start)
            elif not isinstance(inp.get("invokeModel"), dict):
                raise shape.MalformedRequestError("input must hold converse or invokeModel")
        elif is_anthropic(body):
            _ANTHROPIC.validate(body, start)
        else:
            _check_converse(body, start)

    # ------------------------------------------------------------------ errors
    def error_body(self, status: int, message: str, *, kind: str | None = None, code: str | None = None,
                   request_id: str = "req_autocue") -> dict[str, Any]:
        return {"message": message}

    def error_headers(self, status: int) -> dict[str, str]:
        etype = ERROR_TYPE.get(status) or ("InternalServerException" if status >= 500 else "ValidationException")
        return {"x-amzn-ErrorType": etype}

    # ------------------------------------------------------------------ rendering
    def json_body(self, reply: Reply, req: WireRequest) -> dict[str, Any]:
        return invoke_body(reply, req) if is_anthropic(req.body) else converse_body(reply)

    def stream(self, reply: Reply, req: WireRequest, fuzz: Fuzzer | None = None) -> Segments:
        return invoke_stream(reply, req, fuzz) if is_anthropic(req.body) else converse_stream(reply, fuzz)

    def media_type(self, req: WireRequest) -> str:
        return eventstream.MEDIA_TYPE

    async def read_reply(self, chunks: Sequence[Chunk], *, event_stream: bool, model: str) -> TimedReply:
        from autocue.mockllm.wire.readback import read_with_provider

        wire, streamed = as_anthropic(chunks, model)
        return await read_with_provider("anthropic-messages", wire, event_stream=streamed, model=model)


API = BedrockApi()
