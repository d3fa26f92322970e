"""Reading a recorded reply with autocue's own provider of its API (``WireApi.read_reply``).

The recorded chunks are decoded with the providers' SSE decoder and the provider's stream
parser (``autocue.llm.providers``) runs over the events, so a recording reads the wire exactly
as autocue's providers do. The result is the final ``AssistantMessage`` plus, for every
content block, when its first piece arrived.
"""

from __future__ import annotations

import importlib
from collections.abc import AsyncIterator, Sequence
from typing import Any

import orjson

from autocue.llm.events import (
    AssistantMessageEvent,
    DoneEvent,
    ErrorEvent,
    TextStartEvent,
    ThinkingStartEvent,
    ToolCallStartEvent,
)
from autocue.llm.providers import PROVIDER_CLASSES
from autocue.llm.providers.http import HttpProvider, JsonBody
from autocue.llm.providers.sse import SSEDecoder, SSEEvent
from autocue.llm.stream import StreamOptions
from autocue.llm.types import AssistantMessage, Context, Model
from autocue.mockllm.wire.view import Chunk
from autocue.scenario.writer import TimedReply


class _Tap:
    """Replaces a provider's HTTP request with the recorded items (the parser stays the provider's)."""

    items: Sequence[tuple[float, SSEEvent | JsonBody]] = ()
    now: float = 0.0

    async def request(
        self,
        url: str,
        headers: dict[str, str],
        body: dict[str, Any],
        options: StreamOptions,
        *,
        expect_stream: bool | None = None,
    ) -> AsyncIterator[SSEEvent | JsonBody]:
        for t, item in self.items:
            self.now = t
            yield item


_TAPS: dict[str, type[_Tap]] = {}


def provider_class(api: str) -> type[HttpProvider]:
    """autocue's provider class for ``Model.api`` ``api``."""
    module, name = PROVIDER_CLASSES[api]
    cls: type[HttpProvider] = getattr(importlib.import_module(module), name)
    return cls


def _tap(api: str) -> type[_Tap]:
    tap = _TAPS.get(api)
    if tap is None:
        provider = provider_class(api)
        tap = _TAPS[api] = type(f"_{provider.__name__}Tap", (_Tap, provider), {})
    return tap


def wire_items(chunks: Sequence[Chunk], *, event_stream: bool) -> list[tuple[float, SSEEvent | JsonBody]]:
    """The recorded chunks as the items a provider's ``request`` yields: SSE events (each with
    the arrival time of the chunk that completed it), or one ``JsonBody`` for a JSON reply."""
    if not event_stream:
        raw = b"".join(c for _, c in chunks)
        t = chunks[-1][0] if chunks else 0.0
        try:
            return [(t, JsonBody(orjson.loads(raw)))]
        except orjson.JSONDecodeError:
            return [(t, SSEEvent("message", raw.decode("utf-8", "replace")))]
    dec = SSEDecoder()
    out: list[tuple[float, SSEEvent | JsonBody]] = []
    last = 0.0
    for t, data in chunks:
        last = t
        out.extend((t, ev) for ev in dec.feed(data))
    out.extend((last, ev) for ev in dec.flush())
    return out


async def read_with_provider(api: str, chunks: Sequence[Chunk], *, event_stream: bool,
                             model: str = "recorded") -> TimedReply:
    """The assistant message in ``chunks`` as autocue's provider for ``Model.api`` ``api`` reads it."""
    tap = _tap(api)()
    tap.items = wire_items(chunks, event_stream=event_stream)
    assert isinstance(tap, HttpProvider)
    m = Model(id=model, api=api, provider="recorded", base_url="http://recorded.invalid")
    msg: AssistantMessage | None = None
    times: list[float] = []
    ev: AssistantMessageEvent
    async for ev in tap._run(m, Context(None, []), StreamOptions()):
        if isinstance(ev, (TextStartEvent, ThinkingStartEvent, ToolCallStartEvent)):
            times.append(tap.now)
        elif isinstance(ev, (DoneEvent, ErrorEvent)):
            msg = ev.message if isinstance(ev, DoneEvent) else ev.error
    if msg is None:  # pragma: no cover - _run always ends with done or error
        msg = AssistantMessage(api=api, provider="recorded", model=model, stop_reason="error")
    while len(times) < len(msg.content):
        times.append(tap.now)
    return TimedReply(msg, times[: len(msg.content)], tap.now)
