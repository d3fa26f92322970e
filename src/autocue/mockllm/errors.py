"""API-shaped error bodies, one shape per API, so every SDK parses them as it would the real
server's: OpenAI ``{"error": {message, type, param, code}}``, Anthropic
``{"type": "error", "error": {type, message}, "request_id"}``, Gemini
``{"error": {code, message, status}}``; the simulation API's (``autocue simulate``) is
``{"error": message}``.
"""

from __future__ import annotations

from typing import Any

_ANTHROPIC_TYPE = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    504: "timeout_error",
    529: "overloaded_error",
}
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
_GEMINI_STATUS = {
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
_KIND_TYPE = {"overloaded": "overloaded_error", "rate_limit": "rate_limit_error", "context_overflow":
              "invalid_request_error"}


def error_body(api: str, status: int, message: str, *, kind: str | None = None, code: str | None = None,
               request_id: str = "req_autocue") -> dict[str, Any]:
    """The body the real ``api`` would send for an error with this HTTP status."""
    if api == "anthropic":
        etype = _KIND_TYPE.get(kind or "") or _ANTHROPIC_TYPE.get(status) or (
            "api_error" if status >= 500 else "invalid_request_error")
        return {"type": "error", "error": {"type": etype, "message": message}, "request_id": request_id}
    if api == "simulate":
        return {"error": message}
    if api == "gemini":
        gstatus = _GEMINI_STATUS.get(status) or ("INTERNAL" if status >= 500 else "FAILED_PRECONDITION")
        return {"error": {"code": status, "message": message, "status": gstatus}}
    etype, ecode = _OPENAI_TYPE.get(status) or (("server_error" if status >= 500 else "invalid_request_error"), None)
    if kind == "context_overflow":
        ecode = "context_length_exceeded"
    return {"error": {"message": message, "type": etype, "param": None, "code": code or ecode}}
