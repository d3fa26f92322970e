"""The ASGI app (starlette): routes, request parsing, response rendering.

Endpoints: ``POST /v1/chat/completions``, ``POST /v1/responses``, ``POST /v1/messages``
(``?beta=true`` too), ``POST /v1/messages/count_tokens``,
``POST /v1beta/models/{model}:generateContent`` / ``:streamGenerateContent`` /
``:countTokens``, ``GET /v1/models``, ``HEAD /`` (200), admin under ``/_autocue/``. The
OpenAI paths also answer without ``/v1``. A WebSocket upgrade attempt (Codex makes one
on ``GET /v1/responses``) gets ``426 Upgrade Required`` at once, which makes Codex fall back
to HTTP without retrying. ``/s/{session}/`` and ``/scenario/{name}/`` path
prefixes (either order) name the session and the scenario.
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import orjson
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from autocue.mockllm.errors import error_body
from autocue.mockllm.ids import digest
from autocue.mockllm.incoming import ApiName, Incoming
from autocue.mockllm.state import MockState, Outcome
from autocue.mockllm.wire import anthropic, chat, gemini, responses
from autocue.mockllm.wire.common import Segments, now

RENDERERS: dict[str, Any] = {"chat": chat, "responses": responses, "anthropic": anthropic, "gemini": gemini}
JSON = "application/json"
SSE_HEADERS = {"cache-control": "no-cache", "x-accel-buffering": "no"}
WEBSOCKET_REFUSED = "WebSocket is not supported by the autocue mock LLM server; use HTTP POST (426: fall back at once)"


def _json(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(orjson.dumps(data), status, headers, media_type=JSON)


def _api_of_path(path: str) -> ApiName:
    if "/messages" in path:
        return "anthropic"
    if "/responses" in path:
        return "responses"
    if path.startswith("/v1beta") or ":generateContent" in path or ":streamGenerateContent" in path:
        return "gemini"
    return "chat"


def _session_key(scope: Scope, headers: dict[str, str], query: dict[str, str]) -> str:
    pre = scope.get("autocue_session")
    if pre:
        return str(pre)
    auth = headers.get("authorization")
    if auth and auth[:7].lower() == "bearer " and auth[7:].strip():
        return auth[7:].strip()
    for h in ("x-api-key", "api-key", "x-goog-api-key"):
        v = headers.get(h)
        if v:
            return v
    return query.get("key") or "default"


class MockApp:
    """The mock server's ASGI application over a ``MockState``."""

    def __init__(self, state: MockState) -> None:
        self.state = state
        routes = [
            Route("/", self.root, methods=["GET", "HEAD"]),
            Route("/_autocue/health", self.health, methods=["GET"]),
            Route("/_autocue/sessions", self.sessions, methods=["GET"]),
            Route("/_autocue/sessions/{sid:path}/reset", self.reset_session, methods=["POST"]),
            Route("/_autocue/sessions/{sid:path}", self.session, methods=["GET", "DELETE"]),
            Route("/_autocue/reset", self.reset_all, methods=["POST"]),
            Route("/_autocue/scenarios", self.scenarios, methods=["GET", "POST"]),
        ]
        for prefix in ("/v1", ""):
            routes += [
                Route(prefix + "/chat/completions", self._endpoint("chat"), methods=["POST"]),
                Route(prefix + "/responses", self._endpoint("responses"), methods=["POST"]),
                Route(prefix + "/messages", self._endpoint("anthropic"), methods=["POST"]),
                Route(prefix + "/messages/count_tokens", self.count_tokens, methods=["POST"]),
                Route(prefix + "/models", self.models, methods=["GET"]),
            ]
        routes += [
            Route("/v1beta/models", self.models, methods=["GET"]),
            Route("/v1beta/models/{rest:path}", self.gemini, methods=["POST"]),
            Route("/v1/models/{rest:path}", self.gemini, methods=["POST"]),
            Route("/v1/models/{model_id:path}", self.model, methods=["GET"]),
            Route("/{rest:path}", self.not_found, methods=["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"]),
        ]
        self.app = Starlette(routes=routes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        typ = scope["type"]
        if typ == "websocket":
            await self._refuse_websocket(scope, send)
            return
        if typ == "http":
            path: str = scope["path"]
            if path.startswith(("/s/", "/scenario/")):
                scope = _strip_prefixes(scope)
        await self.app(scope, receive, send)

    async def _refuse_websocket(self, scope: Scope, send: Send) -> None:
        if "websocket.http.response" in scope.get("extensions", {}):
            body = orjson.dumps(error_body(_api_of_path(scope["path"]), 426, WEBSOCKET_REFUSED))
            await send({"type": "websocket.http.response.start", "status": 426,
                        "headers": [(b"content-type", JSON.encode()), (b"content-length", str(len(body)).encode())]})
            await send({"type": "websocket.http.response.body", "body": body})
        else:
            await send({"type": "websocket.close", "code": 1008})

    # ------------------------------------------------------------------ API endpoints
    def _endpoint(self, api: ApiName) -> Callable[[Request], Any]:
        async def handle(request: Request) -> Response:
            return await self.handle(request, api, None, None)

        handle.__name__ = f"handle_{api}"
        return handle

    async def gemini(self, request: Request) -> Response:
        rest: str = request.path_params["rest"]
        model, _, action = rest.rpartition(":")
        if action == "countTokens":
            got = await self._parse(request, "gemini")
            if isinstance(got, Response):
                return got
            return _json({"totalTokens": max(1, len(got[0]) // 4)})
        if action not in ("generateContent", "streamGenerateContent") or not model:
            return await self.not_found(request)
        return await self.handle(request, "gemini", model, action == "streamGenerateContent")

    async def _read(self, request: Request, api: str) -> bytes | Response:
        limit = self.state.options.max_body
        cl = request.headers.get("content-length")
        if cl is not None and cl.isdigit() and int(cl) > limit:
            return _json(error_body(api, 413, f"request body of {cl} bytes is larger than the mock server's "
                                              f"limit of {limit} bytes"), 413)
        parts: list[bytes] = []
        size = 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                return _json(error_body(api, 413, f"request body is larger than the mock server's limit of "
                                                  f"{limit} bytes"), 413)
            parts.append(chunk)
        return parts[0] if len(parts) == 1 else b"".join(parts)

    async def _parse(self, request: Request, api: str) -> tuple[bytes, dict[str, Any]] | Response:
        raw = await self._read(request, api)
        if isinstance(raw, Response):
            return raw
        try:
            body = orjson.loads(raw)
        except orjson.JSONDecodeError as e:
            return _json(error_body(api, 400, f"malformed JSON in the request body: {e}"), 400)
        if not isinstance(body, dict):
            return _json(error_body(api, 400, f"the request body must be a JSON object, got {type(body).__name__}"),
                         400)
        return raw, body

    async def handle(self, request: Request, api: ApiName, model: str | None, stream: bool | None) -> Response:
        got = await self._parse(request, api)
        if isinstance(got, Response):
            return got
        raw, body = got
        scope = request.scope
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        query = dict(request.query_params) if scope.get("query_string") else {}
        req = Incoming(
            api=api,
            body=body,
            headers=headers,
            path=scope["path"],
            raw_size=len(raw),
            stream=bool(body.get("stream")) if stream is None else stream,
            model=model or str(body.get("model") or "autocue-mock"),
            session_key=_session_key(scope, headers, query),
            scenario=scope.get("autocue_scenario") or headers.get("x-scenario-name") or None,
            profile=headers.get("x-autocue-profile") or None,
            query=query,
        )
        out = self.state.respond(req)
        return await self.render(req, out)

    async def render(self, req: Incoming, out: Outcome) -> Response:
        reply = out.reply
        if reply is None:
            return _json(out.body, out.status, out.headers)
        rid = digest(reply.seed, "req", size=12)
        headers = {"x-request-id": "req_" + rid, "request-id": "req_" + rid}
        mod = RENDERERS[req.api]
        if not req.stream:
            delay = reply.total_delay
            if delay > 0:
                await asyncio.sleep(delay)
            return Response(orjson.dumps(mod.json_body(reply, req)), 200, headers, media_type=JSON)
        segments: Segments = mod.stream(reply, req)
        media = "text/event-stream" if req.api != "gemini" or req.sse else JSON
        headers.update(SSE_HEADERS)
        if len(segments) == 1 and segments[0][0] <= 0:
            return Response(segments[0][1], 200, headers, media_type=media)
        return StreamingResponse(_timed(segments), 200, headers, media_type=media)

    async def count_tokens(self, request: Request) -> Response:
        got = await self._parse(request, "anthropic")
        if isinstance(got, Response):
            return got
        return _json({"input_tokens": max(1, len(got[0]) // 4)})

    async def models(self, request: Request) -> Response:
        names = ["autocue-mock", *self.state.playables]
        created = now()
        if request.url.path.startswith("/v1beta"):
            return _json({"models": [{"name": f"models/{n}", "displayName": n,
                                      "supportedGenerationMethods": ["generateContent", "countTokens"]}
                                     for n in names]})
        data = [{"id": n, "object": "model", "type": "model", "created": created,
                 "created_at": "2025-01-01T00:00:00Z", "display_name": n, "owned_by": "autocue"} for n in names]
        return _json({"object": "list", "data": data, "has_more": False, "first_id": names[0],
                      "last_id": names[-1]})

    async def model(self, request: Request) -> Response:
        mid = request.path_params["model_id"]
        return _json({"id": mid, "object": "model", "type": "model", "created": now(),
                      "created_at": "2025-01-01T00:00:00Z", "display_name": mid, "owned_by": "autocue"})

    async def root(self, request: Request) -> Response:
        return _json({"ok": True, "server": "autocue-mockllm", "scenarios": list(self.state.playables)})

    async def not_found(self, request: Request) -> Response:
        path = request.url.path
        api = _api_of_path(path)
        if request.headers.get("upgrade", "").lower() == "websocket":
            return _json(error_body(api, 426, f"{path}: {WEBSOCKET_REFUSED}"), 426, {"x-should-retry": "false"})
        msg = f"{request.method} {path} is not an endpoint of the autocue mock LLM server"
        return _json(error_body(api, 404, msg), 404, {"x-should-retry": "false"})

    # ------------------------------------------------------------------ admin
    async def health(self, request: Request) -> Response:
        return _json({"ok": True, "scenarios": len(self.state.playables), "sessions": len(self.state.sessions)})

    async def sessions(self, request: Request) -> Response:
        return _json({"sessions": self.state.session_status()})

    async def session(self, request: Request) -> Response:
        sid = request.path_params["sid"]
        if request.method == "DELETE":
            return _json({"reset": self.state.reset(sid)})
        found = self.state.session_status(sid)
        if not found:
            return _json({"error": f"no session {sid!r}", "sessions": [s["session"] for s in
                                                                      self.state.session_status()]}, 404)
        return _json(found[0] if len(found) == 1 else {"sessions": found})

    async def reset_session(self, request: Request) -> Response:
        n = self.state.reset(request.path_params["sid"])
        return _json({"reset": n}, 200 if n else 404)

    async def reset_all(self, request: Request) -> Response:
        return _json({"reset": self.state.reset()})

    async def scenarios(self, request: Request) -> Response:
        if request.method == "GET":
            return _json({"scenarios": self.state.scenarios()})
        try:
            body = orjson.loads(await request.body())
        except orjson.JSONDecodeError as e:
            return _json({"error": f"malformed JSON: {e}"}, 400)
        if not isinstance(body, dict):
            return _json({"error": "expected {\"path\": ...}, {\"paths\": [...]} or {\"yaml\": ...}"}, 400)
        try:
            if "yaml" in body:
                with tempfile.TemporaryDirectory() as d:
                    f = Path(d) / (str(body.get("name") or "scenario") + ".yaml")
                    f.write_text(str(body["yaml"]), encoding="utf-8")
                    names = self.state.add(f)
            else:
                paths = body.get("paths") or ([body["path"]] if "path" in body else [])
                if not paths:
                    return _json({"error": "expected {\"path\": ...}, {\"paths\": [...]} or {\"yaml\": ...}"}, 400)
                names = self.state.add([Path(p) for p in paths])
        except ValueError as e:
            return _json({"error": str(e)}, 400)
        return _json({"loaded": names, "scenarios": list(self.state.playables)})


async def _timed(segments: Segments) -> AsyncIterator[bytes]:
    for delay, data in segments:
        if delay > 0:
            await asyncio.sleep(delay)
        if data:
            yield data


def _strip_prefixes(scope: Scope) -> Scope:
    path: str = scope["path"]
    scope = dict(scope)
    for _ in range(2):
        for key, prefix in (("autocue_session", "/s/"), ("autocue_scenario", "/scenario/")):
            if path.startswith(prefix):
                name, sep, rest = path[len(prefix):].partition("/")
                if name:
                    scope[key] = unquote(name)
                    path = "/" + rest if sep else "/"
    scope["path"] = path
    scope["raw_path"] = path.encode()
    return scope


def create_app(state: MockState) -> MockApp:
    """The ASGI app serving ``state``."""
    return MockApp(state)
