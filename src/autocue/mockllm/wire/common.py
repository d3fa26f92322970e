"""Shared pieces of the wire renderers: SSE framing and timed segments."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, TypeAlias

import orjson

if TYPE_CHECKING:  # fuzzing loads with the first fuzz spec
    from autocue.mockllm.wire.fuzz import Fuzzer

Segments: TypeAlias = list[tuple[float, bytes]]
"""``(delay_seconds, frame)`` pairs, in order: wait, then send the frame (one SSE event, or
several joined by ``coalesce``)."""

CHUNK = 24
"""Characters per streamed text delta (and per tool-argument fragment)."""


def sse(event: str, data: Any) -> bytes:
    """An SSE frame with an ``event:`` line (Anthropic, OpenAI Responses)."""
    return b"event: " + event.encode() + b"\ndata: " + orjson.dumps(data) + b"\n\n"


def now() -> int:
    return int(time.time())


class SegmentWriter:
    """The one frame writer of the four wire modules: collects frames, one segment per
    frame (``pause(delay)`` adds a wait before the next one; ``coalesce`` joins frames that
    need no wait for sending). With a ``Fuzzer`` it cuts deltas anywhere (``pieces``), writes
    tool arguments in another valid form (``args``), puts keep-alive comments and ``ping``
    frames between events and varies line endings."""

    __slots__ = ("_delay", "fuzz", "out", "ping")

    def __init__(self, fuzz: Fuzzer | None = None, *, ping: bytes | None = None, sse: bool = True) -> None:
        self.out: Segments = []
        self._delay = 0.0
        self.fuzz = fuzz if sse else None
        self.ping = ping

    def add(self, frame: bytes) -> None:
        fz = self.fuzz
        if fz is not None:
            if self.out:
                for extra in fz.between(self.ping):
                    self.out.append((self._delay, fz.line_ends(extra)))
                    self._delay = 0.0
            frame = fz.line_ends(frame)
        self.out.append((self._delay, frame))
        self._delay = 0.0

    def event(self, event: str, data: Any) -> None:
        self.add(sse(event, data))

    def pieces(self, text: str) -> list[str]:
        """The deltas ``text`` streams as."""
        return chunks(text, CHUNK) if self.fuzz is None else self.fuzz.pieces(text)

    def args(self, args: dict[str, Any], compact: str) -> str:
        """The JSON text of a tool call's arguments."""
        return compact if self.fuzz is None else self.fuzz.args_json(args, compact)

    def pause(self, delay: float) -> None:
        if delay > 0:
            self._delay += delay

    def done(self) -> Segments:
        if self._delay > 0:
            self.out.append((self._delay, b""))
            self._delay = 0.0
        return self.out


def chunks(text: str, size: int) -> list[str]:
    """``text`` cut into pieces of ``size`` characters (at least one piece, maybe empty)."""
    if len(text) <= size:
        return [text]
    return [text[k : k + size] for k in range(0, len(text), size)]


def coalesce(segments: Segments) -> Segments:
    """``segments`` with every frame that needs no wait joined to the one before it."""
    groups: list[tuple[float, list[bytes]]] = []
    for d, frame in segments:
        if groups and d <= 0:
            groups[-1][1].append(frame)
        else:
            groups.append((d, [frame]))
    return [(d, b"".join(frames)) for d, frames in groups]
