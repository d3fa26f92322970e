"""AWS event-stream framing (``application/vnd.amazon.eventstream``), as Bedrock streams its replies.

A message is a 12-byte prelude (total length, headers length, both big-endian ``uint32``, and the
CRC32 of those 8 bytes), the headers, the payload and the CRC32 of everything before it. A header
is its name's length (1 byte), the name, a type byte (7: a string) and the value's length (2 bytes)
and bytes. An event carries ``:event-type``, ``:content-type`` and ``:message-type: event``; an
error inside a stream is ``:message-type: exception`` with ``:exception-type`` (``throttlingException``).
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import orjson

from autocue.mockllm.errors import EventStreamError as EventStreamError

MEDIA_TYPE = "application/vnd.amazon.eventstream"
_STRING = 7
_PRELUDE = 12


def frame(headers: dict[str, str], payload: bytes) -> bytes:
    """One message with string ``headers`` and ``payload``."""
    head = b"".join(_header(k, v) for k, v in headers.items())
    total = _PRELUDE + len(head) + len(payload) + 4
    prelude = struct.pack(">II", total, len(head))
    out = prelude + struct.pack(">I", zlib.crc32(prelude)) + head + payload
    return out + struct.pack(">I", zlib.crc32(out))


def _header(name: str, value: str) -> bytes:
    n, v = name.encode(), value.encode()
    return struct.pack(">B", len(n)) + n + struct.pack(">BH", _STRING, len(v)) + v


def event(event_type: str, data: Any) -> bytes:
    """An event whose payload is ``data`` as JSON."""
    return frame({":event-type": event_type, ":content-type": "application/json", ":message-type": "event"},
                 orjson.dumps(data))


def exception(exception_type: str, message: str) -> bytes:
    """An error inside a stream (``throttlingException``, ``internalServerException``, ...)."""
    return frame({":exception-type": exception_type, ":content-type": "application/json",
                  ":message-type": "exception"}, orjson.dumps({"message": message}))


@dataclass(frozen=True, slots=True)
class Message:
    headers: dict[str, str]
    payload: bytes

    @property
    def kind(self) -> str:
        """The event type, or the exception type of an exception message."""
        h = self.headers
        return h.get(":event-type") or h.get(":exception-type") or h.get(":error-code") or ""

    @property
    def is_event(self) -> bool:
        return self.headers.get(":message-type", "event") == "event"


class Decoder:
    """Messages out of bytes fed in any pieces."""

    def __init__(self) -> None:
        self._buf = b""

    def feed(self, data: bytes) -> Iterator[Message]:
        self._buf += data
        while len(self._buf) >= _PRELUDE:
            total, head_len, crc = struct.unpack(">III", self._buf[:_PRELUDE])
            if zlib.crc32(self._buf[:8]) != crc or total < _PRELUDE + 4 + head_len:
                raise EventStreamError("event-stream prelude CRC or length mismatch")
            if len(self._buf) < total:
                return
            msg, self._buf = self._buf[:total], self._buf[total:]
            if zlib.crc32(msg[:-4]) != struct.unpack(">I", msg[-4:])[0]:
                raise EventStreamError("event-stream message CRC mismatch")
            yield Message(_headers(msg[_PRELUDE:_PRELUDE + head_len]), msg[_PRELUDE + head_len:-4])

    @property
    def rest(self) -> int:
        """Bytes fed but not yet a whole message."""
        return len(self._buf)


def _headers(raw: bytes) -> dict[str, str]:
    out: dict[str, str] = {}
    i = 0
    while i < len(raw):
        n = raw[i]
        name = raw[i + 1:i + 1 + n].decode()
        i += 1 + n
        typ = raw[i]
        i += 1
        if typ in (0, 1):  # true, false
            out[name] = "true" if typ == 0 else "false"
        elif typ in (2, 3, 4, 5, 8):  # byte, short, int, long, timestamp
            size = {2: 1, 3: 2, 4: 4, 5: 8, 8: 8}[typ]
            out[name] = str(int.from_bytes(raw[i:i + size], "big", signed=True))
            i += size
        elif typ == 9:  # uuid
            out[name] = raw[i:i + 16].hex()
            i += 16
        else:  # 6 bytes, 7 string: a 2-byte length
            (size,) = struct.unpack(">H", raw[i:i + 2])
            out[name] = raw[i + 2:i + 2 + size].decode("utf-8", "replace")
            i += 2 + size
    return out
