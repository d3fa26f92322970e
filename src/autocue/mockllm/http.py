"""HTTP helpers shared by the API routes and the admin routes: JSON responses, bounded body
reads, and the content-type test."""

from __future__ import annotations

from typing import Any

import orjson

from autocue.mockllm.asgi import Request, Response
from autocue.mockllm.error_bodies import error_body, error_headers

JSON = "application/json"


def json_response(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(orjson.dumps(data), status, headers, media_type=JSON)


def error_response(api: str, status: int, message: str, *, code: str | None = None,
                   headers: dict[str, str] | None = None) -> Response:
    """An ``api``-shaped error (``admin`` has the OpenAI shape)."""
    h = {"x-should-retry": "false"} if status < 500 and status not in (408, 409, 429) else {}
    h.update(error_headers(api, status))
    h.update(headers or {})
    return json_response(error_body(api, status, message, code=code), status, h)


def is_json_type(content_type: str | None) -> bool:
    """``application/json`` or ``application/*+json``, with or without parameters."""
    if content_type is None:
        return False
    mime = content_type.split(";", 1)[0].strip().lower()
    return mime == JSON or (mime.startswith("application/") and mime.endswith("+json"))


async def read_body(request: Request, api: str, limit: int, *, server: str = "the mock server") -> bytes | Response:
    """The request body, or an ``api``-shaped 413 once it passes ``limit`` bytes (checked
    against ``Content-Length`` first, then while reading, so a chunked body is cut off too);
    ``server`` names whose limit it is in the message."""
    cl = request.headers.get("content-length")
    if cl is not None and cl.isdigit() and int(cl) > limit:
        return error_response(api, 413, f"request body of {cl} bytes is larger than {server}'s limit of "
                                        f"{limit} bytes", code="request_too_large")
    body = await request.read(limit)
    if body is None:
        return error_response(api, 413, f"request body is larger than {server}'s limit of {limit} bytes",
                              code="request_too_large")
    return body
