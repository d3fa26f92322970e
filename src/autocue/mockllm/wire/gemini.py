"""Gemini ``generateContent`` / ``streamGenerateContent`` (``alt=sse`` or a streamed JSON array).

Parts: thinking → ``{"text", "thought": true}``; text → ``{"text"}``; tool call →
``{"functionCall": {"name", "args", "id"}}`` (whole, as Gemini sends them). The thinking
signature rides on the first part after the thoughts (``thoughtSignature``). The last chunk
carries ``finishReason`` (``STOP``, ``MAX_TOKENS``) and every chunk ``usageMetadata``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import orjson

from autocue.mockllm.ids import make_id
from autocue.mockllm.wire import shape
from autocue.mockllm.wire.api import SSE, Call, LastMessage, Surface, WireApi, WireRequest, WireRoute, parts_text
from autocue.mockllm.wire.common import CHUNK, Segments, SegmentWriter, chunks

if TYPE_CHECKING:  # fuzzing loads with the first fuzz spec
    from autocue.llm.types import Tool
    from autocue.mockllm.embeddings import EmbedRequest
    from autocue.mockllm.reply import Reply
    from autocue.mockllm.wire.context import ContextBuilder
    from autocue.mockllm.wire.fuzz import Fuzzer

FINISH = {"stop": "STOP", "length": "MAX_TOKENS", "toolUse": "STOP"}


def _usage(reply: Reply) -> dict[str, Any]:
    u: dict[str, Any] = {
        "promptTokenCount": reply.input_tokens,
        "candidatesTokenCount": max(0, reply.output_tokens - reply.thinking_tokens),
        "totalTokenCount": reply.input_tokens + reply.output_tokens,
    }
    if reply.thinking_tokens:
        u["thoughtsTokenCount"] = reply.thinking_tokens
    if reply.cache_read:
        u["cachedContentTokenCount"] = reply.cache_read
    return u


def _parts(reply: Reply, split: Callable[[str], list[str]] | None = None) -> list[list[dict[str, Any]]]:
    """Per block, the parts it streams as (text split in chunks, or by ``split``; calls whole)."""
    cut = split or (lambda text: chunks(text, CHUNK))
    out: list[list[dict[str, Any]]] = []
    pending_sig: str | None = None
    for b in reply.blocks:
        if b.kind == "thinking":
            out.append([{"text": piece, "thought": True} for piece in cut(b.text)])
            pending_sig = b.signature
            continue
        if b.kind == "text":
            parts: list[dict[str, Any]] = [{"text": piece} for piece in cut(b.text)]
        else:
            parts = [{"functionCall": {"id": b.id, "name": b.name, "args": b.args}}]
        if pending_sig is not None:
            parts[0]["thoughtSignature"] = pending_sig
            pending_sig = None
        out.append(parts)
    return out


def _chunk(reply: Reply, req: WireRequest, parts: list[dict[str, Any]], finish: bool) -> dict[str, Any]:
    cand: dict[str, Any] = {"content": {"parts": parts, "role": "model"}, "index": 0}
    if finish:
        cand["finishReason"] = FINISH.get(reply.stop_reason, "STOP")
    return {
        "candidates": [cand],
        "usageMetadata": _usage(reply),
        "modelVersion": req.model,
        "responseId": make_id("", reply.seed)[:22],
    }


def json_body(reply: Reply, req: WireRequest) -> dict[str, Any]:
    merged: list[dict[str, Any]] = []
    for b, parts in zip(reply.blocks, _parts(reply), strict=True):
        if b.kind == "call":
            merged.extend(parts)
            continue
        first = dict(parts[0])
        first["text"] = b.text
        merged.append(first)
    return _chunk(reply, req, merged, True)


def stream(reply: Reply, req: WireRequest, fuzz: Fuzzer | None = None) -> Segments:
    sse = bool(req.view.options.get("sse"))
    w = SegmentWriter(fuzz, sse=sse)
    frames: list[tuple[float, dict[str, Any]]] = []
    for b, parts in zip(reply.blocks, _parts(reply, w.pieces if fuzz is not None else None), strict=True):
        if b.kind == "call":
            frames.append((b.delay, _chunk(reply, req, parts, False)))
        else:
            for k, p in enumerate(parts):
                frames.append((b.delay if k == 0 else 0.0, _chunk(reply, req, [p], False)))
    if frames:
        last = frames[-1][1]
        last["candidates"][0]["finishReason"] = FINISH.get(reply.stop_reason, "STOP")
    else:
        frames.append((0.0, _chunk(reply, req, [{"text": ""}], True)))
    if not sse:
        w.add(b"[")
    for n, (delay, data) in enumerate(frames):
        w.pause(delay)
        if sse:
            w.add(b"data: " + orjson.dumps(data) + b"\r\n\r\n")
        else:
            w.add((b",\r\n" if n else b"") + orjson.dumps(data))
    if not sse:
        w.add(b"]")
    return w.done()


# ---------------------------------------------------------------------- the request
PART_KEYS = frozenset({
    "text", "inlineData", "inline_data", "fileData", "file_data", "functionCall", "function_call",
    "functionResponse", "function_response", "executableCode", "executable_code", "codeExecutionResult",
    "code_execution_result", "thought", "thoughtSignature", "thought_signature", "videoMetadata",
    "video_metadata", "partMetadata", "part_metadata", "mediaResolution", "media_resolution",
})
ERROR_STATUS = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    413: "INVALID_ARGUMENT",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
    529: "UNAVAILABLE",
}
_ACTIONS = {"generateContent": False, "streamGenerateContent": True}
_EMBED = ("embedContent", "batchEmbedContents")
_LISTINGS = ("/v1beta/models", "/v1/models")
EMBED_DIMENSIONS = 768
"""Dimensions of a Gemini embedding when the request names none (``text-embedding-004``'s)."""


def _embed_text(req: Any, where: str) -> tuple[str, int | None]:
    """The text and ``outputDimensionality`` of one ``EmbedContentRequest``."""
    shape.obj(req, where)
    content = shape.obj(req.get("content"), where + ".content")
    _content(content, where + ".content")
    dims = req.get("outputDimensionality", req.get("output_dimensionality"))
    if dims is not None and (type(dims) is not int or dims < 1):
        raise shape.MalformedRequestError(f"{where}.outputDimensionality must be a positive integer, got {dims!r}")
    return parts_text(content.get("parts")), dims


def _content(c: dict[str, Any], w: str) -> None:
    shape.opt(c, "role", str, "a string", w + ".")
    parts = c.get("parts")
    if parts is None:
        return
    for j, p in enumerate(shape.array(parts, w + ".parts")):
        wp = f"{w}.parts[{j}]"
        shape.obj(p, wp)
        if not PART_KEYS.intersection(p):
            keys = ", ".join(list(p)[:5]) or "none"
            raise shape.MalformedRequestError(
                f"{wp}: a part needs one of text, inlineData, fileData, functionCall, functionResponse, "
                f"executableCode, codeExecutionResult (keys: {keys})")
        shape.opt(p, "text", str, "a string", wp + ".")
        shape.opt(p, "thought", bool, "a boolean", wp + ".")
        for key in ("functionCall", "functionResponse"):
            v = p.get(key)
            if v is not None:
                shape.string(shape.obj(v, f"{wp}.{key}"), "name", f"{wp}.{key}")
                shape.opt(v, "id", str, "a string", f"{wp}.{key}.")
        fc = p.get("functionCall")
        if isinstance(fc, dict):
            shape.opt(fc, "args", dict, "an object", wp + ".functionCall.")


def _dumps(v: Any) -> str:
    return v if isinstance(v, str) else orjson.dumps(v).decode()


class GeminiApi(WireApi):
    routes = (WireRoute("/v1beta/models/{rest:path}"), WireRoute("/v1/models/{rest:path}"),
              WireRoute("/v1beta/models", ("GET",)))
    surfaces = (
        Surface("POST", "/v1beta/models/{model}:generateContent", also=("/v1/models/{model}:generateContent",)),
        Surface("POST", "/v1beta/models/{model}:streamGenerateContent", "SSE (`alt=sse`) or a streamed JSON array",
                also=("/v1/models/{model}:streamGenerateContent",)),
        Surface("POST", "/v1beta/models/{model}:countTokens", what="token count"),
        Surface("POST", "/v1beta/models/{model}:embedContent", what="embeddings"),
        Surface("POST", "/v1beta/models/{model}:batchEmbedContents", what="embeddings"),
        Surface("GET", "/v1beta/models", what="model list"),
    )
    history_key = "contents"

    def claims(self, path: str) -> bool:
        return path.startswith("/v1beta") or ("/models/" in path and ":" in path.rpartition("/")[2])

    def model_call(self, path: str) -> bool:
        return ":generateContent" in path or ":streamGenerateContent" in path

    def call(self, path: str) -> Call | None:
        if path in _LISTINGS:
            return Call(listing=True)
        model, _, action = path.partition("/models/")[2].rpartition(":")
        if action == "countTokens":
            return Call(count=True)
        if action in _EMBED and model:
            return Call(model=model, embed=True)
        if action not in _ACTIONS or not model:
            return None
        return Call(model=model, stream=_ACTIONS[action])

    def count_body(self, tokens: int) -> dict[str, Any]:
        return {"totalTokens": tokens}

    def embed_request(self, body: dict[str, Any], call: Call, path: str) -> EmbedRequest:
        """``:embedContent`` (``{"content": {"parts"}, "outputDimensionality"}``) or ``:batchEmbedContents``
        (``{"requests": [...]}``, each such a request). ``EMBED_DIMENSIONS`` when none is asked for."""
        from autocue.mockllm.embeddings import EmbedRequest

        batch = path.endswith(":batchEmbedContents")
        reqs = shape.required_list(body, "requests") if batch else [body]
        if not reqs:
            raise shape.MalformedRequestError("requests must hold at least one EmbedContentRequest")
        got = [_embed_text(r, f"requests[{i}]" if batch else "request") for i, r in enumerate(reqs)]
        dims = {d for _, d in got}
        if len(dims) > 1:
            raise shape.MalformedRequestError("every request of a batch must ask for the same outputDimensionality")
        return EmbedRequest([t for t, _ in got], call.model or "", dims.pop() or None, {"batch": batch},
                            default_dimensions=EMBED_DIMENSIONS)

    def embed_body(self, vectors: list[list[float]], req: EmbedRequest) -> dict[str, Any]:
        if req.options.get("batch"):
            return {"embeddings": [{"values": v} for v in vectors]}
        return {"embedding": {"values": vectors[0]}}

    def models_body(self, names: list[str], path: str) -> dict[str, Any]:
        """Gemini's model list: ``{"models": [{"name": "models/...", ...}]}``."""
        return {"models": [{"name": f"models/{n}", "baseModelId": n, "version": "001", "displayName": n,
                            "inputTokenLimit": 1048576, "outputTokenLimit": 65536,
                            "supportedGenerationMethods": ["generateContent", "countTokens", "embedContent"]}
                           for n in names]}

    def lists_for(self, headers: dict[str, str], query: dict[str, str]) -> bool:
        """google-genai lists models at ``GET /v1/models`` (OpenAI's path) with its ``x-goog-api-key``."""
        return "x-goog-api-key" in headers

    def declared(self, tools: list[Any]) -> list[str]:
        names: list[str] = []
        for t in tools:
            if not isinstance(t, dict):
                continue
            decls = t.get("functionDeclarations") or t.get("function_declarations")
            for fd in decls if isinstance(decls, list) else ():
                if isinstance(fd, dict) and isinstance(fd.get("name"), str):
                    names.append(fd["name"])
        return names

    def function_tools(self, tools: list[Any]) -> list[str]:
        return self.declared(tools)

    def tool_specs(self, tools: list[Any]) -> list[Tool]:
        from autocue.llm.types import Tool

        out: list[Tool] = []
        for t in tools:
            decls = t.get("functionDeclarations") or t.get("function_declarations") if isinstance(t, dict) else None
            if isinstance(decls, list):
                out.extend(Tool(d["name"], d.get("description", ""), d.get("parameters") or {})
                           for d in decls if isinstance(d, dict) and "name" in d)
            elif isinstance(t, dict):
                out.extend(super().tool_specs([t]))
        return out

    def options(self, body: dict[str, Any], msgs: list[Any], query: dict[str, str],
                headers: dict[str, str]) -> dict[str, Any]:
        return {"sse": query.get("alt") == "sse"}

    def normalize_last(self, m: dict[str, Any]) -> LastMessage:
        parts = [p for p in (m.get("parts") or []) if isinstance(p, dict)]
        results = [_dumps(p["functionResponse"].get("response", "")) for p in parts
                   if isinstance(p.get("functionResponse"), dict)]
        if results:
            return LastMessage("tool", "\n".join(results), "\n".join(results))
        return super().normalize_last(m)

    def add_to_context(self, b: ContextBuilder, m: dict[str, Any]) -> None:
        from autocue.llm.types import TextContent, ThinkingContent

        for p in m.get("parts") or []:
            if not isinstance(p, dict):
                continue
            if "functionCall" in p:
                fc = p["functionCall"]
                b.call(fc.get("id") or fc.get("name", ""), fc.get("name", ""), fc.get("args"))
            elif "functionResponse" in p:
                fr = p["functionResponse"]
                b.result(fr.get("id") or fr.get("name", ""), orjson.dumps(fr.get("response")).decode())
            elif isinstance(p.get("text"), str):
                if m.get("role") == "model":
                    text = p["text"]
                    b.assistant().content.append(ThinkingContent(text) if p.get("thought") else TextContent(text))
                else:
                    b.user(p["text"])

    def validate(self, body: dict[str, Any], start: int = 0) -> None:
        for key in ("generationConfig", "generation_config"):
            shape.opt(body, key, dict, "an object")
        for key in ("systemInstruction", "system_instruction"):
            si = body.get(key)
            if isinstance(si, dict):
                _content(si, key)
            elif si is not None and not isinstance(si, str):
                raise shape.fail(key, "a Content object", si)
        contents = shape.required_list(body, "contents")
        for i in range(start, len(contents)):
            _content(shape.obj(contents[i], f"contents[{i}]"), f"contents[{i}]")
        tools = body.get("tools")
        for i, t in enumerate(shape.array(tools, "tools") if tools is not None else []):
            w = f"tools[{i}]"
            for key in ("functionDeclarations", "function_declarations"):
                decls = shape.obj(t, w).get(key)
                if decls is not None:
                    for j, d in enumerate(shape.array(decls, f"{w}.{key}")):
                        shape.string(shape.obj(d, f"{w}.{key}[{j}]"), "name", f"{w}.{key}[{j}]")

    def error_body(self, status: int, message: str, *, kind: str | None = None, code: str | None = None,
                   request_id: str = "req_autocue") -> dict[str, Any]:
        gstatus = ERROR_STATUS.get(status) or ("INTERNAL" if status >= 500 else "FAILED_PRECONDITION")
        return {"error": {"code": status, "message": message, "status": gstatus}}

    def json_body(self, reply: Reply, req: WireRequest) -> dict[str, Any]:
        return json_body(reply, req)

    def stream(self, reply: Reply, req: WireRequest, fuzz: Fuzzer | None = None) -> Segments:
        return stream(reply, req, fuzz)

    def media_type(self, req: WireRequest) -> str:
        """``alt=sse``: an event stream, else a streamed JSON array."""
        return SSE if req.view.options.get("sse") else "application/json"


API = GeminiApi()
