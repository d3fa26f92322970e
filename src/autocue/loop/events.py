"""Events on the loop's bus, and parsing them out of agent output.

Public surface:

- ``Event(topic, payload, source, target)``: one published event; ``to_record()`` gives the
  ``bus.publish`` record data.
- ``parse_events(output, source=None) -> ParsedOutput``: the ``<event topic="T" [target="H"]>payload</event>``
  blocks of an agent's output, in order, plus the malformed tags that were *not* turned into
  events (``dropped``, each with a reason: never silently).
- ``has_promise(output, promise)``: the text completion rule: the promise is the last
  non-empty line (trimmed) outside ``<event>`` blocks, and not inside any payload.

Parsing follows ralph's ``event_parser.rs``: find ``<event ``, then the next ``>``; attributes
are read by plain ``name="value"`` search; ``topic`` is required; the payload is everything up
to the first ``</event>``, trimmed; no nesting, no escaping. ``<event topic="T"/>`` is an event
with an empty payload.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

_OPEN = "<event"
_CLOSE = "</event>"
_ATTR = re.compile(r'([A-Za-z_][\w-]*)\s*=\s*"([^"]*)"')


@dataclass(slots=True)
class Event:
    """One event on the bus. ``source`` is the hat (or ``loop``) that published it."""

    topic: str
    payload: str = ""
    source: str | None = None
    target: str | None = None

    def to_record(self) -> dict[str, Any]:
        return {"topic": self.topic, "payload": self.payload, "source": self.source, "target": self.target}

    def signature(self) -> tuple[str, str | None, str]:
        """What LoopStale compares: topic, source and payload."""
        return (self.topic, self.source, self.payload)


@dataclass(slots=True)
class DroppedTag:
    """A malformed ``<event`` tag that produced no event."""

    snippet: str
    reason: str
    topic: str | None = None


@dataclass(slots=True)
class ParsedOutput:
    events: list[Event] = field(default_factory=list)
    dropped: list[DroppedTag] = field(default_factory=list)


def _snippet(text: str, start: int, limit: int = 60) -> str:
    s = text[start : start + limit]
    return s + "…" if len(text) - start > limit else s


def parse_events(output: str, source: str | None = None) -> ParsedOutput:
    """Parse every ``<event>`` block of ``output``; ``source`` stamps each event."""
    out = ParsedOutput()
    if _OPEN not in output:
        return out
    pos = 0
    n = len(output)
    while True:
        start = output.find(_OPEN, pos)
        if start < 0:
            break
        after = start + len(_OPEN)
        if after < n and output[after] not in " \t\r\n/>":
            pos = after  # e.g. "<events>": not an event tag
            continue
        gt = output.find(">", after)
        if gt < 0:
            out.dropped.append(DroppedTag(_snippet(output, start), "the <event tag is never closed with '>'"))
            break
        tag = output[after:gt]
        attrs = dict(_ATTR.findall(tag))
        topic = attrs.get("topic", "").strip()
        self_closing = tag.rstrip().endswith("/")
        if self_closing:
            end_of_block = gt + 1
            payload = ""
        else:
            close = output.find(_CLOSE, gt + 1)
            if close < 0:
                out.dropped.append(
                    DroppedTag(_snippet(output, start), "no closing </event> after this tag", topic or None)
                )
                pos = gt + 1
                continue
            payload = output[gt + 1 : close].strip()
            end_of_block = close + len(_CLOSE)
        if not topic:
            out.dropped.append(DroppedTag(_snippet(output, start), 'the tag has no topic="..." attribute'))
        else:
            target = attrs.get("target")
            out.events.append(Event(topic, payload, source, target.strip() if target else None))
        pos = end_of_block
    return out


def strip_event_blocks(output: str) -> str:
    """``output`` with every well-formed ``<event …>…</event>`` block removed."""
    if _OPEN not in output:
        return output
    parts: list[str] = []
    pos = 0
    while True:
        start = output.find(_OPEN, pos)
        if start < 0:
            break
        gt = output.find(">", start)
        if gt < 0:
            break
        if output[start:gt].rstrip().endswith("/"):
            parts.append(output[pos:start])
            pos = gt + 1
            continue
        close = output.find(_CLOSE, gt + 1)
        if close < 0:
            break
        parts.append(output[pos:start])
        pos = close + len(_CLOSE)
    parts.append(output[pos:])
    return "".join(parts)


def has_promise(output: str, promise: str, events: list[Event] | None = None) -> bool:
    """The text completion rule (see module docstring). ``events``: already parsed, to save work."""
    if not promise or promise not in output:
        return False
    evs = parse_events(output).events if events is None else events
    if any(promise in e.payload for e in evs):
        return False
    last = next((s for line in reversed(strip_event_blocks(output).splitlines()) if (s := line.strip())), "")
    return last == promise


__all__ = ["DroppedTag", "Event", "ParsedOutput", "has_promise", "parse_events", "strip_event_blocks"]
