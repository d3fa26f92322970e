"""``RunGuard``: the run state an ``AgentSession`` shares with its collaborators instead of itself.

The collaborators (``compaction``, ``retry``, ``prompt_queue``, ``ttsr``, ``tree_navigation``,
``agent_wiring``, ``subagents``) are built with the few parts of the session they use, the
agent, the settings, the event dispatch, the session manager, the extension runner, and, when
they start, stop or join a run, this guard:

- ``check_alive()`` raises ``SessionDisposedError`` once the session is disposed;
- ``begin()`` / ``end()`` count the prompts, retries and compactions in progress, ``busy`` is
  the session's ``is_streaming`` and ``wait_for_idle()`` its ``wait_for_idle``;
- ``run(start)`` is the session's run loop (``start()``, then what follows it: a TTSR retry, an
  auto-retry, a compaction) and ``abort()`` its ``abort``.

The guard holds the session's two entries weakly (as ``weakref.WeakMethod``), so no
collaborator keeps its session alive: a session is freed by reference counting once dropped.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from autocue.agent.agent import Agent
from autocue.session.errors import SessionDisposedError

Start = Callable[[], Awaitable[Any]]
"""What a run starts with: the agent's ``prompt(...)`` or ``continue_``."""
_F = TypeVar("_F", bound=Callable[..., Any])


class RunGuard:
    """Alive or disposed, the runs in progress, and the session's run loop and abort (held weakly)."""

    __slots__ = ("_abort", "_agent", "_idle", "_run", "disposed", "running")

    def __init__(
        self, agent: Agent, *, run: Callable[[Start], Awaitable[None]], abort: Callable[[], Awaitable[None]]
    ) -> None:
        """``run`` and ``abort`` are bound methods of the session (held weakly)."""
        self._agent = agent
        self._run = weakref.WeakMethod(run)
        self._abort = weakref.WeakMethod(abort)
        self.disposed = False
        self.running = 0
        self._idle: asyncio.Event | None = None

    def check_alive(self) -> None:
        if self.disposed:
            raise SessionDisposedError("this AgentSession was disposed; create a new one")

    @property
    def busy(self) -> bool:
        """True while a prompt, retry or compaction runs, or the agent streams."""
        return self.running > 0 or self._agent.is_streaming

    def begin(self) -> None:
        self.running += 1
        if self._idle is None:
            self._idle = asyncio.Event()
        self._idle.clear()

    def end(self) -> None:
        self.running -= 1
        if self.running == 0 and self._idle is not None:
            self._idle.set()

    async def wait_for_idle(self) -> None:
        """Wait until no prompt, retry or compaction runs and the agent is idle."""
        while self.running > 0 and self._idle is not None:
            await self._idle.wait()
        await self._agent.wait_for_idle()

    async def run(self, start: Start) -> None:
        """The session's run loop: ``start()`` and what follows it."""
        await self._entry(self._run)(start)

    async def abort(self) -> None:
        """The session's ``abort``: signal every part of the run, then wait until idle."""
        await self._entry(self._abort)()

    @staticmethod
    def _entry(ref: weakref.WeakMethod[_F]) -> _F:
        fn = ref()
        if fn is None:
            raise SessionDisposedError("the AgentSession of this collaborator is gone")
        return fn


__all__ = ["RunGuard", "Start"]
