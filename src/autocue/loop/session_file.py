"""Reading ``session.jsonl`` files: autocue's own and ralph's real variants.

Public surface: ``Record`` (``ts``, ``event``, ``data``, ``line``; ``topic``, ``payload_text``,
``source``, ``to_json()``), ``read_session(path)``, ``parse_session(text_or_bytes, source=...)``,
``SessionParseError`` (``path``, ``line``), ``decode_terminal(records)``.

Tolerant of what real files contain: ``payload`` as a string or a JSON object, ``source_hat``
instead of ``source``, missing ``source``/``target``/``ts``/``data``, unknown event types,
spaces after ``:``, small fake ``ts`` values, and ``ux.*`` records double-wrapped by ralph's
recorder (``data: {event, data: {...}}``). Strict about what is broken: a line that is not a
JSON object with an ``event`` string raises ``SessionParseError`` naming the file and line
(blank lines are skipped).
"""

from __future__ import annotations

import base64
import gc
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import orjson

from autocue.loop.errors import SessionParseError as SessionParseError


class Record:
    """One session record (see module docstring)."""

    __slots__ = ("data", "event", "line", "ts")

    def __init__(self, ts: int | None, event: str, data: dict[str, Any], line: int = 0) -> None:
        self.ts = ts
        self.event = event
        self.data = data
        self.line = line

    @property
    def topic(self) -> str | None:
        t = self.data.get("topic")
        return t if isinstance(t, str) else None

    @property
    def source(self) -> str | None:
        s = self.data.get("source")
        return s if isinstance(s, str) else None

    @property
    def payload_text(self) -> str:
        """The payload as text (a JSON-object payload is serialized compactly)."""
        p = self.data.get("payload")
        if p is None:
            return ""
        if isinstance(p, str):
            return p
        return orjson.dumps(p).decode("utf-8")

    def to_json(self) -> dict[str, Any]:
        return {"ts": self.ts, "event": self.event, "data": self.data}

    def __repr__(self) -> str:
        return f"Record(ts={self.ts!r}, event={self.event!r}, data={self.data!r}, line={self.line})"


def _normalize(event: str, data: dict[str, Any]) -> dict[str, Any]:
    if event == "bus.publish":
        if "source" not in data and "source_hat" in data:
            data = {**data, "source": data["source_hat"]}
    elif event.startswith("ux.") and isinstance(data.get("data"), dict) and data.get("event") == event:
        data = data["data"]  # ralph's double-wrapped UxEvent
    return data


def parse_lines(lines: Iterable[bytes | str], source: str = "<session>") -> list[Record]:
    out: list[Record] = []
    append = out.append
    loads = orjson.loads
    for i, raw in enumerate(lines, 1):
        if not raw or raw.isspace():
            continue
        try:
            obj = loads(raw)
        except orjson.JSONDecodeError as e:
            raise SessionParseError(source, i, f"invalid JSON ({e})") from None
        if type(obj) is not dict:
            raise SessionParseError(source, i, f"expected a JSON object, got {type(obj).__name__}")
        event = obj.get("event")
        if type(event) is not str:
            raise SessionParseError(source, i, "the record has no \"event\" string")
        data = obj.get("data")
        if data is None:
            data = {}
        elif type(data) is not dict:
            data = {"value": data}
        ts = obj.get("ts")
        if ts is not None and (type(ts) is not int):
            ts = int(ts) if isinstance(ts, float) else None
        if event == "bus.publish" or event[0] == "u":
            data = _normalize(event, data)
        append(Record(ts, event, data, i))
    return out


def parse_session(content: str | bytes, source: str = "<session>") -> list[Record]:
    """Parse a whole session text.

    Fast path: the lines are parsed in one ``orjson`` call as a JSON array; if that fails (a
    corrupted line), the per-line parser runs to name the line. The cyclic garbage collector
    is paused meanwhile (records hold no cycles; bulk allocation would trigger it hundreds
    of times)."""
    raw = content.encode("utf-8") if isinstance(content, str) else content
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _parse_session(raw, source)
    finally:
        if enabled:
            gc.enable()


def _parse_session(raw: bytes, source: str) -> list[Record]:
    lines = raw.split(b"\n")
    if b"\n\n" in raw or b"\r" in raw:
        return parse_lines(lines, source)
    body = [ln for ln in lines if ln]
    try:
        objs = orjson.loads(b"[" + b",".join(body) + b"]") if body else []
    except orjson.JSONDecodeError:
        return parse_lines(lines, source)
    out: list[Record] = []
    append = out.append
    for i, obj in enumerate(objs, 1):
        if type(obj) is not dict:
            return parse_lines(lines, source)
        event = obj.get("event")
        data = obj.get("data")
        ts = obj.get("ts")
        if type(event) is not str or (data is not None and type(data) is not dict) or (
            ts is not None and type(ts) is not int
        ):
            return parse_lines(lines, source)
        if data is None:
            data = {}
        elif event == "bus.publish" or event[0] == "u":
            data = _normalize(event, data)
        append(Record(ts, event, data, i))
    return out


def read_session(path: str | Path) -> list[Record]:
    """Read and parse a session file; ``FileNotFoundError`` names the path."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        raise FileNotFoundError(f"session file {p} does not exist (has the loop run in this workspace?)") from None
    return parse_session(raw, str(p))


def decode_terminal(records: Iterable[Record], *, stdout: bool | None = True) -> str:
    """The text of the ``ux.terminal.write`` records (``stdout=None``: both streams)."""
    chunks = (r.data.get("bytes") for r in records
              if r.event == "ux.terminal.write" and (stdout is None or bool(r.data.get("stdout", True)) == stdout))
    return b"".join(base64.b64decode(b) for b in chunks if isinstance(b, str)).decode("utf-8", "replace")


__all__ = ["Record", "SessionParseError", "decode_terminal", "parse_lines", "parse_session", "read_session"]
