"""The HTTP side every real provider shares: the client, streamed requests, errors, abort.

``HttpProvider`` is the base class of the four API providers. It runs the request and the
read loop; a subclass says what to send (``_prepare``) and how to read one SSE event
(``_read``) or a whole JSON reply (``_whole``). The base turns that into an
``AssistantMessageEventStream`` that never raises:

- HTTP errors (status >= 400) become a final ``error`` message with ``error_status``,
  ``retry_after`` (from ``retry-after-ms`` / ``retry-after`` headers or a Gemini
  ``RetryInfo``) and ``error_message`` = ``"<status> <body message>"``;
- an abort (``options.signal``) cancels the request at once, even mid-stream, and ends the
  stream with stop reason ``aborted`` keeping the partial content;
- transport failures (refused connection, a stream cut mid-event) become ``error`` naming the
  API, method and URL.

``request(...)`` yields parsed ``SSEEvent``s for an event stream, or one ``JsonBody`` when the
server answers with plain JSON (the non-streaming fallback). ``httpx2`` is imported lazily so
importing a provider costs nothing until the first request.
"""

from __future__ import annotations

import asyncio
import email.utils
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from enum import IntEnum
from typing import TYPE_CHECKING, Any, TypeAlias

import orjson

from autocue.errors import AutocueError
from autocue.llm.errors import ProviderHTTPError as ProviderHTTPError
from autocue.llm.errors import ProviderStreamError as ProviderStreamError
from autocue.llm.events import AssistantMessageEvent, ErrorEvent
from autocue.llm.providers.builder import MessageBuilder
from autocue.llm.providers.sse import SSEDecoder, SSEEvent
from autocue.llm.stream import AssistantMessageEventStream, StreamOptions, guarded
from autocue.llm.types import Context, Model

if TYPE_CHECKING:
    import httpx2

ApiKeyResolver = Callable[[str], "str | None"]
"""``resolver(provider_name) -> key`` used when ``StreamOptions.api_key`` is not given."""

Prepared: TypeAlias = tuple[str, dict[str, str], dict[str, Any], "bool | None"]
"""What a provider sends: URL, the API's headers, body (``payload`` applied), ``expect_stream``."""


class _Aborted(AutocueError):
    pass


@dataclass(slots=True)
class JsonBody:
    """A whole JSON response (non-streaming request, or a server that would not stream)."""

    data: Any


_END = object()


class Read(IntEnum):
    """What one SSE event meant for the reply: read on, finished (more may follow), or the end."""

    MORE = 0
    FINISHED = 1
    END = 2


class HttpProvider:
    """Base of the HTTP providers. One instance holds one connection pool per event loop."""

    api = ""
    stream_end = ""
    """What a complete stream has, for the error when it ends without it."""

    def __init__(
        self,
        *,
        api_key_resolver: ApiKeyResolver | None = None,
        timeout: float = 600.0,
        connect_timeout: float = 10.0,
        transport: Any = None,
    ) -> None:
        self.api_key_resolver = api_key_resolver
        self.timeout = timeout
        self.connect_timeout = connect_timeout
        self.transport = transport
        self._held: tuple[asyncio.AbstractEventLoop, httpx2.AsyncClient] | None = None

    # ------------------------------------------------------------------ provider seam
    def stream(self, model: Model, context: Context, options: StreamOptions) -> AssistantMessageEventStream:
        return guarded(model, self._run(model, context, options), options.signal)

    def _prepare(self, model: Model, context: Context, options: StreamOptions) -> Prepared:
        raise NotImplementedError

    def _read(self, b: MessageBuilder, ev: SSEEvent, where: str, out: list[AssistantMessageEvent]) -> Read:
        """Apply one SSE event to ``b``, appending the stream events it makes to ``out``."""
        raise NotImplementedError

    def _whole(self, b: MessageBuilder, data: Any, where: str, out: list[AssistantMessageEvent]) -> bool:
        """Apply a whole JSON reply to ``b``; True when it says the reply is finished."""
        raise NotImplementedError

    async def _events(
        self, b: MessageBuilder, model: Model, context: Context, options: StreamOptions
    ) -> AsyncIterator[AssistantMessageEvent]:
        url, hdrs, body, expect_stream = self._prepare(model, context, options)
        where = f"{self.api}: POST {url}"
        out: list[AssistantMessageEvent] = [b.start()]
        state = Read.MORE
        headers = self.headers(model, options, hdrs)
        async for item in self.request(url, headers, body, options, expect_stream=expect_stream):
            if isinstance(item, JsonBody):
                if self._whole(b, item.data, where, out):
                    state = Read.END
                break
            state = max(state, self._read(b, item, where, out))
            if state is Read.END:
                break
            if out:
                for ev in out:
                    yield ev
                out.clear()
        if state is Read.MORE:
            raise ProviderStreamError(f"{where}: the stream ended before {self.stream_end}")
        b.done(out)
        for ev in out:
            yield ev

    async def _run(
        self, model: Model, context: Context, options: StreamOptions
    ) -> AsyncIterator[AssistantMessageEvent]:
        b = MessageBuilder(model)
        signal = options.signal
        try:
            if signal is not None and signal.aborted:
                raise _Aborted
            async for ev in self._events(b, model, context, options):
                yield ev
            return
        except _Aborted:
            msg = b.msg
            msg.stop_reason = "aborted"
            msg.error_message = (signal.reason if signal is not None else None) or "Request was aborted"
            yield ErrorEvent("aborted", msg)
        except (ProviderHTTPError, ProviderStreamError) as e:
            msg = b.msg
            msg.stop_reason = "error"
            msg.error_message = str(e)
            msg.error_status = e.status
            if isinstance(e, ProviderHTTPError):
                msg.retry_after = e.retry_after
            yield ErrorEvent("error", msg)

    # ------------------------------------------------------------------ helpers for subclasses
    def api_key(self, model: Model, options: StreamOptions) -> str | None:
        if options.api_key:
            return options.api_key
        if self.api_key_resolver is not None:
            return self.api_key_resolver(model.provider)
        return None

    def headers(self, model: Model, options: StreamOptions, base: dict[str, str]) -> dict[str, str]:
        """``base`` (API headers) overlaid with the model's and then the call's headers."""
        return {**base, **model.headers, **(options.headers or {})}

    def payload(self, body: dict[str, Any], options: StreamOptions) -> dict[str, Any]:
        """Let ``options.on_payload`` inspect or replace the request body."""
        if options.on_payload is not None:
            r = options.on_payload(body)
            if isinstance(r, dict):
                return r
        return body

    def _client(self) -> httpx2.AsyncClient:
        import httpx2

        loop = asyncio.get_running_loop()
        held = self._held
        if held is not None and held[0] is loop and not held[1].is_closed:
            return held[1]
        # A new loop (tests run one per test): start a fresh pool. Holding the loop object keeps
        # its id from being reused by a later loop while this pool exists.
        c = httpx2.AsyncClient(
            timeout=httpx2.Timeout(self.timeout, connect=self.connect_timeout),
            transport=self.transport,
        )
        self._held = (loop, c)
        return c

    async def aclose(self) -> None:
        """Close the connection pool (when it belongs to the running loop)."""
        held = self._held
        if held is not None and held[0] is asyncio.get_running_loop():
            self._held = None
            await held[1].aclose()

    async def request(
        self,
        url: str,
        headers: dict[str, str],
        body: dict[str, Any],
        options: StreamOptions,
        *,
        expect_stream: bool | None = None,
    ) -> AsyncIterator[SSEEvent | JsonBody]:
        """POST ``body`` as JSON and yield SSE events (or one ``JsonBody``) as they arrive.

        Raises ``ProviderHTTPError`` for a status >= 400, ``ProviderStreamError`` for a
        transport failure, ``_Aborted`` when ``options.signal`` fires. ``expect_stream``
        (default: ``body["stream"] is True``) says whether an event stream is expected.
        """
        signal = options.signal
        streaming = body.get("stream") is True if expect_stream is None else expect_stream
        queue: asyncio.Queue[Any] = asyncio.Queue()
        hdrs = {"content-type": "application/json", **headers}
        produce = _produce(self._client(), url, orjson.dumps(body), hdrs, streaming, f"{self.api}: POST {url}", queue)
        task = asyncio.get_running_loop().create_task(produce)
        remove = None
        if signal is not None:

            def on_abort() -> None:
                task.cancel()
                queue.put_nowait(_Aborted())

            remove = signal.add_listener(on_abort)
        try:
            while True:
                item = await queue.get()
                if signal is not None and signal.aborted:
                    raise _Aborted
                if item is _END:
                    return
                if isinstance(item, Exception):
                    raise item
                yield item
                if isinstance(item, JsonBody):
                    return
        finally:
            if remove is not None:
                remove()
            if not task.done():
                task.cancel()
                try:
                    await task
                except BaseException:  # the task was cancelled on purpose
                    pass


async def _produce(
    client: httpx2.AsyncClient, url: str, content: bytes, headers: dict[str, str], streaming: bool, where: str,
    queue: asyncio.Queue[Any],
) -> None:
    """POST ``content`` and put what comes back on ``queue``: SSE events then ``_END``, one
    ``JsonBody``, or the exception that ends the request (a transport failure included)."""
    try:
        async with client.stream("POST", url, content=content, headers=headers) as resp:
            await _read_response(resp, streaming, where, queue)
    except asyncio.CancelledError:
        raise
    except Exception as e:
        queue.put_nowait(ProviderStreamError(_transport_text(where, e)))


async def _read_response(resp: httpx2.Response, streaming: bool, where: str, queue: asyncio.Queue[Any]) -> None:
    if resp.status_code >= 400:
        raw = await resp.aread()
        queue.put_nowait(_http_error(resp.status_code, resp.headers, raw))
        return
    ctype = resp.headers.get("content-type", "")
    if "event-stream" not in ctype and ("json" in ctype or not streaming):
        raw = await resp.aread()
        try:
            queue.put_nowait(JsonBody(orjson.loads(raw)))
        except orjson.JSONDecodeError:
            queue.put_nowait(
                ProviderStreamError(
                    f"{where}: expected a JSON or event-stream body, got {ctype or 'no content-type'}: {raw[:200]!r}"
                )
            )
        return
    dec = SSEDecoder()
    async for chunk in resp.aiter_bytes():
        for ev in dec.feed(chunk):
            queue.put_nowait(ev)
    for ev in dec.flush():
        queue.put_nowait(ev)
    queue.put_nowait(_END)


def _transport_text(where: str, e: Exception) -> str:
    name = type(e).__name__
    text = str(e) or name
    hint = ""
    if name in ("ConnectError", "ConnectTimeout"):
        hint = " (is the server running and the provider's base_url right?)"
    elif name in ("RemoteProtocolError", "ReadError"):
        hint = " (the connection was cut before the response was complete)"
    elif name.endswith("Timeout"):
        hint = " (no answer in time)"
    return f"{where}: {name}: {text}{hint}"


def _http_error(status: int, headers: Any, raw: bytes) -> ProviderHTTPError:
    message = _body_message(raw)
    retry = parse_retry_after(headers)
    if retry is None:
        retry = _gemini_retry_delay(raw)
    return ProviderHTTPError(status, message, retry)


def _body_message(raw: bytes) -> str:
    """The human part of an API error body: ``type: message`` when the body is JSON."""
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        text = raw.decode("utf-8", "replace").strip()
        return text[:2000] if text else "(empty body)"
    err = data.get("error") if isinstance(data, dict) else None
    if isinstance(err, dict):
        msg = err.get("message")
        kind = err.get("type") or err.get("status") or err.get("code")
        if isinstance(msg, str):
            return f"{kind}: {msg}" if isinstance(kind, str) and kind else msg
    elif isinstance(err, str):
        return err
    if isinstance(data, dict) and isinstance(data.get("message"), str):
        return str(data["message"])
    return raw.decode("utf-8", "replace")[:2000]


def parse_retry_after(headers: Any) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date)."""
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    ra = headers.get("retry-after")
    if not ra:
        return None
    try:
        return max(0.0, float(ra))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(ra)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _gemini_retry_delay(raw: bytes) -> float | None:
    try:
        data = orjson.loads(raw)
        for d in data["error"]["details"]:
            delay = d.get("retryDelay")
            if isinstance(delay, str) and delay.endswith("s"):
                return float(delay[:-1])
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError):
        return None
    return None


def loads_event(ev: SSEEvent, where: str) -> Any:
    """The JSON payload of an SSE event, or ``ProviderStreamError`` naming the event."""
    try:
        return orjson.loads(ev.data)
    except orjson.JSONDecodeError as e:
        raise ProviderStreamError(
            f"{where}: event {ev.event!r} has invalid JSON data ({e}): {ev.data[:200]!r}"
        ) from None


__all__ = [
    "ApiKeyResolver",
    "HttpProvider",
    "JsonBody",
    "ProviderHTTPError",
    "ProviderStreamError",
    "loads_event",
    "parse_retry_after",
]
