"""Abort signals: how an abort reaches a streaming provider or a running tool.

``AbortController.abort()`` flips its ``signal``; holders check ``signal.aborted``, await
``signal.wait()``, or register a callback with ``signal.add_listener``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from autocue.llm.errors import AbortError as AbortError


class AbortSignal:
    __slots__ = ("_event", "_listeners", "aborted", "reason")

    def __init__(self) -> None:
        self.aborted = False
        self.reason: str | None = None
        self._listeners: list[Callable[[], object]] | None = None
        self._event: asyncio.Event | None = None

    def add_listener(self, fn: Callable[[], object]) -> Callable[[], None]:
        """Call ``fn`` on abort (at once if already aborted). Returns a remover."""
        if self.aborted:
            fn()
            return _noop
        if self._listeners is None:
            self._listeners = []
        self._listeners.append(fn)
        listeners = self._listeners

        def remove() -> None:
            if fn in listeners:
                listeners.remove(fn)

        return remove

    async def wait(self) -> None:
        """Return once the signal is aborted."""
        if self.aborted:
            return
        if self._event is None:
            self._event = asyncio.Event()
        await self._event.wait()

    def throw_if_aborted(self) -> None:
        if self.aborted:
            raise AbortError(self.reason or "aborted")

    def _fire(self, reason: str) -> None:
        if self.aborted:
            return
        self.aborted = True
        self.reason = reason
        if self._event is not None:
            self._event.set()
        for fn in list(self._listeners or ()):
            fn()
        self._listeners = None


def _noop() -> None:
    return None


class AbortController:
    __slots__ = ("signal",)

    def __init__(self) -> None:
        self.signal = AbortSignal()

    def abort(self, reason: str = "Request was aborted") -> None:
        self.signal._fire(reason)

