"""Helpers shared by the modes: JSON lines, model and event serialization."""

from __future__ import annotations

from typing import IO, Any

import orjson

from autocue.llm.types import Model


def json_line(obj: Any) -> bytes:
    """One JSON line (``orjson``; non-JSON values fall back to ``str``)."""
    return orjson.dumps(obj, default=_fallback) + b"\n"


def _fallback(v: Any) -> Any:
    to_json = getattr(v, "to_json", None)
    if to_json is not None:
        return to_json()
    if isinstance(v, BaseException):
        return f"{type(v).__name__}: {v}"
    if isinstance(v, (set, frozenset, tuple)):
        return list(v)
    return str(v)


def event_json(ev: Any) -> Any:
    """The JSON form of an agent or session event (pi's camelCase)."""
    to_json = getattr(ev, "to_json", None)
    if to_json is not None:
        return to_json()
    return {"type": getattr(ev, "type", type(ev).__name__)}


def model_json(m: Model) -> dict[str, Any]:
    return {
        "id": m.id,
        "name": m.name,
        "api": m.api,
        "provider": m.provider,
        "baseUrl": m.base_url,
        "reasoning": m.reasoning,
        "input": m.input,
        "contextWindow": m.context_window,
        "maxTokens": m.max_tokens,
    }


def write_json_line(out: IO[bytes], obj: Any) -> None:
    out.write(json_line(obj))
    out.flush()
