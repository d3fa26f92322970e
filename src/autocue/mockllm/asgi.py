"""The mock server's HTTP layer over ASGI: ``Request``, ``Response``, ``StreamingResponse`` and a
``Router`` of ``Route``s, the part of starlette the server used, without starlette's import
cost (about a fifth of ``autocue serve``'s start-up).

Routing is starlette's: a route's path is a template (``/v1/models/{model_id:path}``: a
``:path`` parameter matches any text but a newline, a plain ``{name}`` one path segment); the
routes are tried in order; the first whose path and method match answers; a route whose path
matches but not its method makes a 405 (``Allow`` names its methods), no route at all a 404.
Both go to the router's ``refused`` handler, so every refusal has the shape of the API the
path belongs to. A route taking ``GET`` takes ``HEAD`` too. A ``StreamingResponse`` stops
when the client disconnects. ``loopback_only(app, methods, refuse)`` lets only loopback callers
in (``Host``, ``Origin``: ``loopback.py``) and answers their CORS, as the simulation API uses
it; ``lifespan`` answers an embedding server's start and stop.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Iterable, Mapping, MutableMapping
from typing import Any
from urllib.parse import parse_qsl

from autocue.mockllm.loopback import bound_address, host_is_local, origin_is_local

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

log = logging.getLogger("autocue.mockllm.asgi")
_PARAM = re.compile(r"{([a-zA-Z_][a-zA-Z0-9_]*)(:path)?}")


async def lifespan(receive: Receive, send: Send) -> None:
    """Answer an embedding server's start and stop (nothing to do for either)."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


class _ClientGone(Exception):
    """The client went away while its request body was being read (the router answers nothing)."""


class Request:
    """One HTTP request: its scope, headers (lower-case names; the first of repeated ones),
    query parameters (the last of repeated ones), path parameters and body stream."""

    __slots__ = ("_headers", "_query", "_receive", "path_params", "scope")

    def __init__(self, scope: Scope, receive: Receive, path_params: dict[str, str] | None = None) -> None:
        self.scope = scope
        self._receive = receive
        self.path_params = path_params or {}
        self._headers: dict[str, str] | None = None
        self._query: dict[str, str] | None = None

    @property
    def method(self) -> str:
        method: str = self.scope["method"]
        return method

    @property
    def path(self) -> str:
        path: str = self.scope["path"]
        return path

    @property
    def headers(self) -> dict[str, str]:
        if self._headers is None:
            self._headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in reversed(self.scope["headers"])}
        return self._headers

    @property
    def query(self) -> dict[str, str]:
        if self._query is None:
            self._query = dict(parse_qsl(self.scope.get("query_string", b"").decode("latin-1"),
                                         keep_blank_values=True))
        return self._query

    async def read(self, limit: int) -> bytes | None:
        """The whole body, or None once it passes ``limit`` bytes (the rest is not read)."""
        message = await self._receive()
        parts: list[bytes] = []
        size = 0
        while True:
            if message["type"] == "http.disconnect":
                raise _ClientGone()
            body: bytes = message.get("body", b"")
            size += len(body)
            if size > limit:
                return None
            if not message.get("more_body", False):
                if not parts:
                    return body
                parts.append(body)
                return b"".join(parts)
            parts.append(body)
            message = await self._receive()

    async def stream(self) -> AsyncIterator[bytes]:
        """The body's chunks as they arrive (the router ends the request if the client goes away)."""
        while True:
            message = await self._receive()
            if message["type"] == "http.disconnect":
                raise _ClientGone()
            body: bytes = message.get("body", b"")
            if body:
                yield body
            if not message.get("more_body", False):
                return


class Response:
    """A whole body at once, with ``Content-Length``; ``media_type`` is its ``Content-Type``
    (a ``text/`` type gets ``; charset=utf-8``). ``headers`` may override both."""

    def __init__(self, body: bytes = b"", status: int = 200, headers: Mapping[str, str] | None = None,
                 media_type: str | None = None) -> None:
        self.body = body
        self.status = status
        self.raw_headers = _raw_headers(headers, media_type, None if status < 200 or status in (204, 304) else body)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": self.status, "headers": self.raw_headers})
        await send({"type": "http.response.body", "body": self.body})


class StreamingResponse(Response):
    """A body sent in pieces as ``content`` yields them; it stops when the client disconnects."""

    def __init__(self, content: AsyncIterable[bytes], status: int = 200, headers: Mapping[str, str] | None = None,
                 media_type: str | None = None) -> None:
        self.content = content
        self.status = status
        self.raw_headers = _raw_headers(headers, media_type, None)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        sending = asyncio.ensure_future(self._send(send))
        listening = asyncio.ensure_future(_disconnected(receive))
        try:
            await asyncio.wait((sending, listening), return_when=asyncio.FIRST_COMPLETED)
        finally:
            sending.cancel()
            listening.cancel()
            # wait for both to finish: a task asked to cancel has no result yet, and the stream's
            # cleanup (its generator's ``finally``) runs now, not when the collector gets to it
            await asyncio.gather(sending, listening, return_exceptions=True)
            aclose = getattr(self.content, "aclose", None)
            if aclose is not None:
                await aclose()
        if sending.cancelled():
            log.debug("autocue: the client left during a streamed response to %s", scope.get("path"))
        else:
            exc = sending.exception()
            if isinstance(exc, OSError):  # uvicorn's ClientDisconnected is one
                log.debug("autocue: the client left during a streamed response to %s", scope.get("path"))
            elif exc is not None:
                raise exc  # the stream's own error

    async def _send(self, send: Send) -> None:
        await send({"type": "http.response.start", "status": self.status, "headers": self.raw_headers})
        async for chunk in self.content:
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


def _raw_headers(headers: Mapping[str, str] | None, media_type: str | None,
                 body: bytes | None) -> list[tuple[bytes, bytes]]:
    raw: list[tuple[bytes, bytes]] = []
    given: set[bytes] = set()
    if headers:
        for k, v in headers.items():
            name = k.lower().encode("latin-1")
            given.add(name)
            raw.append((name, v.encode("latin-1")))
    if body is not None and b"content-length" not in given:
        raw.append((b"content-length", b"%d" % len(body)))
    if media_type is not None and b"content-type" not in given:
        if media_type.startswith("text/") and "charset=" not in media_type.lower():
            media_type += "; charset=utf-8"
        raw.append((b"content-type", media_type.encode("latin-1")))
    return raw


Endpoint = Callable[[Request], Awaitable[Response]]
Refused = Callable[[Request, int, dict[str, str]], Awaitable[Response]]
"""What answers a request the routes refuse: ``(request, status, headers)`` (404, or 405 with ``Allow``)."""


class Route:
    """``path`` (a template) and ``methods`` answered by ``endpoint``."""

    __slots__ = ("endpoint", "methods", "path", "regex")

    def __init__(self, path: str, endpoint: Endpoint, methods: Iterable[str]) -> None:
        self.path = path
        self.endpoint = endpoint
        self.methods = [m.upper() for m in methods]
        if "GET" in self.methods and "HEAD" not in self.methods:
            self.methods.append("HEAD")
        pattern, at = "^", 0
        for m in _PARAM.finditer(path):
            pattern += re.escape(path[at:m.start()]) + f"(?P<{m[1]}>{'.*' if m[2] else '[^/]+'})"
            at = m.end()
        self.regex = re.compile(pattern + re.escape(path[at:]) + "$")


class Router:
    """Answers each HTTP request with the first route matching its path and method."""

    def __init__(self, routes: list[Route], refused: Refused) -> None:
        self.routes = routes
        self.refused = refused

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path, method = scope["path"], scope["method"]
        wrong_method: Route | None = None
        for route in self.routes:
            match = route.regex.match(path)
            if match is None:
                continue
            if method in route.methods:
                try:
                    response = await route.endpoint(Request(scope, receive, match.groupdict()))
                except _ClientGone:
                    return  # nobody to answer
                break
            wrong_method = wrong_method or route
        else:
            request = Request(scope, receive)
            if wrong_method is None:
                response = await self.refused(request, 404, {})
            else:
                response = await self.refused(request, 405, {"Allow": ", ".join(wrong_method.methods)})
        await response(scope, receive, send)


def loopback_only(app: ASGIApp, methods: tuple[str, ...], refuse: Callable[[int, str], Response]) -> ASGIApp:
    """``app`` for loopback callers only. A request whose ``Host`` is neither loopback nor the
    bound address (a DNS-rebinding page) gets ``refuse(403, why)``, and so does one whose
    ``Origin`` is neither a loopback page (any port) nor ``null`` (a page opened from a file).
    A preflight from an allowed origin for these ``methods`` is answered here; the answer to a
    request with an allowed ``Origin`` names that origin in ``Access-Control-Allow-Origin`` and
    exposes every response header; every answer gets ``Vary: Origin``."""

    async def guard(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await lifespan(receive, send)
            return
        headers = dict(reversed(scope["headers"]))
        bound, _ = bound_address(scope)
        host = headers.get(b"host")
        if host is not None and not host_is_local(host.decode("latin-1"), bound):
            why = (f"request refused: Host {host.decode('latin-1')!r} is not this server (it answers only to a "
                   "loopback Host or the bound address, so a DNS-rebinding web page cannot reach it)")
            await refuse(403, why)(scope, receive, send)
            return
        origin = headers.get(b"origin")
        if origin is not None and origin != b"null" and not origin_is_local(origin.decode("latin-1"), bound):
            why = (f"request refused: Origin {origin.decode('latin-1')!r} is not a loopback page (only pages on "
                   "localhost, 127.0.0.1 or ::1, and pages opened from a file, may call this server)")
            await refuse(403, why)(scope, receive, send)
            return
        method = headers.get(b"access-control-request-method")
        if origin is not None and method is not None and scope["method"] == "OPTIONS":
            await _preflight(method, headers, methods, origin)(scope, receive, send)
            return
        extra = [(b"vary", b"Origin")]
        if origin is not None:
            extra[:0] = [(b"access-control-allow-origin", origin), (b"access-control-expose-headers", b"*")]

        async def send_cors(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        await app(scope, receive, send_cors)

    return guard


def _preflight(method: bytes, headers: dict[bytes, bytes], methods: tuple[str, ...], origin: bytes) -> Response:
    answer = {"Vary": "Origin, Access-Control-Request-Method, Access-Control-Request-Headers, "
                      "Access-Control-Request-Private-Network", "Access-Control-Allow-Origin": origin.decode("latin-1"),
              "Access-Control-Allow-Methods": ", ".join(methods), "Access-Control-Max-Age": "600"}
    asked = headers.get(b"access-control-request-headers")
    if asked is not None:
        answer["Access-Control-Allow-Headers"] = asked.decode("latin-1")
    failures = [what for what, bad in (("method", method.decode("latin-1") not in methods),
                                       ("private-network", b"access-control-request-private-network" in headers))
                if bad]
    if failures:
        return Response(b"Disallowed CORS " + ", ".join(failures).encode(), 400, answer, media_type="text/plain")
    return Response(b"OK", 200, answer, media_type="text/plain")
