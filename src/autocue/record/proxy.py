"""``RecordingProxy``: the ASGI app of ``autocue record``.

Every request is forwarded to the upstream as it came (same method, path, query, body and
headers, minus hop-by-hop headers; ``accept-encoding: identity`` so the reply can be read),
and the upstream's reply is streamed back chunk by chunk as it arrives (status and headers
included). Model calls of every wire API (``/chat/completions``, ``/responses``,
``/messages``, ``:generateContent`` / ``:streamGenerateContent``: ``WireApi.model_call``) are
also recorded: once a reply has been passed on, it is read back by its API
(``WireApi.read_reply``: autocue's provider parsers for the built-in ones) and appended to the
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

The proxy keeps no state between clients: its upstream client (``autocue.record.upstream``:
keep-alive connections, the llhttp parser) has no cookie jar (each request carries exactly its
client's headers), and every credential, cookie and ``Set-Cookie``
value it sees is learned by the redactor, which every line it logs goes through. It has
bounds: request bodies over ``max_body`` bytes (the mock server's ``DEFAULT_MAX_BODY``) get the
API's 413 and are not forwarded; a reply is spooled as it passes (``ReplySpool``) and one over
``MAX_SCENARIO_BYTES`` (more than ``autocue serve`` loads) is forwarded whole but not recorded,
with a note on stderr; parsing and writing run in one worker thread, in arrival order, so the
event loop only forwards.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import re
import sys
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlsplit

import orjson

from autocue.catalog.apis import api_names
from autocue.llm.providers.http import parse_retry_after
from autocue.mockllm.app import _api_of_path, _session_key, _strip_prefixes
from autocue.mockllm.asgi import Receive, Request, Scope, Send, _ClientGone
from autocue.mockllm.choice import recording_traits
from autocue.mockllm.error_bodies import error_body
from autocue.mockllm.fingerprint import Conversation, Fingerprint, fingerprint
from autocue.mockllm.http import read_body
from autocue.mockllm.incoming import ApiName, Incoming
from autocue.mockllm.options import DEFAULT_MAX_BODY
from autocue.mockllm.sidecalls import side_call
from autocue.mockllm.sources import MAX_SCENARIO_BYTES
from autocue.mockllm.websocket import TRANSPORT_KEY, Contexts
from autocue.mockllm.wire.api import SocketMode, SocketRefusal, WireApi
from autocue.mockllm.wire.common import sse
from autocue.mockllm.wire.registry import find, websocket_api
from autocue.mockllm.wire.registry import model_call_api as _model_call_api
from autocue.record.capture import Chunk, ReplySpool, parse_reply
from autocue.scenario.redact import Redactor
from autocue.scenario.writer import Recording

if TYPE_CHECKING:
    from autocue.record.upstream import Upstream

API_CHOICES = ("auto", *api_names())
"""``--api`` values: ``auto`` (by the path) or a wire API's name (at import; ``RecordOptions``
takes any API registered later too)."""
HOP_BY_HOP = frozenset({
    "connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer", "trailers",
    "transfer-encoding", "upgrade", "host", "accept-encoding", "content-length",
})
_HOP_BY_HOP = frozenset(h.encode() for h in HOP_BY_HOP)
RESPONSE_DROP = frozenset({"connection", "keep-alive", "transfer-encoding", "date", "server"})
_RESPONSE_DROP = frozenset(h.encode() for h in RESPONSE_DROP)
_SLUG = re.compile(r"[^A-Za-z0-9._-]+")
LIVE_CONVERSATIONS = 256
"""Sessions whose last request the proxy keeps (to fingerprint the next one incrementally)."""
_BIG_BODY = 1024 * 1024
"""Request bodies of more bytes are parsed in a worker thread, not on the event loop."""


@dataclass
class RecordOptions:
    upstream: str
    out_dir: Path
    api: str = "auto"
    redactor: Redactor = field(default_factory=Redactor)
    timeout: float = 600.0
    on_new_file: Callable[[str, Path], None] | None = None
    """Called with (session file stem, path) when a session's scenario is first written."""
    max_body: int = DEFAULT_MAX_BODY
    """Request bodies above this many bytes get the API's 413 and are not forwarded."""
    max_reply: int = MAX_SCENARIO_BYTES
    """Replies above this many bytes are forwarded but not recorded."""
    fingerprints: bool = True
    """Write each request's fingerprint (``_meta.request``) and ``server.match: strict``."""


def model_call_api(method: str, path: str, forced: str) -> ApiName | None:
    """The API of a model call at ``path`` (``None``: not a model call, forward only)."""
    if method != "POST" or path.endswith(("/count_tokens", ":countTokens")):
        return None
    if forced != "auto":
        return forced
    api = _model_call_api(path)
    return api.name if api is not None else None


class RecordingProxy:
    """Forwards to ``options.upstream`` and records model calls into ``options.out_dir``."""

    def __init__(self, options: RecordOptions) -> None:
        if options.api != "auto" and find(options.api) is None:
            raise ValueError(f"unknown api {options.api!r}; use one of {', '.join(('auto', *api_names()))}")
        self.options = options
        self.upstream = options.upstream.rstrip("/")
        self.recordings: dict[str, Recording] = {}
        self.paths: dict[str, Path] = {}
        self._written: set[Path] = set()
        self._taken: set[Path] = set()
        """Every path given to a session (a set: a new session's name is checked in constant time)."""
        self._conversations: OrderedDict[str, tuple[Conversation, Fingerprint]] = OrderedDict()
        """The last ``LIVE_CONVERSATIONS`` sessions' last request (its fingerprint: the next one is written
        relative to it, and reads only the new messages); an older session's next request is read whole."""
        self._client: Upstream | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._parse_loop: asyncio.AbstractEventLoop | None = None
        """The writer thread's event loop, where replies are parsed."""
        self._writer = ThreadPoolExecutor(1, thread_name_prefix="autocue-record-write")
        """Parses and writes recordings, one at a time in submission order (never on the event loop)."""
        password = urlsplit(self.upstream).password
        if password:
            options.redactor.add_secret(password)

    def log(self, line: str) -> None:
        """Print ``line`` to stderr, redacted."""
        print(self.options.redactor.text(line), file=sys.stderr)

    # ------------------------------------------------------------------ upstream client
    def _http(self) -> Upstream:
        from autocue.record.upstream import Upstream  # (imports httpx2, for its URLs and SSL context)

        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            self._client = Upstream(self.upstream, timeout=self.options.timeout, connect=10.0)
            self._loop = loop
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None
        self._writer.submit(self._close_parse_loop)

    def close_writer(self) -> None:
        """Once the server has stopped (no ``aclose`` on its loop): wait for the recordings submitted so far,
        then close the writer thread's event loop."""
        self._writer.submit(self._close_parse_loop).result()

    def _close_parse_loop(self) -> None:
        loop = self._parse_loop
        if loop is not None:  # first the closing of generators a parse left (else "Task was destroyed" at exit)
            with contextlib.suppress(RuntimeError):
                loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()
            self._parse_loop = None

    # ------------------------------------------------------------------ ASGI
    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            return
        if scope["type"] == "websocket":
            await self._websocket(scope, receive, send)
            return
        if scope["type"] != "http":
            return
        path: str = scope["path"]
        if path.startswith(("/s/", "/scenario/")):
            scope = _strip_prefixes(scope)
            path = scope["path"]
        method: str = scope["method"]
        raw_headers: list[tuple[bytes, bytes]] = scope["headers"]
        qs: bytes = scope.get("query_string") or b""
        headers_in = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in raw_headers}
        query = dict(parse_qsl(qs.decode("latin-1"))) if qs else {}
        self.options.redactor.learn_headers(headers_in, query)  # before anything is logged
        api = model_call_api(method, path, self.options.api)
        try:
            body = await read_body(Request(scope, receive), api or _api_of_path(path), self.options.max_body,
                                   server="the recording proxy")
        except _ClientGone:
            return
        if not isinstance(body, bytes):  # too large: the API's 413, nothing forwarded
            await body(scope, receive, send)
            return
        url = self.upstream + path + ("?" + qs.decode("latin-1") if qs else "")
        forward = [(k, v) for k, v in raw_headers if k.lower() not in _HOP_BY_HOP]
        forward.append((b"accept-encoding", b"identity"))
        req = None
        if api is not None:
            data = await asyncio.to_thread(_json, body) if len(body) > _BIG_BODY else _json(body)
            req = self._incoming(api, scope, path, headers_in, query, body, data)
        http = self._http()
        started = time.perf_counter()
        try:
            resp = await http.send(method, url, forward, body)
        except Exception as e:
            await self._bad_gateway(send, api or _api_of_path(path), path, e)
            return
        spool = ReplySpool(self.options.max_reply) if req is not None else None
        try:
            self.options.redactor.learn_set_cookies(resp.get_list("set-cookie"))
            headers = [(k, v) for k, v in resp.headers if k.lower() not in _RESPONSE_DROP]
            await send({"type": "http.response.start", "status": resp.status, "headers": headers})
            last = b""  # held back until the reply is recorded: a client reading a content-length body
            async for chunk in resp:  # has it all with its last byte, before the reply's end
                if spool is not None:
                    spool.add(time.perf_counter() - started, chunk)
                if last:
                    await send({"type": "http.response.body", "body": last, "more_body": True})
                last = chunk
        except Exception as e:  # the upstream or the client broke off: nothing complete to record
            self.log(f"autocue record: {method} {path}: the reply was cut ({type(e).__name__}: {e}); not recorded")
            if spool is not None:
                spool.close()
            return
        finally:
            resp.close()
        if req is not None and spool is not None:
            # every byte but the last chunk has passed; the reply ends once it is recorded (off the event
            # loop: other clients go on), so a client that has its reply finds it in the recording
            if spool.over:
                self.log(f"autocue record: {method} {path}: the reply of {spool.size} bytes is larger than "
                         f"{self.options.max_reply} bytes (more than autocue serve loads): forwarded, not recorded")
                spool.close()
            else:
                rec_req, key = req
                try:
                    await asyncio.get_running_loop().run_in_executor(
                        self._writer, self._record, rec_req, key, resp.status, resp, spool)
                except OSError as e:  # a full disk, or a recording file replaced by a link (RecordingFileError)
                    self.log(f"autocue record: {method} {path}: the reply was forwarded but not recorded: {e}")
        with contextlib.suppress(OSError):  # a client that left after the last byte: nothing more to tell it
            await send({"type": "http.response.body", "body": last, "more_body": False})

    # ------------------------------------------------------------------ WebSocket
    async def _websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Relay a WebSocket to the upstream's, frame by frame; each response of an API's WebSocket
        mode (``WireApi.socket``) is recorded as the turn its HTTP request would have been."""
        from websockets.asyncio.client import connect
        from websockets.exceptions import InvalidStatus

        if scope["path"].startswith(("/s/", "/scenario/")):
            scope = _strip_prefixes(scope)
        path: str = scope["path"]
        api = websocket_api(path)
        if api is None or api.socket is None:
            await _refuse(send, 426, error_body(_api_of_path(path), 426, f"{path}: the recording proxy relays a "
                                                "WebSocket on the OpenAI Responses paths only; use HTTP POST"))
            return
        raw_headers: list[tuple[bytes, bytes]] = scope["headers"]
        qs: bytes = scope.get("query_string") or b""
        headers_in = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in raw_headers}
        query = dict(parse_qsl(qs.decode("latin-1"))) if qs else {}
        self.options.redactor.learn_headers(headers_in, query)
        url = re.sub(r"^http", "ws", self.upstream) + path + ("?" + qs.decode("latin-1") if qs else "")
        forward = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in raw_headers
                   if k.decode("latin-1") not in HOP_BY_HOP and not k.startswith(b"sec-websocket-")]
        try:
            upstream = await connect(url, additional_headers=forward, user_agent_header=None, open_timeout=10,
                                     max_size=self.options.max_body)
        except InvalidStatus as e:  # the upstream's refusal (a 426, a 401) goes to the client as it is
            body = bytes(e.response.body)
            await _refuse(send, e.response.status_code, None, body)
            return
        except Exception as e:
            msg = self.options.redactor.text(f"autocue record: cannot open a WebSocket to the upstream {url}: "
                                             f"{type(e).__name__}: {e or 'no detail'}")
            self.log(msg)
            await _refuse(send, 502, error_body(api.name, 502, msg))
            return
        relay = _SocketRelay(self, api, api.socket, scope, headers_in, query)
        async with upstream:
            if (await receive())["type"] != "websocket.connect":
                return
            await send({"type": "websocket.accept"})
            pump = asyncio.ensure_future(relay.from_upstream(upstream, send))
            try:
                while True:
                    message = await receive()
                    if message["type"] == "websocket.disconnect":
                        break
                    text = message.get("text")
                    if text is not None:
                        relay.from_client(text)
                        await upstream.send(text)
                    else:
                        await upstream.send(message.get("bytes") or b"")
            except Exception as e:  # the upstream went away: its pump closes the client's side
                self.log(f"autocue record: WebSocket {path}: {type(e).__name__}: {e}")
            finally:
                await upstream.close()
                await asyncio.gather(pump, return_exceptions=True)

    async def _bad_gateway(self, send: Send, api: str, path: str, e: Exception) -> None:
        msg = self.options.redactor.text(
            f"autocue record: cannot reach the upstream {self.upstream}{path}: {type(e).__name__}: "
            f"{e or 'no detail'} (is --upstream right and the server running?)")
        print(msg, file=sys.stderr)
        data = orjson.dumps(error_body(api, 502, msg))
        await send({"type": "http.response.start", "status": 502,
                    "headers": [(b"content-type", b"application/json"), (b"x-should-retry", b"false")]})
        await send({"type": "http.response.body", "body": data})

    # ------------------------------------------------------------------ recording
    def _incoming(self, api: ApiName, scope: Scope, path: str, headers: dict[str, str], query: dict[str, str],
                  body: bytes, data: Any) -> tuple[Incoming, str] | None:
        if not isinstance(data, dict):
            return None
        req = Incoming(api=api, body=data, headers=headers, path=path, raw_size=len(body), stream=False,
                       model="", session_key=_session_key(scope, headers, query), query=query)
        call = req.wire.call(path)
        req.model = (call.model if call is not None else None) or req.view.model
        req.stream = req.view.stream if call is None or call.stream is None else call.stream
        if side_call(req, "recording") is not None:
            return None
        key = self._file_key(scope, req.session_key)
        self._writer.submit(self._request, key, req)  # in arrival order, while the upstream answers
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
        while path in self._taken or path.exists():
            n += 1
            path = out / f"{stem}-{n}.yaml"
        return path

    def _request(self, key: str, req: Incoming) -> None:
        """Note a request on its session's recording (made at its first request), with its fingerprint."""
        rec = self.recordings.get(key)
        if rec is None:
            path_out = self._new_path(key)
            rec = Recording(path_out.stem, self.options.redactor, traits=recording_traits(req),
                            match="strict" if self.options.fingerprints else None)
            self.recordings[key] = rec
            self.paths[key] = path_out
            self._taken.add(path_out)
        fp = None
        if self.options.fingerprints:
            convs = self._conversations
            conv, prev = convs.pop(key, None) or (Conversation(), None)
            live = fingerprint(req, conv)
            fp = self.options.redactor.value(live.to_json(prev))
            convs[key] = (conv, live)
            if len(convs) > LIVE_CONVERSATIONS:
                convs.popitem(last=False)
        rec.request(req.first_user_text(), req.last_user_text(), fp)

    def _record(self, req: Incoming, key: str, status: int, headers: Any, spool: ReplySpool) -> None:
        """Parse a reply and rewrite its session's file (in the writer thread)."""
        try:
            chunks: list[Chunk] = spool.chunks()
        finally:
            spool.close()
        rec = self.recordings[key]
        if status >= 400:
            raw = b"".join(c for _, c in chunks)
            body, message, etype = _error_parts(raw)
            rec.error(status, body, message, parse_retry_after(headers), etype)
        else:
            ctype = headers.get("content-type", "")
            if self._parse_loop is None:  # one loop for the writer thread's life (asyncio.run makes one per reply)
                self._parse_loop = asyncio.new_event_loop()
            parsed = self._parse_loop.run_until_complete(
                parse_reply(req.api, chunks, event_stream="event-stream" in ctype, model=req.model))
            rec.reply(parsed)
        path = self.paths[key]
        first = path not in self._written
        rec.write(path)
        rec.release()  # what is in the file is not kept in memory
        self._written.add(path)
        if first and self.options.on_new_file is not None:
            self.options.on_new_file(rec.name, path)


@dataclass
class _Turn:
    """A response in flight on a relayed WebSocket: its request as HTTP would carry it, and its events."""

    body: dict[str, Any]
    req: tuple[Incoming, str] | None
    spool: ReplySpool
    started: float


class _SocketRelay:
    """What a relayed WebSocket records: each client frame's request (rebuilt whole from the contexts
    of earlier responses, as the mock server does), each response's events as the SSE stream HTTP
    would have carried, each error event as the HTTP error it stands for."""

    def __init__(self, proxy: RecordingProxy, api: WireApi, mode: SocketMode, scope: Scope,
                 headers: dict[str, str], query: dict[str, str]) -> None:
        self.proxy = proxy
        self.api = api
        self.mode = mode
        self.scope = scope
        self.headers = headers
        self.query = query
        self.contexts = Contexts()
        self.turns: dict[str | None, _Turn] = {}

    def from_client(self, text: str) -> None:
        frame = _json(text.encode())
        if not isinstance(frame, dict):
            return
        got = self.mode.turn(frame, self.contexts.get)
        if isinstance(got, SocketRefusal):
            return  # the upstream answers it; nothing to record
        req = None
        if got.generate:  # (a warm-up plays no scripted reply: only its context is kept)
            raw = orjson.dumps(got.body)
            req = self.proxy._incoming(self.api.name, self.scope, self.scope["path"], self.headers, self.query, raw,
                                       got.body)
        self.turns[got.lane] = _Turn(got.body, req, ReplySpool(self.proxy.options.max_reply), time.perf_counter())

    async def from_upstream(self, upstream: Any, send: Send) -> None:
        from websockets.exceptions import ConnectionClosedOK

        try:
            async for message in upstream:
                if isinstance(message, str):
                    await self._record(message)
                    await send({"type": "websocket.send", "text": message})
                else:
                    await send({"type": "websocket.send", "bytes": message})
        except ConnectionClosedOK:
            pass
        except Exception:  # closed abnormally (a reset): so is the client's socket
            transport = self.scope.get("state", {}).get(TRANSPORT_KEY)
            if transport is not None:
                transport.abort()
                return
        code = upstream.close_code or 1000
        with contextlib.suppress(Exception):
            await send({"type": "websocket.close", "code": 1000 if code in (1005, 1006) else code})

    async def _record(self, text: str) -> None:
        event = _json(text.encode())
        if not isinstance(event, dict):
            return
        lane = event.get("stream_id")
        lane = lane if isinstance(lane, str) else None
        turn = self.turns.get(lane)
        if turn is None:
            return
        if event.get("type") == "error":
            del self.turns[lane]
            err = dict(event.get("error") or {})
            headers = event.get("headers") or err.pop("headers", None) or {}
            err.pop("headers", None)
            status = int(event.get("status") or 500)
            turn.spool.add(0.0, orjson.dumps({"error": err}))
            await self._write(turn, status, headers)
            return
        shown = {k: v for k, v in event.items() if k != "stream_id"}
        turn.spool.add(time.perf_counter() - turn.started, sse(str(event.get("type")), shown))
        done = self.mode.finished(event, turn.body)
        if done is not None:
            self.contexts.put(*done)
            del self.turns[lane]
            await self._write(turn, 200, {"content-type": "text/event-stream"})

    async def _write(self, turn: _Turn, status: int, headers: dict[str, str]) -> None:
        if turn.req is None:
            turn.spool.close()
            return
        req, key = turn.req
        try:
            await asyncio.get_running_loop().run_in_executor(self.proxy._writer, self.proxy._record, req, key,
                                                             status, headers, turn.spool)
        except OSError as e:
            self.proxy.log(f"autocue record: WebSocket {req.path}: the reply was relayed but not recorded: {e}")


async def _refuse(send: Send, status: int, body: Any, raw: bytes | None = None) -> None:
    """An HTTP answer to a WebSocket upgrade (``websocket.http.response``)."""
    data = raw if raw is not None else orjson.dumps(body)
    await send({"type": "websocket.http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode()),
                            (b"x-should-retry", b"false")]})
    await send({"type": "websocket.http.response.body", "body": data})


def _json(body: bytes) -> Any:
    """The request body as JSON (``None`` when it is not)."""
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError:
        return None


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
