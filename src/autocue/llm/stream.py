"""The provider seam: ``Provider.stream()`` returns an ``AssistantMessageEventStream``.

A stream is an async iterable of ``AssistantMessageEvent`` that ends with ``done`` or
``error``; ``await stream.result()`` gives the final ``AssistantMessage``. Providers never
raise: ``error_stream`` and ``guarded`` turn failures into a final message whose
``stop_reason`` is ``error`` or ``aborted``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from autocue.llm.abort import AbortSignal
from autocue.llm.events import AssistantMessageEvent, DoneEvent, ErrorEvent
from autocue.llm.types import AssistantMessage, Context, Model

ThinkingLevel = str
"""One of ``off``, ``minimal``, ``low``, ``medium``, ``high``, ``xhigh``."""

THINKING_LEVELS = ("off", "minimal", "low", "medium", "high", "xhigh")


@dataclass(slots=True)
class StreamOptions:
    """Per-call options every provider accepts (unknown ones are ignored)."""

    signal: AbortSignal | None = None
    api_key: str | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    reasoning: ThinkingLevel | None = None
    session_id: str | None = None
    headers: dict[str, str] | None = None
    """Extra request headers (``None``: none)."""
    on_payload: Callable[[Any], Any] | None = None
    """Called with the request payload; a non-None return replaces it."""
    metadata: dict[str, Any] | None = None


_new = object.__new__


class AssistantMessageEventStream:
    """An async iterable of stream events with the final message at ``result()``.

    Iterate it once; ``result()`` drains whatever was not iterated. The final message is
    also at ``message`` once the stream has ended.
    """

    __slots__ = ("_it", "message", "sync_source")

    def __init__(
        self,
        events: AsyncIterator[AssistantMessageEvent] | None = None,
        *,
        sync_events: Iterator[AssistantMessageEvent] | None = None,
    ) -> None:
        if (events is None) == (sync_events is None):
            raise ValueError("give exactly one of events (async) or sync_events")
        self._it = events  # for sync_events, made on first async use (hot loops never need it)
        self.sync_source = sync_events
        """Set when the events need no awaiting (scripted replies); hot loops iterate it directly."""
        self.message: AssistantMessage | None = None

    @classmethod
    def of_sync(cls, events: Iterator[AssistantMessageEvent]) -> AssistantMessageEventStream:
        """A stream over events that need no awaiting (the constructor's ``sync_events=``, checked less)."""
        s = _new(cls)
        s._it = None
        s.sync_source = events
        s.message = None
        return s

    @property
    def source(self) -> AsyncIterator[AssistantMessageEvent]:
        """The raw event iterator, for hot loops that track the final event themselves
        (they should set ``message`` when they see it)."""
        if self._it is None:
            assert self.sync_source is not None
            self._it = _aiter_sync(self.sync_source)
        return self._it

    def __aiter__(self) -> AssistantMessageEventStream:
        return self

    async def __anext__(self) -> AssistantMessageEvent:
        # Keep pulling after the final event so the provider's generator finishes normally
        # (an abandoned async generator costs a finalizer task per reply).
        ev = await self.source.__anext__()
        if self.message is not None:
            raise RuntimeError(f"provider stream sent {ev.type!r} after its final event")
        if ev.type == "done":
            self.message = ev.message
        elif ev.type == "error":
            self.message = ev.error
        return ev

    async def result(self) -> AssistantMessage:
        if self.message is None:
            async for _ in self:
                pass
        if self.message is None:
            raise RuntimeError("provider stream ended without a done or error event")
        return self.message


async def _aiter_sync(it: Iterator[AssistantMessageEvent]) -> AsyncIterator[AssistantMessageEvent]:
    for ev in it:
        yield ev


class Provider(Protocol):
    """What the agent calls to get a model reply. Real and scripted providers alike."""

    def stream(self, model: Model, context: Context, options: StreamOptions) -> AssistantMessageEventStream:
        """Start a reply. Must not raise: failures end the stream with an ``error`` event."""
        ...


def error_message(
    model: Model, message: str, *, aborted: bool = False, partial: AssistantMessage | None = None
) -> AssistantMessage:
    """A final assistant message reporting a failure (``stop_reason`` error or aborted)."""
    msg = partial if partial is not None else AssistantMessage(api=model.api, provider=model.provider, model=model.id)
    msg.stop_reason = "aborted" if aborted else "error"
    msg.error_message = message
    return msg


def error_stream(
    model: Model, message: str, *, aborted: bool = False, partial: AssistantMessage | None = None
) -> AssistantMessageEventStream:
    """A stream with only the final ``error`` event."""
    final = error_message(model, message, aborted=aborted, partial=partial)

    async def gen() -> AsyncIterator[AssistantMessageEvent]:
        yield ErrorEvent("aborted" if aborted else "error", final)

    return AssistantMessageEventStream(gen())


def guarded(
    model: Model, events: AsyncIterator[AssistantMessageEvent], signal: AbortSignal | None = None
) -> AssistantMessageEventStream:
    """Wrap a provider's raw event generator so it can never raise or end without a final event.

    An exception becomes an ``error`` event (``aborted`` when ``signal`` was aborted), carrying
    the partial message built so far.
    """

    async def gen() -> AsyncIterator[AssistantMessageEvent]:
        partial: AssistantMessage | None = None
        try:
            async for ev in events:
                partial = ev.partial
                yield ev
                if ev.type == "done" or ev.type == "error":
                    return
        except Exception as e:  # providers never raise: the failure becomes the final message
            aborted = signal is not None and signal.aborted
            text = (signal.reason or "Request was aborted") if aborted and signal else f"{type(e).__name__}: {e}"
            final = error_message(model, text, aborted=aborted, partial=partial)
            yield ErrorEvent("aborted" if aborted else "error", final)
            return
        final = error_message(model, "provider stream ended without a final event", partial=partial)
        yield ErrorEvent("error", final)

    return AssistantMessageEventStream(gen())


__all__ = [
    "THINKING_LEVELS",
    "AssistantMessageEventStream",
    "DoneEvent",
    "Provider",
    "StreamOptions",
    "ThinkingLevel",
    "error_message",
    "error_stream",
    "guarded",
]
