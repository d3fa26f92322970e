"""Following a simulation stream from Python: ``iter_events(url)`` yields the events of a session.

``url`` is a session URL (``http://HOST:PORT/api/v1/sessions/ID``) or its ``/events`` URL. The
reader parses SSE frames (``id:``, ``data:``, comments, ``retry:``) and, when the connection
drops before ``session.end``, reconnects with ``Last-Event-ID`` (up to ``reconnects`` times),
so a caller sees every event once, in order.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx2
import orjson

from autocue.simulate.errors import StreamError as StreamError


def events_url(url: str) -> str:
    url = url.rstrip("/")
    return url if url.endswith("/events") else url + "/events"


def parse_frames(lines: Iterator[str]) -> Iterator[tuple[str | None, str]]:
    """``(id, data)`` for every SSE frame of a line iterator (comments and ``retry:`` skipped)."""
    event_id: str | None = None
    data: list[str] = []
    for line in lines:
        if line == "":
            if data:
                yield event_id, "\n".join(data)
            event_id, data = None, []
        elif line.startswith(":"):
            continue
        else:
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "id":
                event_id = value
            elif field == "data":
                data.append(value)
    if data:
        yield event_id, "\n".join(data)


def iter_events(url: str, *, last_event_id: int = 0, reconnects: int = 5, timeout: float = 30.0,
                client: httpx2.Client | None = None) -> Iterator[dict[str, Any]]:
    """Every event after ``last_event_id`` until ``session.end`` (reconnecting on a dropped stream)."""
    target = events_url(url)
    own = client is None
    http = client or httpx2.Client(timeout=httpx2.Timeout(timeout, read=timeout))
    try:
        tries = 0
        while True:
            headers = {"accept": "text/event-stream"}
            if last_event_id:
                headers["last-event-id"] = str(last_event_id)
            got = False
            try:
                with http.stream("GET", target, headers=headers) as r:
                    if r.status_code != 200:
                        r.read()
                        raise StreamError(f"GET {target}: HTTP {r.status_code}: {r.text.strip()[:300]}")
                    kind = r.headers.get("content-type", "")
                    if not kind.startswith("text/event-stream"):
                        raise StreamError(f"GET {target}: not an event stream (content-type {kind!r})")
                    for fid, data in parse_frames(r.iter_lines()):
                        event = orjson.loads(data)
                        if fid is not None:
                            last_event_id = int(fid)
                        got = True
                        yield event
                        if event.get("type") == "session.end":
                            return
            except httpx2.TransportError as e:
                if tries >= reconnects:
                    raise StreamError(f"GET {target}: {e} (gave up after {tries} reconnects)") from None
            tries = 0 if got else tries + 1
            if tries > reconnects:
                raise StreamError(f"GET {target}: the stream ended without session.end {tries} times")
    finally:
        if own:
            http.close()


__all__ = ["StreamError", "events_url", "iter_events", "parse_frames"]
