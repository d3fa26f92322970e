"""The simulation REST API: scenarios played as sessions, events as SSE.

    GET  /api/v1/scenarios                 the scenarios loaded
    GET  /api/v1/schema                    the event JSON Schema
    POST /api/v1/sessions {"scenario": N}  start a session → 201 {"id": ...}
    GET  /api/v1/sessions[?all=1]          running and merged sessions (all=1: also completed/ended ones)
    GET  /api/v1/sessions/{id}             one session
    GET  /api/v1/sessions/{id}/events      SSE: ``id:`` per event, resumes after ``Last-Event-ID``

Errors answer ``{"error": "..."}`` with 400, 403, 404, 413, 415 or 429. Only loopback callers
get in, as to the mock server's admin API (``autocue.mockllm.loopback``): a foreign ``Host``
(DNS rebinding) or a foreign ``Origin`` gets 403; loopback pages and ``null`` (the viewer's
page opened from a file) may read the API and follow a stream (CORS names their origin). A
``POST`` needs ``Content-Type: application/json`` (415) and a body of at most ``max_body``
bytes (413). Sessions are bounded: one idle for ``session_ttl`` seconds with no open stream
is forgotten; past ``max_sessions``, a new one makes the least recently used finished and
unfollowed one go, and is refused (429) when there is none. The HTTP layer is the mock
server's (``autocue.mockllm.asgi``, on uvicorn).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any

import orjson

from autocue.mockllm.asgi import ASGIApp, Request, Response, Route, Router, StreamingResponse, loopback_only
from autocue.mockllm.http import error_response, is_json_type, read_body
from autocue.mockllm.http import json_response as _json
from autocue.mockllm.options import DEFAULT_MAX_BODY, MAX_SESSIONS, SESSION_TTL
from autocue.scenario import Scenario
from autocue.simulate.schema import event_json_schema
from autocue.simulate.sessions import SimSession

KEEPALIVE_S = 15.0
RETRY_MS = 500


class SimState:
    """The loaded scenarios (by name) and the sessions started on them."""

    def __init__(self, scenarios: list[Scenario], *, speed: float = 1.0, loop: bool = False,
                 max_body: int = DEFAULT_MAX_BODY, session_ttl: float = SESSION_TTL,
                 max_sessions: int = MAX_SESSIONS) -> None:
        self.scenarios: dict[str, Scenario] = {}
        for s in scenarios:
            if s.name in self.scenarios:
                raise ValueError(f"{s.pos.short}: scenario name {s.name!r} is also used by "
                                 f"{self.scenarios[s.name].pos.short}; scenario names must be unique")
            self.scenarios[s.name] = s
        self.speed = speed
        self.loop = loop
        self.max_body = max_body
        self.session_ttl = max(0.0, session_ttl)
        """A session idle this many seconds with no open stream is forgotten (0: never)."""
        self.max_sessions = max(0, max_sessions)
        """Sessions kept at most (0: no bound)."""
        self.sessions: dict[str, SimSession] = {}
        self.expired = 0

    def start(self, name: str) -> SimSession | None:
        """A new session playing ``name``, or None when ``max_sessions`` are kept and none can go."""
        self.expire()
        if self.max_sessions and len(self.sessions) >= self.max_sessions:
            idle = [s for s in self.sessions.values() if s.done and not s.streams]
            if not idle:
                return None
            self._forget(min(idle, key=lambda s: s.last_used))
        session = SimSession(self.scenarios[name], speed=self.speed, loop=self.loop)
        self.sessions[session.id] = session
        session.start()
        return session

    def get(self, sid: str) -> SimSession | None:
        """The session ``sid`` (marked used now), or None when there is none or it expired."""
        self.expire()
        session = self.sessions.get(sid)
        if session is not None:
            session.last_used = time.monotonic()
        return session

    def expire(self) -> None:
        """Forget the sessions idle past ``session_ttl`` that no stream follows."""
        if self.session_ttl <= 0:
            return
        cutoff = time.monotonic() - self.session_ttl
        for s in [s for s in self.sessions.values() if not s.streams and s.last_used < cutoff]:
            self._forget(s)

    def _forget(self, session: SimSession) -> None:
        session.stop()
        del self.sessions[session.id]
        self.expired += 1

    def drop_clients(self) -> None:
        for s in self.sessions.values():
            s.drop_clients()

    def stop(self) -> None:
        for s in self.sessions.values():
            s.stop()


def _error(message: str, status: int) -> Response:
    return error_response(API, status, message)


API = "simulate"


def frame(event: dict[str, Any]) -> bytes:
    """One SSE frame: ``id: N`` and the event as one ``data:`` line."""
    return b"id: %d\ndata: %s\n\n" % (event["id"], orjson.dumps(event))


class _Api:
    """The handlers of the REST API, over one ``SimState``."""

    def __init__(self, state: SimState) -> None:
        self.state = state

    def _names(self) -> str:
        return ", ".join(self.state.scenarios) or "none"

    async def scenarios(self, request: Request) -> Response:
        return _json({"items": [{"name": s.name, "file": s.file, "tags": s.tags, "prompt": s.initial_prompt}
                                for s in self.state.scenarios.values()]})

    async def schema(self, request: Request) -> Response:
        return _json(event_json_schema())

    async def create(self, request: Request) -> Response:
        state = self.state
        if not is_json_type(request.headers.get("content-type")):
            got = request.headers.get("content-type") or "none"
            return _error(f"POST /api/v1/sessions needs 'Content-Type: application/json' (got {got})", 415)
        raw = await read_body(request, API, state.max_body)
        if isinstance(raw, Response):
            return raw
        try:
            body = orjson.loads(raw) if raw.strip() else {}
        except orjson.JSONDecodeError as e:
            return _error(f"POST /api/v1/sessions: the body is not JSON ({e}); send {{\"scenario\": NAME}}", 400)
        if not isinstance(body, dict):
            return _error("POST /api/v1/sessions: the body must be a JSON object {\"scenario\": NAME}", 400)
        name = body.get("scenario")
        if name is None and len(state.scenarios) == 1:
            name = next(iter(state.scenarios))
        if not isinstance(name, str):
            return _error(f"POST /api/v1/sessions: give \"scenario\": one of {self._names()}", 400)
        if name not in state.scenarios:
            return _error(f"POST /api/v1/sessions: no scenario {name!r} (loaded: {self._names()})", 404)
        session = state.start(name)
        if session is None:
            return _error(f"POST /api/v1/sessions: {len(state.sessions)} sessions are kept, the limit "
                          f"(--max-sessions {state.max_sessions}), and none has finished unfollowed; try again "
                          f"when one has (an unfollowed one goes after --session-ttl {state.session_ttl:g} s)", 429)
        return _json({"id": session.id, **session.describe()}, 201)

    async def listing(self, request: Request) -> Response:
        self.state.expire()
        every = request.query.get("all") in ("1", "true", "yes")
        items = [s.describe() for s in self.state.sessions.values()
                 if every or s.status in ("running", "merged")]
        return _json({"items": items})

    def _find(self, request: Request) -> SimSession | Response:
        sid = request.path_params["sid"]
        session = self.state.get(sid)
        if session is None:
            return _error(f"{request.path}: no session {sid!r} (start one with POST /api/v1/sessions)", 404)
        return session

    async def describe(self, request: Request) -> Response:
        found = self._find(request)
        return found if isinstance(found, Response) else _json(found.describe())

    async def events(self, request: Request) -> Response:
        found = self._find(request)
        if isinstance(found, Response):
            return found
        raw = request.headers.get("last-event-id") or request.query.get("lastEventId") or "0"
        try:
            after = int(raw)
            if after < 0:
                raise ValueError
        except ValueError:
            return _error(f"{request.path}: Last-Event-ID {raw!r} is not an event id (a whole number >= 0)", 400)
        return StreamingResponse(_event_stream(found, after), media_type="text/event-stream",
                                 headers={"cache-control": "no-cache", "x-accel-buffering": "no"})


async def _event_stream(session: SimSession, after: int) -> AsyncIterator[bytes]:
    """The SSE body: the events after id ``after``, then each one as it is released, keep-alives
    between; the session counts as followed while it is open."""
    session.streams += 1
    try:
        async for chunk in _events_after(session, after):
            yield chunk
    finally:
        session.streams -= 1
        session.last_used = time.monotonic()


async def _events_after(session: SimSession, after: int) -> AsyncIterator[bytes]:
    pos = after  # ids are 1, 2, 3, ...: event k sits at released[k - 1]
    generation = session.generation
    yield b"retry: %d\n\n" % RETRY_MS
    while True:
        released = session.released
        if pos < len(released):
            chunk = b"".join(frame(e) for e in released[pos:])
            session.sent += len(released) - pos
            pos = len(released)
            yield chunk
            continue
        if session.done or session.generation != generation:
            return
        before = len(released)
        await session.wait(KEEPALIVE_S)
        if len(session.released) == before and session.generation == generation:
            yield b": keep-alive\n\n"


def create_app(state: SimState) -> ASGIApp:
    api = _Api(state)
    routes = [
        Route("/api/v1/scenarios", api.scenarios, methods=["GET"]),
        Route("/api/v1/schema", api.schema, methods=["GET"]),
        Route("/api/v1/sessions", api.create, methods=["POST"]),
        Route("/api/v1/sessions", api.listing, methods=["GET"]),
        Route("/api/v1/sessions/{sid}", api.describe, methods=["GET"]),
        Route("/api/v1/sessions/{sid}/events", api.events, methods=["GET"]),
    ]
    return loopback_only(Router(routes, _refused), ("GET", "POST"), lambda status, why: _error(why, status))


async def _refused(request: Request, status: int, headers: dict[str, str]) -> Response:
    return Response(b"Not Found" if status == 404 else b"Method Not Allowed", status, headers, media_type="text/plain")


__all__ = ["SimState", "create_app", "frame"]
