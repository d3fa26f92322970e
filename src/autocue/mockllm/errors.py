"""API-shaped error bodies, so every SDK parses them as it would the real server's: each wire
API's shape is its ``WireApi.error_body`` (OpenAI ``{"error": {message, type, param, code}}``,
Anthropic ``{"type": "error", "error": {type, message}, "request_id"}``, Gemini
``{"error": {code, message, status}}``); the simulation API's (``autocue simulate``) is
``{"error": message}``; any other name (``admin``) gets OpenAI's.
"""

from __future__ import annotations

from typing import Any

_OPENAI_TYPE = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    404: ("invalid_request_error", "not_found"),
    413: ("invalid_request_error", "request_too_large"),
    429: ("rate_limit_exceeded", "rate_limit_exceeded"),
    500: ("server_error", None),
    503: ("server_error", "service_unavailable"),
    529: ("server_error", "overloaded"),
}
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


def openai_error(status: int, message: str, *, kind: str | None = None, code: str | None = None) -> dict[str, Any]:
    """OpenAI's error body."""
    etype, ecode = _OPENAI_TYPE.get(status) or (("server_error" if status >= 500 else "invalid_request_error"), None)
    if kind == "context_overflow":
        ecode = "context_length_exceeded"
    return {"error": {"message": message, "type": etype, "param": None, "code": code or ecode}}
