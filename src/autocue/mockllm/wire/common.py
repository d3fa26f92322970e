"""Shared pieces of the wire renderers: SSE framing and timed segments."""

from __future__ import annotations

import time
from typing import Any, TypeAlias

import orjson

Segments: TypeAlias = list[tuple[float, bytes]]
"""``(delay_seconds, frames)`` pairs, in order."""

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
    """Collects frames into timed segments: ``pause(delay)`` starts a new segment."""

    __slots__ = ("_cur", "out")

    def __init__(self) -> None:
        self.out: Segments = []
        self._cur: list[bytes] = []

    def add(self, frame: bytes) -> None:
        self._cur.append(frame)

    def pause(self, delay: float) -> None:
        if delay > 0:
            if self._cur:
                self.out.append((0.0, b"".join(self._cur)))
                self._cur = []
            self.out.append((delay, b""))

    def done(self) -> Segments:
        if self._cur:
            self.out.append((0.0, b"".join(self._cur)))
            self._cur = []
        return self.out
