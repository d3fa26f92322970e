"""Reading a recorded reply with autocue's own provider parsers.

The proxy keeps each reply as it arrived: ``(seconds since the request was sent, bytes)``
chunks. ``parse_reply(api, chunks, ...)`` decodes them with the providers' SSE decoder and
runs the matching provider's stream parser (``autocue.llm.providers``) over the events, so a
recording reads the wire exactly as autocue's providers do. The result is the final
``AssistantMessage`` plus, for every content block, when its first piece arrived. A
Responses tool call keeps its ``call_id`` as id (the provider's ``call_id|item_id`` pair is
cut; item ids are the server's to choose).

While the reply passes, its chunks go into a ``ReplySpool`` (in memory up to ``SPOOL_MEMORY``
bytes, then a temporary file on disk) up to a cap; a reply past the cap is still forwarded
whole but not recorded. Parsing happens after the reply has been sent on to the client, in a
worker thread (``RecordingProxy``): recording never delays a byte of the stream, nor another
client.
"""

from __future__ import annotations

import tempfile
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
SPOOL_MEMORY = 1024 * 1024
"""Bytes of a reply a ``ReplySpool`` keeps in memory; past them it is on disk."""


class ReplySpool:
    """A reply's chunks as they pass, up to ``cap`` bytes: past it the spool is dropped and
    only counted (``over``), so a reply of any size takes at most ``SPOOL_MEMORY`` bytes of memory
    while it streams."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.size = 0
        self.over = False
        self._file = tempfile.SpooledTemporaryFile(max_size=SPOOL_MEMORY)  # noqa: SIM115 - closed by close()
        self._marks: list[tuple[float, int]] = []

    def add(self, t: float, data: bytes) -> None:
        self.size += len(data)
        if self.over:
            return
        if self.size > self.cap:
            self.over = True
            self.close()
            return
        self._file.write(data)
        self._marks.append((t, len(data)))

    def chunks(self) -> list[Chunk]:
        """The chunks kept (none once ``over``); reads the spool back (call it off the event loop)."""
        if self.over:
            return []
        self._file.seek(0)
        return [(t, self._file.read(n)) for t, n in self._marks]

    def close(self) -> None:
        self._file.close()
        self._marks = []


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
