"""Shared pieces of the wire renderers: SSE framing and timed segments."""

from __future__ import annotations

import time
from typing import Any, TypeAlias

import orjson

Segments: TypeAlias = list[tuple[float, bytes]]
"""``(delay_seconds, frame)`` pairs, in order: wait, then send the frame (one SSE event, or
several joined by ``coalesce``)."""

CHUNK = 24
"""Characters per streamed text delta (and per tool-argument fragment)."""


def sse(event: str, data: Any) -> bytes:
    """An SSE frame with an ``event:`` line (Anthropic, OpenAI Responses)."""
    return b"event: " + event.encode() + b"\ndata: " + orjson.dumps(data) + b"\n\n"


def sse_data(data: Any) -> bytes:
    """A bare ``data:`` SSE frame (OpenAI Chat, Gemini)."""
    return b"data: " + orjson.dumps(data) + b"\n\n"


def now() -> int:
    return int(time.time())


class SegmentWriter:
    """Collects frames, one segment per frame: ``pause(delay)`` adds a wait before the next
    frame. ``coalesce`` joins frames that need no wait between them for sending."""

    __slots__ = ("_delay", "out")

    def __init__(self) -> None:
        self.out: Segments = []
        self._delay = 0.0

    def add(self, frame: bytes) -> None:
        self.out.append((self._delay, frame))
        self._delay = 0.0

    def pause(self, delay: float) -> None:
        if delay > 0:
            self._delay += delay

    def done(self) -> Segments:
        if self._delay > 0:
            self.out.append((self._delay, b""))
            self._delay = 0.0
        return self.out


def coalesce(segments: Segments) -> Segments:
    """``segments`` with every frame that needs no wait joined to the one before it."""
    groups: list[tuple[float, list[bytes]]] = []
    for d, frame in segments:
        if groups and d <= 0:
            groups[-1][1].append(frame)
        else:
            groups.append((d, [frame]))
    return [(d, b"".join(frames)) for d, frames in groups]
