"""Simulated sessions: the events of one scenario released on a wall clock, followed by any number of clients.

``SimSession`` owns the precomputed events (``scenario_events``) and a playback task that
releases them at ``t * speed / 1000`` seconds after the start (``speed`` 0: at once). Clients
read ``released`` from any position and ``await wait(...)`` for more; ``drop_clients()`` ends
every open stream (clients resume with ``Last-Event-ID``).
"""

from __future__ import annotations

import asyncio
import itertools
import time
from typing import Any

from autocue.scenario import Scenario
from autocue.simulate.timeline import Event, scenario_events

_ids = itertools.count(1)


class SimSession:
    def __init__(self, scenario: Scenario, *, speed: float, loop: bool = False) -> None:
        self.id = f"sim-{next(_ids)}"
        self.scenario = scenario
        self.events = scenario_events(scenario)
        self.speed = speed
        self.loop = loop
        self.released: list[Event] = []
        self.status = "running"
        self.created = time.time()
        self.last_used = time.monotonic()
        """When a client last asked for this session or closed a stream of it (``SimState``'s TTL)."""
        self.streams = 0
        """Event streams open now: a session being followed never expires."""
        self.sent = 0
        """Events written to clients, over all streams (a resumed stream sends only what is new)."""
        self.generation = 0
        """Bumped by ``drop_clients``: a stream that sees it change closes."""
        self._changed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    @property
    def done(self) -> bool:
        return bool(self.released) and self.released[-1]["type"] == "session.end"

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._play(), name=f"autocue-simulate:{self.id}")

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()

    def _publish(self, event: Event) -> None:
        self.released.append(event)
        if event["type"] == "status":
            self.status = event["status"]
        elif event["type"] == "session.end" and self.status == "running":
            self.status = "ended"
        self._wake()

    def _wake(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    def drop_clients(self) -> None:
        self.generation += 1
        self._wake()

    async def wait(self, timeout: float) -> None:
        """Wait until something is released or clients are dropped (or ``timeout`` seconds pass)."""
        changed = self._changed
        try:
            await asyncio.wait_for(changed.wait(), timeout)
        except TimeoutError:
            pass

    async def _play(self) -> None:
        loop = asyncio.get_running_loop()
        start = loop.time()
        offset_id = 0
        offset_t = 0
        last = self.events[-1]
        while True:
            for i, ev in enumerate(self.events):
                if self.loop and ev is last:
                    break  # a looping session never ends: the next round follows
                t = offset_t + ev["t"]
                if self.speed > 0:
                    delay = start + t * self.speed / 1000 - loop.time()
                    if delay > 0:
                        await asyncio.sleep(delay)
                elif i % 256 == 255:
                    await asyncio.sleep(0)
                if offset_id and ev["type"] == "session.start":
                    self.status = "running"
                self._publish({**ev, "id": offset_id + ev["id"], "t": t})
            if not self.loop:
                return
            offset_id += len(self.events) - 1
            offset_t += max(1, last["t"])

    def describe(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "scenario": self.scenario.name,
            "status": self.status,
            "done": self.done,
            "events": len(self.released),
            "totalEvents": None if self.loop else len(self.events),
            "durationMs": self.events[-1]["t"],
            "lastEventId": self.released[-1]["id"] if self.released else 0,
            "createdAt": self.created,
            "eventsUrl": f"/api/v1/sessions/{self.id}/events",
        }


__all__ = ["SimSession"]
