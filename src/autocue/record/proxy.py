"""``RecordingProxy``: the ASGI app of ``autocue record``.

Every request is forwarded to the upstream as it came (same method, path, query, body and
headers, minus hop-by-hop headers; ``accept-encoding: identity`` so the reply can be read),
and the upstream's reply is streamed back chunk by chunk as it arrives (status and headers
included). Model calls of the four APIs (``/chat/completions``, ``/responses``,
``/messages``, ``:generateContent`` / ``:streamGenerateContent``) are also recorded: once a
reply has been passed on, it is read with autocue's provider parsers and appended to the
scenario of its session, which is rewritten in ``out_dir``.

The session key is the mock server's (``/s/{name}/`` path prefix, else the bearer token or API
key header, else ``?key=``, else ``default``); ``/s/`` and ``/scenario/`` prefixes address the
proxy and are not forwarded. A session named by a prefix is recorded as ``{name}.yaml``; one
keyed by a credential as ``session-{sha256 of it, 12 hex}.yaml`` (the key itself never reaches
a file name; the scenario's ``server.recording`` keeps its SHA-256 hash with the first
request's API, model, tools and system text hash, which ``autocue serve`` chooses a recording
by: see ``autocue.mockllm.choice``). A file that exists and was not written by this proxy is
never overwritten: the name gets ``-2``, ``-3``, ... Side calls the mock server answers on its own (opencode's title
request, Gemini CLI's router) are forwarded but not recorded, so the scenario replays.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import socket
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl

import orjson

from autocue.llm.providers.http import parse_retry_after
from autocue.mockllm.app import _api_of_path, _session_key, _strip_prefixes
from autocue.mockllm.asgi import Message, Receive, Scope, Send
from autocue.mockllm.choice import recording_traits
from autocue.mockllm.errors import error_body
from autocue.mockllm.incoming import ApiName, Incoming
from autocue.mockllm.sidecalls import side_call
from autocue.record.capture import Chunk, parse_reply
from autocue.scenario.redact import Redactor
from autocue.scenario.writer import Recording

if TYPE_CHECKING:
    import httpx2

API_CHOICES = ("auto", "chat", "responses", "anthropic", "gemini")
HOP_BY_HOP = frozenset({
    "connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer", "trailers",
    "transfer-encoding", "upgrade", "host", "accept-encoding", "content-length",
})
RESPONSE_DROP = frozenset({"connection", "keep-alive", "transfer-encoding", "date", "server"})
_SLUG = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass
class RecordOptions:
    upstream: str
    out_dir: Path
    api: str = "auto"
    redactor: Redactor = field(default_factory=Redactor)
    timeout: float = 600.0
    on_new_file: Callable[[str, Path], None] | None = None
    """Called with (session file stem, path) when a session's scenario is first written."""


def model_call_api(method: str, path: str, forced: str) -> ApiName | None:
    """The API of a model call at ``path`` (``None``: not a model call, forward only)."""
    if method != "POST" or path.endswith(("/count_tokens", ":countTokens")):
        return None
    if forced != "auto":
        return forced  # type: ignore[return-value]
    if path.endswith(("/chat/completions", "/responses", "/messages")) or ":generateContent" in path \
            or ":streamGenerateContent" in path:
        return _api_of_path(path)
    return None


class RecordingProxy:
    """Forwards to ``options.upstream`` and records model calls into ``options.out_dir``."""

    def __init__(self, options: RecordOptions) -> None:
        if options.api not in API_CHOICES:
            raise ValueError(f"unknown api {options.api!r}; use one of {', '.join(API_CHOICES)}")
        self.options = options
        self.upstream = options.upstream.rstrip("/")
        self.recordings: dict[str, Recording] = {}
        self.paths: dict[str, Path] = {}
        self._written: set[Path] = set()
        self._client: httpx2.AsyncClient | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    # ------------------------------------------------------------------ upstream client
    def _http(self) -> httpx2.AsyncClient:
        import httpx2

        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            # TCP_NODELAY: without it, Nagle's algorithm and delayed ACKs hold each request ~40 ms.
            transport = httpx2.AsyncHTTPTransport(
                socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)],
                limits=httpx2.Limits(max_connections=None, max_keepalive_connections=200))
            self._client = httpx2.AsyncClient(timeout=httpx2.Timeout(self.options.timeout, connect=10.0),
                                              transport=transport)
            self._loop = loop
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    # ------------------------------------------------------------------ ASGI
    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            return
        if scope["type"] != "http":
            await send({"type": "websocket.close", "code": 1008})
            return
        path: str = scope["path"]
        if path.startswith(("/s/", "/scenario/")):
            scope = _strip_prefixes(scope)
            path = scope["path"]
        body = await _read_body(receive)
        method: str = scope["method"]
        raw_headers: list[tuple[bytes, bytes]] = scope["headers"]
        qs: bytes = scope.get("query_string") or b""
        url = self.upstream + path + ("?" + qs.decode("latin-1") if qs else "")
        forward = [(k, v) for k, v in raw_headers if k.decode("latin-1").lower() not in HOP_BY_HOP]
        forward.append((b"accept-encoding", b"identity"))
        api = model_call_api(method, path, self.options.api)
        req = self._incoming(api, scope, path, raw_headers, qs, body) if api is not None else None
        http = self._http()
        started = time.perf_counter()
        try:
            resp = await http.send(http.build_request(method, url, headers=forward, content=body), stream=True)
        except Exception as e:
            await self._bad_gateway(send, api or _api_of_path(path), url, e)
            return
        chunks: list[Chunk] = []
        try:
            headers = [(k, v) for k, v in resp.headers.raw if k.decode("latin-1").lower() not in RESPONSE_DROP]
            await send({"type": "http.response.start", "status": resp.status_code, "headers": headers})
            async for chunk in resp.aiter_raw():
                if req is not None:
                    chunks.append((time.perf_counter() - started, chunk))
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        except Exception as e:  # the upstream or the client broke off: nothing complete to record
            print(f"autocue record: {method} {path}: the reply was cut ({type(e).__name__}: {e}); "
                  "not recorded", file=sys.stderr)
            return
        finally:
            await resp.aclose()
        if req is not None:
            await self._record(req[0], req[1], resp.status_code, resp.headers, chunks)

    async def _bad_gateway(self, send: Send, api: str, url: str, e: Exception) -> None:
        msg = (f"autocue record: cannot reach the upstream {url}: {type(e).__name__}: {e or 'no detail'} "
               "(is --upstream right and the server running?)")
        print(msg, file=sys.stderr)
        data = orjson.dumps(error_body(api, 502, msg))
        await send({"type": "http.response.start", "status": 502,
                    "headers": [(b"content-type", b"application/json"), (b"x-should-retry", b"false")]})
        await send({"type": "http.response.body", "body": data})

    # ------------------------------------------------------------------ recording
    def _incoming(self, api: ApiName, scope: Scope, path: str, raw_headers: list[tuple[bytes, bytes]], qs: bytes,
                  body: bytes) -> tuple[Incoming, str] | None:
        try:
            data = orjson.loads(body)
        except orjson.JSONDecodeError:
            return None
        if not isinstance(data, dict):
            return None
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in raw_headers}
        query = dict(parse_qsl(qs.decode("latin-1"))) if qs else {}
        model = str(data.get("model") or "")
        stream = bool(data.get("stream"))
        if api == "gemini":
            model = path.rpartition("/models/")[2].partition(":")[0] or model
            stream = ":streamGenerateContent" in path
        req = Incoming(api=api, body=data, headers=headers, path=path, raw_size=len(body), stream=stream,
                       model=model, session_key=_session_key(scope, headers, query), query=query)
        self.options.redactor.learn_headers(headers, query)
        if side_call(req, "recording") is not None:
            return None
        key = self._file_key(scope, req.session_key)
        rec = self.recordings.get(key)
        if rec is None:
            path_out = self._new_path(key)
            rec = Recording(path_out.stem, self.options.redactor, traits=recording_traits(req))
            self.recordings[key] = rec
            self.paths[key] = path_out
        rec.request(req.first_user_text(), req.last_user_text())
        return req, key

    @staticmethod
    def _file_key(scope: Scope, session_key: str) -> str:
        named = scope.get("autocue_session")
        if named:
            return _SLUG.sub("-", str(named)).strip("-.") or "session"
        if session_key == "default":
            return "default"
        return "session-" + hashlib.sha256(session_key.encode()).hexdigest()[:12]

    def _new_path(self, stem: str) -> Path:
        out = self.options.out_dir
        path = out / f"{stem}.yaml"
        n = 1
        while path.exists() or path in self.paths.values():
            n += 1
            path = out / f"{stem}-{n}.yaml"
        return path

    async def _record(self, req: Incoming, key: str, status: int, headers: Any, chunks: list[Chunk]) -> None:
        rec = self.recordings[key]
        if status >= 400:
            raw = b"".join(c for _, c in chunks)
            body, message, etype = _error_parts(raw)
            rec.error(status, body, message, parse_retry_after(headers), etype)
        else:
            ctype = headers.get("content-type", "")
            parsed = await parse_reply(req.api, chunks, event_stream="event-stream" in ctype, model=req.model)
            rec.reply(parsed)
        path = self.paths[key]
        first = path not in self._written
        rec.write(path)
        self._written.add(path)
        if first and self.options.on_new_file is not None:
            self.options.on_new_file(rec.name, path)


def _error_parts(raw: bytes) -> tuple[dict[str, Any] | None, str, str | None]:
    """(JSON body when it is an object, message, API error type) of an error reply."""
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        text = raw.decode("utf-8", "replace").strip()
        return None, text[:2000] or "(empty body)", None
    if isinstance(data, list) and len(data) == 1:
        data = data[0]
    if not isinstance(data, dict):
        return None, raw.decode("utf-8", "replace")[:2000], None
    err = data.get("error")
    if isinstance(err, dict):
        msg = err.get("message")
        etype = err.get("type") or err.get("status")
        return data, str(msg) if msg is not None else "(no message)", str(etype) if etype else None
    if isinstance(err, str):
        return data, err, None
    return data, str(data.get("message") or "(no message)"), None


async def _read_body(receive: Receive) -> bytes:
    parts: list[bytes] = []
    while True:
        msg: Message = await receive()
        if msg["type"] == "http.request":
            parts.append(msg.get("body", b""))
            if not msg.get("more_body", False):
                break
        elif msg["type"] == "http.disconnect":
            break
    return parts[0] if len(parts) == 1 else b"".join(parts)
