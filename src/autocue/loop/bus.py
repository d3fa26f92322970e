"""``HatBus``: the pending events of each hat, and how a published event is routed to them.

An event with a ``target`` goes to that hat; otherwise to the hats whose triggers match its
topic (hats with only wildcard triggers when no specific one matches), never back to its
source; an event nobody takes waits as an orphan for the coordinator.
"""

from __future__ import annotations

from collections import deque

from autocue.loop.config import HatConfig
from autocue.loop.events import Event
from autocue.loop.topics import is_wildcard, topic_matches

COORDINATOR = "default"
"""The coordinator hat: what nobody subscribes to (orphans, activations with nothing pending) goes to it."""


class HatBus:
    """Pending events per hat, routing, and publish bookkeeping."""

    def __init__(self, hats: dict[str, HatConfig], promise: str) -> None:
        self.hats = hats
        self.order = sorted(hats)
        self.pending: dict[str, deque[Event]] = {h: deque() for h in hats}
        self.promise = promise
        self.orphans: deque[Event] = deque()
        self._route_cache: dict[str, tuple[list[str], list[str]]] = {}

    def _subscribers(self, topic: str) -> tuple[list[str], list[str]]:
        hit = self._route_cache.get(topic)
        if hit is None:
            specific: list[str] = []
            fallback: list[str] = []
            for hid in self.order:
                trig = self.hats[hid].triggers
                if any(not is_wildcard(t) and topic_matches(t, topic) for t in trig):
                    specific.append(hid)
                elif any(is_wildcard(t) for t in trig):
                    fallback.append(hid)
            hit = (specific, fallback)
            self._route_cache[topic] = hit
        return hit

    def route(self, ev: Event) -> str | None:
        """Queue ``ev`` for its hats; returns a reason when it could not be delivered."""
        if ev.topic == self.promise:
            return None
        if ev.target is not None:
            q = self.pending.get(ev.target)
            if q is None:
                return f"target hat '{ev.target}' does not exist (hats: {', '.join(self.order)})"
            q.append(ev)
            return None
        specific, fallback = self._subscribers(ev.topic)
        dest = [h for h in (specific or fallback) if h != ev.source]
        if not dest:
            self.orphans.append(ev)
            return None
        for h in dest:
            self.pending[h].append(ev)
        return None

    def next(self) -> tuple[str | None, list[Event]]:
        for hid in self.order:
            q = self.pending[hid]
            if q:
                evs = list(q)
                q.clear()
                return hid, evs
        if self.orphans:
            evs = list(self.orphans)
            self.orphans.clear()
            return None, evs
        return None, []


__all__ = ["COORDINATOR", "HatBus"]
