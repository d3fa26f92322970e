"""Reading the events a hat appended to ``.autocue/events.jsonl`` since the last iteration.

The file is opened without following links (an agent may have replaced it by a link, a hard
link or a FIFO): such a file is reported as one bad line and not read.
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson

from autocue.loop.events import Event
from autocue.loop.paths import EVENTS_FILE
from autocue.loop.safe_files import UnsafeFileError, open_dir, open_regular_at


def _read_events_tail(ws: Path, offset: int) -> bytes:
    parent, name = EVENTS_FILE.rsplit("/", 1)
    with open_dir(ws, parent) as dfd, open_regular_at(dfd, name, ws / EVENTS_FILE) as fh:
        size = os.fstat(fh.fileno()).st_size
        if size <= offset:
            return b""
        fh.seek(offset)
        return fh.read(size - offset)


def read_events_file(
    ws: Path, offset: int, base_line: int, hat: str
) -> tuple[int, int, list[Event], list[tuple[int, str]]]:
    """New complete lines appended to the events file since ``offset`` (``base_line`` lines before it).

    The file is opened without following links (an agent may have replaced it by a link, a
    hard link or a FIFO): such a file is reported as one bad line and not read."""
    try:
        chunk = _read_events_tail(ws, offset)
    except UnsafeFileError as e:
        return offset, base_line, [], [(base_line + 1, f"not read: {e}")]
    except OSError:
        return offset, base_line, [], []
    end = chunk.rfind(b"\n")
    if end < 0:
        return offset, base_line, [], []
    chunk = chunk[: end + 1]
    events: list[Event] = []
    bad: list[tuple[int, str]] = []
    lines = chunk.split(b"\n")[:-1]
    for i, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError as e:
            bad.append((base_line + i, f"invalid JSON ({e})"))
            continue
        topic = obj.get("topic") if isinstance(obj, dict) else None
        if not isinstance(topic, str) or not topic:
            bad.append((base_line + i, 'expected {"topic": "...", "payload": "..."}'))
            continue
        payload = obj.get("payload", "")
        if not isinstance(payload, str):
            payload = orjson.dumps(payload).decode("utf-8")
        target = obj.get("target")
        events.append(Event(topic, payload, hat, target if isinstance(target, str) else None))
    return offset + end + 1, base_line + len(lines), events, bad


__all__ = ["read_events_file"]
