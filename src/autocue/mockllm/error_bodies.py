"""API-shaped error bodies, so every SDK parses them as it would the real server's: each wire
API's shape is its ``WireApi.error_body`` (OpenAI ``{"error": {message, type, param, code}}``,
Anthropic ``{"type": "error", "error": {type, message}, "request_id"}``, Gemini
``{"error": {code, message, status}}``); the simulation API's (``autocue simulate``) is
``{"error": message}``; any other name (``admin``) gets OpenAI's.
"""

from __future__ import annotations

from typing import Any

from autocue.mockllm.wire.api import openai_error

SIMULATE = "simulate"


def error_body(api: str, status: int, message: str, *, kind: str | None = None, code: str | None = None,
               request_id: str = "req_autocue") -> dict[str, Any]:
    """The body the real ``api`` would send for an error with this HTTP status."""
    if api == SIMULATE:
        return {"error": message}
    from autocue.mockllm.wire.registry import find

    wire = find(api)
    if wire is None:
        return openai_error(status, message, kind=kind, code=code)
    return wire.error_body(status, message, kind=kind, code=code, request_id=request_id)


def error_headers(api: str, status: int) -> dict[str, str]:
    """The headers the real ``api`` sends with an error besides its body (most send none)."""
    from autocue.mockllm.wire.registry import find

    wire = find(api) if api != SIMULATE else None
    return wire.error_headers(status) if wire is not None else {}


__all__ = ["SIMULATE", "error_body", "error_headers", "openai_error"]
