"""Reading a recorded reply with autocue's own provider parsers.

The proxy keeps each reply as it arrived: ``(seconds since the request was sent, bytes)``
chunks. ``parse_reply(api, chunks, ...)`` decodes them with the providers' SSE decoder and
runs the matching provider's stream parser (``autocue.llm.providers``) over the events, so a
recording reads the wire exactly as autocue's providers do. The result is the final
``AssistantMessage`` plus, for every content block, when its first piece arrived. A
Responses tool call keeps its ``call_id`` as id (the provider's ``call_id|item_id`` pair is
cut; item ids are the server's to choose).

Parsing happens after the reply has been sent on to the client: recording never delays a
byte of the stream.
"""

from __future__ import annotations

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
from autocue.llm.providers.anthropic_messages import AnthropicMessagesProvider
from autocue.llm.providers.google_generative import GoogleGenerativeProvider
from autocue.llm.providers.http import HttpProvider, JsonBody
from autocue.llm.providers.openai_completions import OpenAICompletionsProvider
from autocue.llm.providers.openai_responses import OpenAIResponsesProvider
from autocue.llm.providers.sse import SSEDecoder, SSEEvent
from autocue.llm.stream import StreamOptions
from autocue.llm.types import AssistantMessage, Context, Model, ToolCall
from autocue.scenario.writer import TimedReply

Chunk = tuple[float, bytes]
"""``(seconds since the request was forwarded, bytes as they arrived)``."""


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


PROVIDERS: dict[str, tuple[type[HttpProvider], str]] = {
    "chat": (OpenAICompletionsProvider, "openai-completions"),
    "responses": (OpenAIResponsesProvider, "openai-responses"),
    "anthropic": (AnthropicMessagesProvider, "anthropic-messages"),
    "gemini": (GoogleGenerativeProvider, "google-generative"),
}
"""Per wire API, the provider that reads it (and its ``Model.api``); ``record --check`` asks with it."""
_PARSERS: dict[str, tuple[type[_Tap], str]] = {
    api: (type(f"_{provider.__name__}Tap", (_Tap, provider), {}), name) for api, (provider, name) in PROVIDERS.items()
}


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


async def parse_reply(api: str, chunks: Sequence[Chunk], *, event_stream: bool, model: str = "recorded") -> TimedReply:
    """The assistant message in ``chunks`` as autocue's provider for ``api`` reads it."""
    cls, api_name = _PARSERS[api]
    tap = cls()
    tap.items = wire_items(chunks, event_stream=event_stream)
    assert isinstance(tap, HttpProvider)
    m = Model(id=model, api=api_name, provider="recorded", base_url="http://recorded.invalid")
    msg: AssistantMessage | None = None
    times: list[float] = []
    ev: AssistantMessageEvent
    async for ev in tap._run(m, Context(None, []), StreamOptions()):
        if isinstance(ev, (TextStartEvent, ThinkingStartEvent, ToolCallStartEvent)):
            times.append(tap.now)
        elif isinstance(ev, (DoneEvent, ErrorEvent)):
            msg = ev.message if isinstance(ev, DoneEvent) else ev.error
    if msg is None:  # pragma: no cover - _run always ends with done or error
        msg = AssistantMessage(api=api_name, provider="recorded", model=model, stop_reason="error")
    if api == "responses":  # the provider's id is "<call_id>|<item id>": the call id is what a client sees
        for b in msg.content:
            if isinstance(b, ToolCall):
                b.id = b.id.partition("|")[0]
    while len(times) < len(msg.content):
        times.append(tap.now)
    return TimedReply(msg, times[: len(msg.content)], tap.now)
