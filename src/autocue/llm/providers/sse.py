"""Incremental Server-Sent Events decoding (the WHATWG event-stream format).

``SSEDecoder.feed(chunk)`` takes raw bytes as they arrive (split anywhere, even inside a
UTF-8 sequence or a ``\\r\\n`` pair) and returns the events completed by that chunk;
``flush()`` returns a last event left unterminated when the stream ended. Lines end with
``\\n``, ``\\r\\n`` or ``\\r``; ``:`` lines are comments; multi-line ``data`` is joined with
``\\n``. The cost per chunk is proportional to the chunk, never to the stream so far.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass


@dataclass(slots=True)
class SSEEvent:
    """One dispatched event: ``event`` defaults to ``"message"`` as the spec says."""

    event: str
    data: str
    id: str | None = None
    retry: int | None = None


class SSEDecoder:
    __slots__ = ("_buf", "_cr", "_data", "_decoder", "_event", "_has_data", "_id", "_retry")

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._buf = ""
        self._cr = False
        self._event: str | None = None
        self._data: list[str] = []
        self._has_data = False
        self._id: str | None = None
        self._retry: int | None = None

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        """Decode ``chunk`` and return every event it completes (possibly none)."""
        text = self._decoder.decode(chunk)
        if not text:
            return []
        if self._cr:
            # A "\r" ended the previous chunk: a "\n" starting this one belongs to it.
            self._cr = False
            if text[0] == "\n":
                text = text[1:]
        buf = self._buf + text if self._buf else text
        out: list[SSEEvent] = []
        start = 0
        n = len(buf)
        while start < n:
            nl = buf.find("\n", start)
            cr = buf.find("\r", start, nl if nl >= 0 else n)
            if cr >= 0:
                end = cr
                if cr + 1 < n:
                    nxt = cr + 2 if buf[cr + 1] == "\n" else cr + 1
                else:
                    self._cr = True
                    nxt = cr + 1
            elif nl >= 0:
                end, nxt = nl, nl + 1
            else:
                break
            ev = self._line(buf[start:end])
            if ev is not None:
                out.append(ev)
            start = nxt
        self._buf = buf[start:]
        return out

    def flush(self) -> list[SSEEvent]:
        """End of stream: process an unterminated last line and dispatch a pending event."""
        rest = self._buf + self._decoder.decode(b"", final=True)
        self._buf = ""
        if rest:
            self._line(rest)  # a non-empty line only adds to the pending event
        ev = self._line("")
        return [] if ev is None else [ev]

    def _line(self, line: str) -> SSEEvent | None:
        if not line:
            if not self._has_data and self._event is None:
                return None
            ev = SSEEvent(self._event or "message", "\n".join(self._data), self._id, self._retry)
            self._event = None
            self._data = []
            self._has_data = False
            self._retry = None
            return ev
        if line[0] == ":":
            return None
        colon = line.find(":")
        if colon < 0:
            name, value = line, ""
        else:
            name = line[:colon]
            value = line[colon + 1 :]
            if value[:1] == " ":
                value = value[1:]
        if name == "data":
            self._data.append(value)
            self._has_data = True
        elif name == "event":
            self._event = value
        elif name == "id":
            if "\0" not in value:
                self._id = value
        elif name == "retry" and value.isdigit():
            self._retry = int(value)
        return None


__all__ = ["SSEDecoder", "SSEEvent"]
