"""The admin API under ``/_autocue/``, and who may call it.

An agent under test and any web page open in the user's browser can reach a server on
loopback, so every admin request passes ``AdminApi.guard`` first, in this order:

1. ``Host`` must name loopback (``localhost``, ``127.0.0.0/8``, ``::1``) or the address the
   connection came in on: a foreign name is a DNS-rebinding page (403 ``forbidden_host``).
2. ``Origin``, when sent, must be this server itself (``http://127.0.0.1:PORT``,
   ``http://localhost:PORT``, ...): a browser sends a foreign one for any other page
   (403 ``forbidden_origin``).
3. With an admin token (``autocue serve --admin-token`` / ``AUTOCUE_ADMIN_TOKEN``), the
   request must carry it as ``Authorization: Bearer TOKEN`` or ``X-Autocue-Admin-Token``
   (401 ``admin_token_required``).
4. A ``POST`` must be ``Content-Type: application/json`` (415), so no HTML form or
   "simple" cross-site request can make one; its body is at most ``MAX_SCENARIO_BYTES``
   (413).

``POST /_autocue/scenarios`` loads posted YAML into memory under a ``name`` that must be an
identifier (no file is written), and reads files only from the scenario files and
directories the server was started with (403 otherwise; see ``sources``). Errors have the
OpenAI shape ``{"error": {"message", "type", "param", "code"}}``.
"""

from __future__ import annotations

import asyncio
import hmac
import re
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import orjson

from autocue.mockllm.asgi import Endpoint, Request, Response, Route
from autocue.mockllm.http import error_response, is_json_type, json_response, read_body
from autocue.mockllm.loopback import bound_address, host_is_local, origin_is_local
from autocue.mockllm.sources import MAX_SCENARIO_BYTES, ScenarioSourceError
from autocue.mockllm.state import MockState, PinLimitError

API = "admin"
NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]{0,63}")
"""A posted scenario's ``name``: an identifier (letters, digits, ``_``, ``-``; at most 64)."""
USAGE = 'expected {"yaml": "...", "name": "..."}, {"path": "..."} or {"paths": ["...", ...]}'
_CODES = {400: "invalid_request", 403: "path_not_allowed", 413: "request_too_large"}
AdminEndpoint = Callable[[Request, dict[str, Any]], Awaitable[Response]]


class AdminApi:
    """The ``/_autocue/`` routes over a ``MockState``."""

    def __init__(self, state: MockState) -> None:
        self.state = state
        self._loader = ThreadPoolExecutor(1, thread_name_prefix="autocue-admin-load")
        """Posted scenarios load here, one at a time (each may take hundreds of MB while it parses)."""

    def routes(self) -> list[Route]:
        g = self._guarded
        return [
            Route("/_autocue/health", g(self.health), methods=["GET"]),
            Route("/_autocue/sessions", g(self.sessions), methods=["GET"]),
            Route("/_autocue/sessions/{sid:path}/reset", g(self.reset_session), methods=["POST"]),
            Route("/_autocue/sessions/{sid:path}/requests", g(self.session_requests), methods=["GET"]),
            Route("/_autocue/sessions/{sid:path}/pin", g(self.pin), methods=["POST", "DELETE"]),
            Route("/_autocue/sessions/{sid:path}", g(self.session), methods=["GET", "DELETE"]),
            Route("/_autocue/reset", g(self.reset_all), methods=["POST"]),
            Route("/_autocue/scenarios", g(self.scenarios), methods=["GET", "POST"]),
        ]

    def _guarded(self, endpoint: AdminEndpoint) -> Endpoint:
        """``endpoint`` behind ``guard``; a ``POST`` also needs a JSON object body (``_body``),
        which the endpoint gets (``{}`` for other methods)."""

        async def guarded(request: Request) -> Response:
            refused = self.guard(request)
            if refused is not None:
                return refused
            body = await self._body(request) if request.method == "POST" else {}
            return body if isinstance(body, Response) else await endpoint(request, body)

        return guarded

    # ------------------------------------------------------------------ who may call
    def guard(self, request: Request) -> Response | None:
        """None when ``request`` may use the admin API, else the error to answer."""
        bound, port = bound_address(request.scope)
        host = request.headers.get("host")
        if not host_is_local(host, bound):
            return error_response(API, 403, f"admin request refused: Host {host!r} is not this server (the admin "
                                            "API answers only to a loopback Host or the bound address, so a "
                                            "DNS-rebinding web page cannot reach it)", code="forbidden_host")
        origin = request.headers.get("origin")
        if origin is not None and not origin_is_local(origin, bound, port):
            return error_response(API, 403, f"admin request refused: Origin {origin!r} is not this server (web "
                                            "pages may not call the admin API; send no Origin, as scripts and "
                                            "SDKs do)", code="forbidden_origin")
        token = self.state.options.admin_token
        if token and not self._has_token(request, token):
            return error_response(API, 401, "admin request refused: this server has an admin token; send it as "
                                            "'Authorization: Bearer TOKEN' or 'X-Autocue-Admin-Token: TOKEN'",
                                  code="admin_token_required", headers={"www-authenticate": "Bearer"})
        if request.method == "POST" and not is_json_type(request.headers.get("content-type")):
            got = request.headers.get("content-type") or "none"
            return error_response(API, 415, f"admin POST {request.path} needs 'Content-Type: application/json' "
                                            f"(got {got})", code="unsupported_media_type")
        return None

    @staticmethod
    def _has_token(request: Request, token: str) -> bool:
        want = token.encode()
        auth = request.headers.get("authorization", "")
        if auth[:7].lower() == "bearer " and hmac.compare_digest(auth[7:].strip().encode(), want):
            return True
        given = request.headers.get("x-autocue-admin-token")
        return given is not None and hmac.compare_digest(given.strip().encode(), want)

    async def _body(self, request: Request) -> dict[str, Any] | Response:
        """The JSON object body of an admin POST (an empty body is ``{}``)."""
        raw = await read_body(request, API, MAX_SCENARIO_BYTES)
        if isinstance(raw, Response):
            return raw
        if not raw.strip():
            return {}
        try:
            body = orjson.loads(raw)
        except orjson.JSONDecodeError as e:
            return error_response(API, 400, f"malformed JSON in the admin request body: {e}", code="invalid_json")
        if not isinstance(body, dict):
            return error_response(API, 400, f"the admin request body must be a JSON object, got "
                                            f"{type(body).__name__}: {USAGE}", code="invalid_request")
        return body

    # ------------------------------------------------------------------ routes
    async def health(self, request: Request, body: dict[str, Any]) -> Response:
        return json_response({"ok": True, "scenarios": len(self.state.playables),
                              "sessions": len(self.state.sessions)})

    async def sessions(self, request: Request, body: dict[str, Any]) -> Response:
        return json_response({"sessions": self.state.session_status()})

    async def session(self, request: Request, body: dict[str, Any]) -> Response:
        sid = request.path_params["sid"]
        if request.method == "DELETE":
            return json_response({"reset": self.state.reset(sid)})
        found = self.state.session_status(sid)
        if not found:
            return self._no_session(sid)
        return json_response(found[0] if len(found) == 1 else {"sessions": found})

    async def session_requests(self, request: Request, body: dict[str, Any]) -> Response:
        """The session's request journal, bodies included (a key shared by several scenarios
        answers ``{"sessions": [...]}``)."""
        sid = request.path_params["sid"]
        found = self.state.session_requests(sid)
        if not found:
            return self._no_session(sid)
        return json_response(found[0] if len(found) == 1 else {"sessions": found})

    async def pin(self, request: Request, body: dict[str, Any]) -> Response:
        """``POST``: keep the session (id or key; one not started yet too) past the TTL and the
        size bound; ``DELETE``: let it expire again."""
        sid = request.path_params["sid"]
        pinned = request.method == "POST"
        try:
            count = self.state.pin(sid, pinned)
        except PinLimitError as e:
            return error_response(API, 409, str(e), code="too_many_pins")
        return json_response({"session": sid, "pinned": pinned, "sessions": count})

    def _no_session(self, sid: str) -> Response:
        return error_response(API, 404, self.state.no_session(sid), code="not_found")

    async def reset_session(self, request: Request, body: dict[str, Any]) -> Response:
        sid = request.path_params["sid"]
        n = self.state.reset(sid)
        if not n:
            return self._no_session(sid)
        return json_response({"reset": n})

    async def reset_all(self, request: Request, body: dict[str, Any]) -> Response:
        return json_response({"reset": self.state.reset()})

    async def scenarios(self, request: Request, body: dict[str, Any]) -> Response:
        if request.method == "GET":
            return json_response({"scenarios": self.state.scenarios()})
        try:  # parsing a large scenario takes seconds: off the event loop, so every other client is answered
            names = await asyncio.get_running_loop().run_in_executor(self._loader, self._load, body)
        except ScenarioSourceError as e:
            return error_response(API, e.status, str(e), code=_CODES.get(e.status))
        return json_response({"loaded": names, "scenarios": list(self.state.playables)})

    def _load(self, body: dict[str, Any]) -> list[str]:
        kinds = [k for k in ("yaml", "path", "paths") if k in body]
        unknown = [k for k in body if k not in ("yaml", "name", "path", "paths")]
        if unknown or len(kinds) != 1 or ("name" in body and kinds != ["yaml"]):
            what = f"unknown key {unknown[0]!r}" if unknown else "no scenario given" if not kinds else \
                "give one of yaml, path, paths" if len(kinds) > 1 else "'name' goes with 'yaml'"
            raise ScenarioSourceError(f"{what}: {USAGE}")
        if "yaml" in body:
            text, name = body["yaml"], body.get("name", "scenario")
            if not isinstance(text, str):
                raise ScenarioSourceError(f"'yaml' must be a string of scenario YAML, got {type(text).__name__}")
            if not isinstance(name, str) or not NAME.fullmatch(name):
                raise ScenarioSourceError(f"'name' must be an identifier (letters, digits, '_', '-'; at most 64), "
                                          f"got {name!r}")
            return self.state.add_yaml(text, name)
        paths = [body["path"]] if "path" in body else body["paths"]
        if not isinstance(paths, list) or not paths or not all(isinstance(p, str) and p for p in paths):
            raise ScenarioSourceError(f"'path' must be a string and 'paths' a non-empty list of strings: {USAGE}")
        return self.state.add_paths(paths)
