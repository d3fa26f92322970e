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
from autocue.mockllm.incoming import Incoming
from autocue.mockllm.reply import Reply
from autocue.mockllm.wire.common import CHUNK, Segments, SegmentWriter, chunks

if TYPE_CHECKING:  # fuzzing loads with the first fuzz spec
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


def _chunk(reply: Reply, req: Incoming, parts: list[dict[str, Any]], finish: bool) -> dict[str, Any]:
    cand: dict[str, Any] = {"content": {"parts": parts, "role": "model"}, "index": 0}
    if finish:
        cand["finishReason"] = FINISH.get(reply.stop_reason, "STOP")
    return {
        "candidates": [cand],
        "usageMetadata": _usage(reply),
        "modelVersion": req.model,
        "responseId": make_id("", reply.seed)[:22],
    }


def json_body(reply: Reply, req: Incoming) -> dict[str, Any]:
    merged: list[dict[str, Any]] = []
    for b, parts in zip(reply.blocks, _parts(reply), strict=True):
        if b.kind == "call":
            merged.extend(parts)
            continue
        first = dict(parts[0])
        first["text"] = b.text
        merged.append(first)
    return _chunk(reply, req, merged, True)


def stream(reply: Reply, req: Incoming, fuzz: Fuzzer | None = None) -> Segments:
    sse = req.sse
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
