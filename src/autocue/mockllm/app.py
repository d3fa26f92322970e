"""The ASGI app: routes, request parsing, response rendering.

Endpoints: each wire API's routes (``wire/<api>.py``: ``POST /v1/chat/completions``,
``POST /v1/responses``, ``POST /v1/messages`` (``?beta=true`` too), ``POST
/v1/messages/count_tokens``, ``POST /v1beta/models/{model}:generateContent`` /
``:streamGenerateContent`` / ``:countTokens``; the OpenAI paths also answer without
``/v1``), ``GET /v1/models``, ``HEAD /`` (200), admin under ``/_autocue/`` (see ``admin``).
A WebSocket on an API's ``websocket_paths`` (``GET /v1/responses`` upgraded: OpenAI's WebSocket
mode, Codex's default) is served by ``websocket.SocketSession``; an upgrade elsewhere (or on a
server without WebSocket support) gets ``426 Upgrade Required`` at once, which makes a client
fall back to HTTP without retrying; another ``GET`` on an API path gets 404.
``/s/{session}/`` and ``/scenario/{name}/`` path prefixes (any order) name the session
and the scenario; ``/fuzz/{spec}/`` (or the ``x-autocue-fuzz`` header) fuzzes the streams, and
``x-autocue-chaos`` adds chaos (docs/chaos.md).

A request body must be JSON (415 for another ``Content-Type``), a JSON object, at most
``max_body`` bytes (413), and well-formed for its API (``validate``); every refusal, and
whatever the router refuses, is a 4xx in the API's error shape.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

import orjson

from autocue.mockllm.admin import AdminApi
from autocue.mockllm.asgi import Receive, Request, Response, Route, Router, Scope, Send, StreamingResponse, lifespan
from autocue.mockllm.chaos import ChaosPlan, ChaosTracker, body_delay, reset_connection, shape
from autocue.mockllm.error_bodies import error_body
from autocue.mockllm.history import HistoryCache
from autocue.mockllm.http import JSON, error_response, is_json_type, read_body
from autocue.mockllm.http import json_response as _json
from autocue.mockllm.ids import digest
from autocue.mockllm.incoming import ApiName, Incoming
from autocue.mockllm.state import MockState, Outcome
from autocue.mockllm.validate import problem
from autocue.mockllm.websocket import Contexts, SocketSession
from autocue.mockllm.wire.api import WireApi
from autocue.mockllm.wire.common import Segments, coalesce, now
from autocue.mockllm.wire.registry import all_apis, api_of_path, websocket_api, wire_api

if TYPE_CHECKING:  # chaos and fuzzing load with their first spec
    from autocue.mockllm.wire.fuzz import FuzzSpec
    from autocue.script.chaos import ChaosSpec

SSE_HEADERS = {"cache-control": "no-cache", "x-accel-buffering": "no"}
TRANSPORT_KEY = "autocue_transport"
"""Where the server's h11 protocol puts the connection's transport in ``scope["state"]``."""
WEBSOCKET_REFUSED = ("WebSocket is not supported on this path by the autocue mock LLM server (only the OpenAI "
                     "Responses paths take one); use HTTP POST (426: fall back at once)")
log = logging.getLogger(__name__)


def _api_of_path(path: str) -> ApiName:
    """The API whose error shape a request on ``path`` gets."""
    return api_of_path(path).name


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
        self.chaos = ChaosTracker()
        self.fuzz_log: dict[str, list[bytes]] | None = None
        self.history = HistoryCache()
        """Each session's last body, so a request that appends history parses and checks only the new items."""
        self.socket_contexts = Contexts()
        """Each WebSocket response's history by id, for a frame that continues it (``previous_response_id``)."""
        """When a dict: every fuzzed stream's bytes, per session key (``autocue fuzz-client``)."""
        # the wire APIs' routes first: the router tries them in order
        routes = [Route(r.path, self._endpoint(api), methods=r.methods) for api in all_apis() for r in api.routes]
        routes += [
            Route("/v1/models", self.models, methods=["GET"]),
            Route("/models", self.models, methods=["GET"]),
            Route("/v1beta/models", self.models, methods=["GET"]),
            Route("/v1/models/{model_id:path}", self.model, methods=["GET"]),
            Route("/", self.root, methods=["GET", "HEAD"]),
            *AdminApi(state).routes(),
            Route("/{rest:path}", self.not_found, methods=["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"]),
        ]
        self.router = Router(routes, self.refused)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        typ = scope["type"]
        if typ == "websocket":
            if scope["path"].startswith(("/s/", "/scenario/", "/fuzz/")):
                scope = _strip_prefixes(scope)
            api = websocket_api(scope["path"])
            if api is None or api.socket is None:
                await self._refuse_websocket(scope, send)
                return
            await SocketSession(self, api, api.socket, scope, receive, send).run()
            return
        if typ == "lifespan":  # an embedding server's start and stop: nothing to do
            await lifespan(receive, send)
            return
        path: str = scope["path"]
        if path.startswith(("/s/", "/scenario/", "/fuzz/")):
            scope = _strip_prefixes(scope)
        await self.router(scope, receive, send)

    async def _refuse_websocket(self, scope: Scope, send: Send) -> None:
        if "websocket.http.response" in scope.get("extensions", {}):
            body = orjson.dumps(error_body(_api_of_path(scope["path"]), 426, f"{scope['path']}: {WEBSOCKET_REFUSED}"))
            await send({"type": "websocket.http.response.start", "status": 426,
                        "headers": [(b"content-type", JSON.encode()), (b"content-length", str(len(body)).encode()),
                                    (b"x-should-retry", b"false")]})
            await send({"type": "websocket.http.response.body", "body": body})
        else:
            await send({"type": "websocket.close", "code": 1008})

    # ------------------------------------------------------------------ API endpoints
    def _endpoint(self, api: WireApi) -> Callable[[Request], Any]:
        async def handle(request: Request) -> Response:
            call = api.call(request.path)
            if call is None:
                return await self.not_found(request)
            if call.count:
                got = await self._parse(request, api.name)
                if isinstance(got, Response):
                    return got
                return _json(api.count_body(max(1, len(got[0]) // 4)))
            return await self.handle(request, api.name, call.model, call.stream)

        handle.__name__ = f"handle_{api.name}"
        return handle

    async def _parse(self, request: Request, api: str, cache_key: str | None = None) -> tuple[bytes, dict[str, Any]] \
            | Response:
        """The body, read, parsed and checked; with ``cache_key`` (the session and path), a body
        that only appends history to the key's previous one has only its new items parsed and
        checked (``HistoryCache``)."""
        ctype = request.headers.get("content-type")
        if ctype is not None and not is_json_type(ctype):
            return error_response(api, 415, f"the request body must be JSON (Content-Type: application/json), got "
                                            f"Content-Type {ctype[:80]!r}", code="unsupported_media_type")
        raw = await read_body(request, api, self.state.options.max_body)
        if isinstance(raw, Response):
            return raw
        wire = wire_api(api)
        try:
            body, seen = self.history.parse(cache_key, raw, wire.history_key) if cache_key is not None else \
                (orjson.loads(raw), 0)
        except orjson.JSONDecodeError as e:
            what = "the request body is empty: send a JSON object" if not raw.strip() else \
                f"malformed JSON in the request body: {e}"
            return error_response(api, 400, what, code="invalid_json")
        if not isinstance(body, dict):
            return error_response(api, 400, f"the request body must be a JSON object, got {type(body).__name__}",
                                  code="invalid_request")
        bad = problem(api, body, raw, seen)
        if bad is not None:
            return error_response(api, 400, bad, code="invalid_request")
        if cache_key is not None:
            self.history.remember(cache_key, raw, body, wire.history_key)
        return raw, body

    async def handle(self, request: Request, api: ApiName, model: str | None, stream: bool | None) -> Response:
        """Answer a model call of ``api``; ``model`` and ``stream`` when the path says them."""
        scope = request.scope
        headers = request.headers  # decoded once, also for ``_parse``
        query = request.query if scope.get("query_string") else {}
        session_key = _session_key(scope, headers, query)
        got = await self._parse(request, api, session_key + "\n" + scope["path"])
        if isinstance(got, Response):
            return got
        raw, body = got
        req = Incoming(
            api=api,
            body=body,
            headers=headers,
            path=scope["path"],
            raw_size=len(raw),
            stream=False,
            model="",
            session_key=session_key,
            scenario=scope.get("autocue_scenario") or headers.get("x-scenario-name") or None,
            profile=headers.get("x-autocue-profile") or None,
            query=query,
            raw=raw,
            transport=scope.get("autocue_via", "http"),
        )
        req.stream = req.view.stream if stream is None else stream
        req.model = model or req.view.model or "autocue-mock"
        chaos = self.state.options.chaos
        spec_text = headers.get("x-autocue-chaos")
        if spec_text:
            from autocue.script.chaos import ChaosSpecError, parse_chaos

            try:
                chaos = parse_chaos(spec_text)
            except ChaosSpecError as e:
                return error_response(api, 400, f"x-autocue-chaos header: {e}", code="invalid_chaos")
        fuzz = self.state.options.fuzz
        fuzz_text = scope.get("autocue_fuzz") or headers.get("x-autocue-fuzz")
        if fuzz_text:
            from autocue.mockllm.wire.fuzz import FuzzSpecError, parse_fuzz

            try:
                fuzz = parse_fuzz(fuzz_text)
            except FuzzSpecError as e:
                where = "/fuzz/{spec}/ path prefix" if scope.get("autocue_fuzz") else "x-autocue-fuzz header"
                return error_response(api, 400, f"{where}: {e}", code="invalid_fuzz")
        try:
            return await self.render(req, self.state.respond(req), chaos, scope, fuzz)
        except Exception as e:  # a bug in the server: still an answer the client's SDK can parse
            log.exception("autocue mock LLM: internal error answering %s %s", request.method, scope["path"])
            return error_response(api, 500, f"autocue mock LLM: internal error answering this request "
                                            f"({type(e).__name__}: {e}); this is a bug in autocue, please report it "
                                            "with the request")

    async def render(self, req: Incoming, out: Outcome, chaos: ChaosSpec | None = None,
                     scope: Scope | None = None, fuzz: FuzzSpec | None = None) -> Response:
        reply = out.reply
        if reply is None:
            return _json(out.body, out.status, out.headers)
        rid = digest(reply.seed, "req", size=12)
        headers = {"x-request-id": "req_" + rid, "request-id": "req_" + rid}
        spec = out.chaos or chaos
        plan: ChaosPlan | None = None
        transport = None
        if spec is not None and out.undo is not None:
            where = reply.seed if out.chaos is not None else f"{req.session_key}@{req.scenario or ''}"
            plan = self.chaos.decide(spec, where)
            if plan.loses_reply:
                out.undo()
            transport = (scope or {}).get("state", {}).get(TRANSPORT_KEY)
            if plan.reset_at == 0 or (plan.reset_at is not None and not req.stream):
                if transport is None:
                    return error_response(req.api, 500, "autocue mock LLM: chaos reset needs the autocue server "
                                                        "(serve() or autocue serve)")
                reset_connection(transport)
                await asyncio.sleep(0)
                return Response(b"", 500)
            if plan.error is not None:
                msg = (f"autocue mock LLM: chaos {spec.text!r} injected HTTP {plan.error} (the scripted reply "
                       "stays next)")
                return _json(error_body(req.api, plan.error, msg), plan.error, plan.error_headers())
        wire = req.wire
        if not req.stream:
            delay = reply.total_delay + (body_delay(plan, reply.output_tokens) if plan is not None else 0.0)
            if delay > 0:
                await asyncio.sleep(delay)
            body = orjson.dumps(wire.json_body(reply, req))
            if plan is not None and (plan.cut_at is not None or plan.malformed_at is not None):
                body = body[: len(body) // 2]
            return Response(body, 200, headers, media_type=JSON)
        fuzzer = None
        if fuzz is not None:
            from autocue.mockllm.wire.fuzz import Fuzzer

            fuzzer = Fuzzer(fuzz, _step_key(reply.seed))
        segments: Segments = wire.stream(reply, req, fuzzer)
        if fuzz is not None:
            headers["x-autocue-fuzz"] = fuzz.text
            if self.fuzz_log is not None:
                self.fuzz_log.setdefault(req.session_key, []).append(b"".join(f for _, f in segments))
        if plan is not None:
            segments = shape(plan, segments, reply.output_tokens)
        media = wire.media_type(req)
        headers.update(SSE_HEADERS)
        if plan is not None and plan.reset_at is not None:
            return StreamingResponse(_timed(segments, transport), 200, headers, media_type=media)
        segments = coalesce(segments)
        if len(segments) == 1 and segments[0][0] <= 0:
            if fuzzer is not None and plan is None and fuzz is not None and fuzz.tcp:
                return StreamingResponse(_pieces(fuzzer.tcp_pieces(segments[0][1])), 200, headers, media_type=media)
            return Response(segments[0][1], 200, headers, media_type=media)
        return StreamingResponse(_timed(segments), 200, headers, media_type=media)

    async def models(self, request: Request) -> Response:
        names = ["autocue-mock", *self.state.playables]
        created = now()
        if request.path.startswith("/v1beta"):
            return _json({"models": [{"name": f"models/{n}", "displayName": n,
                                      "supportedGenerationMethods": ["generateContent", "countTokens"]}
                                     for n in names]})
        return _json({"object": "list", "data": [_model(n, created) for n in names], "has_more": False,
                      "first_id": names[0], "last_id": names[-1]})

    async def model(self, request: Request) -> Response:
        return _json(_model(request.path_params["model_id"], now()))

    async def root(self, request: Request) -> Response:
        return _json({"ok": True, "server": "autocue-mockllm", "scenarios": list(self.state.playables)})

    async def refused(self, request: Request, status: int, headers: dict[str, str]) -> Response:
        """What the router itself refuses (a path no route matches, such as one with a
        newline; a method no route takes), in the shape of the API the path belongs to."""
        path = request.path
        what = "is not an endpoint of" if status == 404 else f"is refused ({status}) by"
        return error_response(_api_of_path(path), status, f"{request.method} {path!r} {what} the autocue mock LLM "
                                                          "server", headers=headers)

    async def not_found(self, request: Request) -> Response:
        path = request.path
        api = _api_of_path(path)
        if request.headers.get("upgrade", "").lower() == "websocket":
            return _json(error_body(api, 426, f"{path}: {WEBSOCKET_REFUSED}"), 426, {"x-should-retry": "false"})
        msg = f"{request.method} {path} is not an endpoint of the autocue mock LLM server"
        return _json(error_body(api, 404, msg), 404, {"x-should-retry": "false"})


def _model(name: str, created: int) -> dict[str, Any]:
    """A model as OpenAI's and Anthropic's model lists show one."""
    return {"id": name, "object": "model", "type": "model", "created": created, "created_at": "2025-01-01T00:00:00Z",
            "display_name": name, "owned_by": "autocue"}


async def _timed(segments: Segments, reset: Any = None) -> AsyncIterator[bytes]:
    """The frames, each after its wait; then, with a ``reset`` transport, a TCP reset (a
    moment later, so the frames reach the client first)."""
    for delay, data in segments:
        if delay > 0:
            await asyncio.sleep(delay)
        if data:
            yield data
    if reset is not None:
        await asyncio.sleep(0.05)
        reset_connection(reset)


def _step_key(seed: str) -> str:
    """``scenario:index`` of a reply seed ``scenario:session:index``: fuzzing depends on the
    step, not on the session's name."""
    return seed.partition(":")[0] + ":" + seed.rpartition(":")[2]


async def _pieces(pieces: list[bytes]) -> AsyncIterator[bytes]:
    """The body in separate writes (a fuzzed reply cut at any byte)."""
    for k, piece in enumerate(pieces):
        if k:
            await asyncio.sleep(0)
        yield piece


def _strip_prefixes(scope: Scope) -> Scope:
    path: str = scope["path"]
    scope = dict(scope)
    for _ in range(3):
        for key, prefix in (("autocue_session", "/s/"), ("autocue_scenario", "/scenario/"), ("autocue_fuzz", "/fuzz/")):
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
