"""Ollama's native API: ``POST /api/chat`` and ``/api/generate``, ``/api/embed`` (and the legacy
``/api/embeddings``), ``GET /api/tags`` and ``/api/ps``, ``POST /api/show``, ``GET /api/version``.

A request without ``stream`` is streamed (Ollama's default) as NDJSON (``application/x-ndjson``):
one JSON object per line, ``{"model", "created_at", "message": {"role": "assistant", "content",
"thinking"?, "tool_calls"?}, "done": false}``; thinking and text stream in pieces, each tool call
whole with its arguments as an object; the last line has ``"done": true``, ``done_reason``
(``stop`` / ``length``) and the counts and durations (nanoseconds). ``stream: false`` gets the
whole message in one object. Thinking is sent unless the request says ``think: false``.
``/api/generate`` answers ``response`` (and ``thinking``) instead of ``message``. Errors are
``{"error": "..."}`` with the HTTP status.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import orjson

from autocue.llm.types import AssistantMessage, TextContent, ThinkingContent, ToolCall, Usage
from autocue.mockllm.wire import shape
from autocue.mockllm.wire.api import Call, Chunk, Surface, WireApi, WireRequest, WireRoute
from autocue.mockllm.wire.common import Segments, SegmentWriter
from autocue.mockllm.wire.view import schema_at

if TYPE_CHECKING:
    from autocue.mockllm.embeddings import EmbedRequest
    from autocue.mockllm.reply import Reply
    from autocue.mockllm.wire.context import ContextBuilder
    from autocue.mockllm.wire.fuzz import Fuzzer
    from autocue.scenario.writer import TimedReply

NDJSON = "application/x-ndjson"
VERSION = "0.13.0"
"""What ``GET /api/version`` answers."""
ROLES = ("system", "user", "assistant", "tool")
THINK_LEVELS = ("high", "medium", "low")
_MODEL_CALLS = ("/api/chat", "/api/generate")
_EMBED = ("/api/embed", "/api/embeddings")
_LISTS = ("/api/tags", "/api/ps")
_INFO = ("/api/show", "/api/version")


def _created_at() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _counts(reply: Reply) -> dict[str, Any]:
    """The last line's counts, with durations (ns) derived from them: the same reply, the same numbers."""
    load, prompt, ev = 1_000_000, reply.input_tokens * 100_000, reply.output_tokens * 10_000_000
    return {"total_duration": load + prompt + ev + round(reply.total_delay * 1e9), "load_duration": load,
            "prompt_eval_count": reply.input_tokens, "prompt_eval_duration": prompt,
            "eval_count": reply.output_tokens, "eval_duration": ev}


def _done_reason(reply: Reply) -> str:
    return "length" if reply.stop_reason == "length" else "stop"


def _tool_calls(reply: Reply) -> list[dict[str, Any]]:
    calls = [b for b in reply.blocks if b.kind == "call"]
    return [{"id": b.id, "function": {"index": k, "name": b.name, "arguments": b.args}} for k, b in enumerate(calls)]


def _thinks(req: WireRequest) -> bool:
    return req.view.options.get("think") is not False


def _generate(req: WireRequest) -> bool:
    return bool(req.view.options.get("generate"))


def _head(req: WireRequest) -> dict[str, Any]:
    return {"model": req.model, "created_at": _created_at()}


def _piece(req: WireRequest, *, content: str = "", thinking: str | None = None,
           calls: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """One streamed object (not the last): a chat ``message`` or a generate ``response``."""
    if _generate(req):
        out = {**_head(req), "response": content}
        if thinking is not None:
            out["thinking"] = thinking
        return {**out, "done": False}
    msg: dict[str, Any] = {"role": "assistant", "content": content}
    if thinking is not None:
        msg["thinking"] = thinking
    if calls:
        msg["tool_calls"] = calls
    return {**_head(req), "message": msg, "done": False}


def json_body(reply: Reply, req: WireRequest) -> dict[str, Any]:
    text = "\n".join(b.text for b in reply.blocks if b.kind == "text")
    thinking = "".join(b.text for b in reply.blocks if b.kind == "thinking")
    out = _piece(req, content=text, thinking=thinking if thinking and _thinks(req) else None,
                 calls=_tool_calls(reply))
    return {**out, "done": True, "done_reason": _done_reason(reply), **_counts(reply)}


def stream(reply: Reply, req: WireRequest, fuzz: Fuzzer | None = None) -> Segments:
    w = SegmentWriter(fuzz, sse=False)
    thinks = _thinks(req)
    calls = iter(_tool_calls(reply))
    seen_text = False
    for b in reply.blocks:
        w.pause(b.delay)
        if b.kind == "thinking":
            if thinks:
                for piece in w.pieces(b.text):
                    w.add(orjson.dumps(_piece(req, thinking=piece)) + b"\n")
        elif b.kind == "text":
            text = ("\n" + b.text) if seen_text else b.text
            seen_text = True
            for piece in w.pieces(text):
                w.add(orjson.dumps(_piece(req, content=piece)) + b"\n")
        else:
            w.add(orjson.dumps(_piece(req, calls=[next(calls)])) + b"\n")
    last = _piece(req)
    w.add(orjson.dumps({**last, "done": True, "done_reason": _done_reason(reply), **_counts(reply)}) + b"\n")
    return w.done()


# ---------------------------------------------------------------------- the request
def _message(m: Any, w: str) -> None:
    shape.obj(m, w)
    shape.one_of(m.get("role"), ROLES, w + ".role", "role")
    for key in ("content", "thinking", "tool_name", "tool_call_id"):
        shape.opt(m, key, str, "a string", w + ".")
    images = m.get("images")
    if images is not None:
        for j, img in enumerate(shape.array(images, w + ".images")):
            if not isinstance(img, str):
                raise shape.fail(f"{w}.images[{j}]", "a base64 string", img)
    calls = m.get("tool_calls")
    if calls is not None:
        for j, tc in enumerate(shape.array(calls, w + ".tool_calls")):
            wc = f"{w}.tool_calls[{j}].function"
            fn = shape.obj(shape.obj(tc, f"{w}.tool_calls[{j}]").get("function"), wc)
            shape.string(fn, "name", wc)
            shape.opt(fn, "arguments", dict, "an object", wc + ".")


def _model_of(body: dict[str, Any]) -> str:
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise shape.MalformedRequestError("model is required")
    return model


def _details() -> dict[str, Any]:
    return {"parent_model": "", "format": "gguf", "family": "autocue", "families": ["autocue"],
            "parameter_size": "1B", "quantization_level": "Q4_K_M"}


def _listed(name: str, modified: str) -> dict[str, Any]:
    return {"name": name, "model": name, "modified_at": modified, "size": 1_000_000,
            "digest": hashlib.sha256(name.encode()).hexdigest(), "details": _details()}


class OllamaApi(WireApi):
    """Ollama's native API (``ollama`` Python client, ``ollama run``, LangChain's ``ChatOllama``)."""

    routes = (*(WireRoute(p) for p in (*_MODEL_CALLS, *_EMBED, "/api/show")),
              *(WireRoute(p, ("GET",)) for p in ("/api/tags", "/api/ps", "/api/version")))
    surfaces = (
        Surface("POST", "/api/chat", "NDJSON (the default; `stream: false`: one object)"),
        Surface("POST", "/api/generate", "NDJSON (the default)"),
        Surface("POST", "/api/embed", what="embeddings", also=("/api/embeddings",)),
        Surface("GET", "/api/tags", what="model list", also=("/api/ps",)),
        Surface("POST", "/api/show", what="a model's details"),
        Surface("GET", "/api/version"),
    )
    stream_default = True

    def response_schema(self, body: dict[str, Any]) -> dict[str, Any] | None:
        """``format``: a JSON Schema (``"json"`` asks for any JSON: no schema to satisfy)."""
        return schema_at(body, "format")

    def claims(self, path: str) -> bool:
        return path.startswith("/api/") and not path.startswith("/api/v1/")

    def model_call(self, path: str) -> bool:
        return path in _MODEL_CALLS

    def call(self, path: str) -> Call | None:
        if path in _MODEL_CALLS:
            return Call()
        if path in _EMBED:
            return Call(embed=True)
        if path in _LISTS:
            return Call(listing=True)
        return Call(info=True) if path in _INFO else None

    # ------------------------------------------------------------------ listings and questions
    def models_body(self, names: list[str], path: str) -> dict[str, Any]:
        modified = _created_at()
        if path == "/api/ps":
            return {"models": [{**_listed(n, modified), "expires_at": "2099-01-01T00:00:00Z", "size_vram": 0,
                                "context_length": 131072} for n in names]}
        return {"models": [_listed(n, modified) for n in names]}

    def info_body(self, body: dict[str, Any], path: str, names: list[str]) -> dict[str, Any]:
        if path == "/api/version":
            return {"version": VERSION}
        from autocue.mockllm.embeddings import DEFAULT_DIMENSIONS

        model = _model_of(body)
        return {"modelfile": f"# Modelfile of the autocue mock LLM\nFROM {model}\n", "parameters": "",
                "template": "{{ .Prompt }}", "details": _details(), "modified_at": _created_at(),
                "model_info": {"general.architecture": "autocue", "general.basename": model,
                               "autocue.context_length": 131072, "autocue.embedding_length": DEFAULT_DIMENSIONS},
                "capabilities": ["completion", "tools", "thinking", "embedding"]}

    def embed_request(self, body: dict[str, Any], call: Call, path: str) -> EmbedRequest:
        from autocue.mockllm.embeddings import EmbedRequest

        model = _model_of(body)
        if path.endswith("/embeddings"):  # the legacy endpoint: one prompt
            prompt = body.get("prompt")
            if not isinstance(prompt, str):
                raise shape.fail("prompt", "a string", prompt)
            return EmbedRequest([prompt], model, None, {"legacy": True})
        inp = body.get("input")
        texts = [inp] if isinstance(inp, str) else inp
        if not isinstance(texts, list) or not texts or not all(isinstance(t, str) for t in texts):
            raise shape.fail("input", "a string or a non-empty list of strings", inp)
        dims = body.get("dimensions")
        if dims is not None and (type(dims) is not int or dims < 1):
            raise shape.fail("dimensions", "a positive integer", dims)
        return EmbedRequest(list(texts), model, dims)

    def embed_body(self, vectors: list[list[float]], req: EmbedRequest) -> dict[str, Any]:
        if req.options.get("legacy"):
            return {"embedding": vectors[0]}
        tokens = req.input_tokens
        return {"model": req.model, "embeddings": vectors, "total_duration": 1_000_000 + tokens * 100_000,
                "load_duration": 1_000_000, "prompt_eval_count": tokens}

    # ------------------------------------------------------------------ reading
    def history(self, body: dict[str, Any], query: dict[str, str]) -> list[Any]:
        if "messages" not in body and isinstance(body.get("prompt"), str):  # /api/generate
            return [{"role": "user", "content": body["prompt"]}]
        return super().history(body, query)

    def options(self, body: dict[str, Any], msgs: list[Any], query: dict[str, str],
                headers: dict[str, str]) -> dict[str, Any]:
        return {"generate": "messages" not in body and "prompt" in body, "think": body.get("think")}

    def add_to_context(self, b: ContextBuilder, m: dict[str, Any]) -> None:
        from autocue.llm.types import ToolResultMessage

        role = m.get("role")
        if role == "tool":  # answers the first unanswered call of its tool_name
            name = str(m.get("tool_name") or "")
            done = {x.tool_call_id for x in b.msgs if isinstance(x, ToolResultMessage)}
            cid = m.get("tool_call_id") or next((c for c, n in b.names.items() if n == name and c not in done), name)
            b.result(str(cid), m.get("content"))
        elif role == "assistant":
            if isinstance(m.get("thinking"), str) and m["thinking"]:
                b.assistant().content.append(ThinkingContent(m["thinking"]))
            calls = [tc for tc in m.get("tool_calls") or []
                     if isinstance(tc, dict) and isinstance(tc.get("function"), dict)]
            b.assistant_message(m.get("content"), [{"id": tc.get("id") or tc["function"].get("name", ""),
                                                    "function": tc["function"]} for tc in calls])
        else:
            b.message(m)

    def validate(self, body: dict[str, Any], start: int = 0) -> None:
        shape.common(body, ())
        _model_of(body)
        shape.opt(body, "options", dict, "an object")
        think = body.get("think")
        if think is not None and not isinstance(think, bool) and think not in THINK_LEVELS:
            raise shape.fail("think", "a boolean or one of high, medium, low", think)
        if "messages" not in body and "prompt" in body:
            shape.opt(body, "prompt", str, "a string")
            return
        msgs = shape.required_list(body, "messages")
        for i in range(start, len(msgs)):
            _message(msgs[i], f"messages[{i}]")
        for i, t in enumerate(body.get("tools") or []):
            fn = t.get("function")
            if fn is not None:
                shape.string(shape.obj(fn, f"tools[{i}].function"), "name", f"tools[{i}].function")

    # ------------------------------------------------------------------ errors and rendering
    def error_body(self, status: int, message: str, *, kind: str | None = None, code: str | None = None,
                   request_id: str = "req_autocue") -> dict[str, Any]:
        return {"error": message}

    def json_body(self, reply: Reply, req: WireRequest) -> dict[str, Any]:
        return json_body(reply, req)

    def stream(self, reply: Reply, req: WireRequest, fuzz: Fuzzer | None = None) -> Segments:
        return stream(reply, req, fuzz)

    def media_type(self, req: WireRequest) -> str:
        return NDJSON

    # ------------------------------------------------------------------ recording
    async def read_reply(self, chunks: Sequence[Chunk], *, event_stream: bool, model: str) -> TimedReply:
        return read_reply(chunks, model)


def read_reply(chunks: Sequence[Chunk], model: str) -> TimedReply:
    """A recorded reply (NDJSON lines, or one whole object) as an assistant message: thinking, text and
    each tool call in the order they first arrived, with their arrival times, counts and stop reason."""
    from autocue.scenario.writer import TimedReply

    msg = AssistantMessage(api="ollama", provider="recorded", model=model)
    times: list[float] = []
    last: dict[str, Any] = {}
    buf = b""
    end = chunks[-1][0] if chunks else 0.0
    for t, data in chunks:
        *lines, buf = (buf + data).split(b"\n")
        for line in lines:
            if line.strip():
                last = _add_line(msg, times, orjson.loads(line), t)
    if buf.strip():
        last = _add_line(msg, times, orjson.loads(buf), end)
    tokens_in, tokens_out = int(last.get("prompt_eval_count") or 0), int(last.get("eval_count") or 0)
    msg.usage = Usage(tokens_in, tokens_out, total_tokens=tokens_in + tokens_out)
    if last.get("done_reason") == "length":
        msg.stop_reason = "length"
    elif any(isinstance(c, ToolCall) for c in msg.content):
        msg.stop_reason = "toolUse"
    return TimedReply(msg, times, end)


def _add_line(msg: AssistantMessage, times: list[float], obj: dict[str, Any], t: float) -> dict[str, Any]:
    """Add one NDJSON object's pieces to ``msg``: a piece of the kind of the last block extends it,
    another kind starts a block (arrived at ``t``)."""
    m = obj["message"] if isinstance(obj.get("message"), dict) else {"content": obj.get("response"),
                                                                     "thinking": obj.get("thinking")}
    thinking, content = m.get("thinking"), m.get("content")
    if isinstance(thinking, str) and thinking:
        if msg.content and isinstance(msg.content[-1], ThinkingContent):
            msg.content[-1].thinking += thinking
        else:
            msg.content.append(ThinkingContent(thinking))
            times.append(t)
    if isinstance(content, str) and content:
        if msg.content and isinstance(msg.content[-1], TextContent):
            msg.content[-1].text += content
        else:
            msg.content.append(TextContent(content))
            times.append(t)
    for tc in m.get("tool_calls") or []:
        fn = tc.get("function") or {}
        msg.content.append(ToolCall(str(tc.get("id") or f"call_{len(msg.content)}"), str(fn.get("name") or ""),
                                    dict(fn.get("arguments") or {})))
        times.append(t)
    return obj


API = OllamaApi()
