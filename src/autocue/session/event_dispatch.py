"""``EventDispatch``: where an ``AgentSession``'s events go, in order.

Every agent event goes first to the extensions (awaited), then to ``subscribe`` listeners,
then to persistence (``message_end`` of user/assistant/toolResult/bashExecution messages
becomes a ``message`` entry, of a custom message a ``custom_message`` entry). Session events
(``auto_*``) go to the listeners only; an ``extension_error`` too, without letting a failing
listener stop the others. The synchronous path stays free of coroutines while nobody awaits.
``observes`` tells the agent which events anybody here reads (an extension handler, a listener,
persistence), so the agent builds no others.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from autocue.agent.events import AgentEvent
from autocue.extensions.events import ExtensionErrorEvent
from autocue.extensions.runner import ExtensionRunner
from autocue.session.manager import SessionManager

SessionListener = Callable[[Any], "Awaitable[None] | None"]

MESSAGE_ENTRY_ROLES = frozenset(("user", "assistant", "toolResult", "bashExecution"))
"""Roles persisted as plain message entries (``custom`` messages get their own entry type)."""


class EventDispatch:
    __slots__ = ("_observes", "_runner", "_sm", "background", "drop", "listeners")

    def __init__(self, runner: ExtensionRunner, session_manager: SessionManager) -> None:
        self._runner = runner
        self._sm = session_manager
        self.listeners: list[SessionListener] = []
        self._observes: list[Callable[[str], bool] | None] = []
        """Per listener (same order): the event types it reads (None: every event)."""
        self.background: set[asyncio.Task[Any]] = set()
        self.drop: Callable[[Any], bool] | None = None
        """Messages not to persist (a reply a TTSR rule cut: it is recorded as a ``ttsr_triggered`` entry)."""

    def subscribe(self, listener: SessionListener, observes: Callable[[str], bool] | None = None) -> Callable[[], None]:
        """``observes(event_type)``: which events the listener reads (default: its own ``observes``
        attribute, else every event); it may still get others, which somebody else reads."""
        self.listeners.append(listener)
        self._observes.append(observes if observes is not None else getattr(listener, "observes", None))

        def unsubscribe() -> None:
            if listener in self.listeners:
                i = self.listeners.index(listener)
                del self.listeners[i], self._observes[i]

        return unsubscribe

    def observes(self, event_type: str) -> bool:
        """Whether an extension handler, a listener or persistence (``message_end``) reads ``event_type``."""
        if event_type == "message_end" or event_type in self._runner.by_event:
            return True
        for wants in self._observes:  # noqa: SIM110 - asked per turn: any() over a generator costs twice this
            if wants is None or wants(event_type):
                return True
        return False

    def on_agent_event(self, ev: AgentEvent) -> Awaitable[None] | None:
        t = ev.type
        if t in self._runner.by_event:
            r = self._runner.emit(ev)
            if r is not None:
                return self._rest_async(r, ev)
        for fn in self.listeners:
            r2 = fn(ev)
            if r2 is not None:
                return self._rest_async(r2, ev, fn)
        if t == "message_end":
            m: Any = ev.message  # type: ignore[union-attr]
            if self.drop is not None and self.drop(m):
                return None
            if m.role in MESSAGE_ENTRY_ROLES:  # inline of persist's common case
                self._sm.append_message(m)
            else:
                self.persist(m)
        return None

    async def _rest_async(self, first: Awaitable[None], ev: AgentEvent, after: SessionListener | None = None) -> None:
        """The rest of ``on_agent_event`` once ``first`` (the extensions', or listener ``after``'s) must be awaited."""
        await first
        listeners = self.listeners
        if after is None:
            rest = list(listeners)
        else:
            rest = listeners[listeners.index(after) + 1 :] if after in listeners else []
        await self._notify(rest, ev)
        if ev.type == "message_end":
            self.persist(ev.message)

    def persist(self, m: Any) -> None:
        if self.drop is not None and self.drop(m):
            return
        role = m.role
        if role == "custom":
            self._sm.append_custom_message_entry(m.custom_type, m.content, m.display, m.details)
        elif role in MESSAGE_ENTRY_ROLES:
            self._sm.append_message(m)

    async def emit_session_event(self, ev: Any) -> None:
        await self._notify(list(self.listeners), ev)

    @staticmethod
    async def _notify(listeners: list[SessionListener], ev: Any) -> None:
        for fn in listeners:
            r = fn(ev)
            if r is not None:
                await r

    def on_extension_error(self, ev: ExtensionErrorEvent) -> None:
        for fn in list(self.listeners):
            try:
                r = fn(ev)
            except Exception:
                continue
            if r is not None:
                self.track(asyncio.ensure_future(r))

    def track(self, task: asyncio.Future[Any]) -> None:
        """Keep a background task alive until it ends."""
        self.background.add(task)  # type: ignore[arg-type]
        task.add_done_callback(self.background.discard)  # type: ignore[arg-type]


__all__ = ["MESSAGE_ENTRY_ROLES", "EventDispatch", "SessionListener"]
