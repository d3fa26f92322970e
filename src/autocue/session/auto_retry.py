"""``AutoRetry``: retrying a failed reply of an ``AgentSession`` (the policy is ``retry.py``).

``retry(msg)`` waits the policy's delay (``abort()`` ends the wait: the retry ends as
cancelled), drops the failed reply and continues the agent; ``finish(ok, error)`` emits the
closing ``auto_retry_end`` once a run that retried is over.
"""

from __future__ import annotations

import asyncio
import weakref
from typing import TYPE_CHECKING

from autocue.llm.types import AssistantMessage
from autocue.session.events import AutoRetryEndEvent, AutoRetryStartEvent
from autocue.session.retry import retry_delay_ms

if TYPE_CHECKING:
    from autocue.session.agent_session import AgentSession


class AutoRetry:
    __slots__ = ("_abort", "_s", "attempt")

    def __init__(self, session: AgentSession) -> None:
        self._s: AgentSession = weakref.proxy(session)  # the session owns this; no cycle to free
        self.attempt = 0
        self._abort: asyncio.Event | None = None

    def start(self) -> None:
        """A new run: no attempt yet, a fresh abort flag."""
        self.attempt = 0
        self._abort = asyncio.Event()

    def abort(self) -> None:
        if self._abort is not None:
            self._abort.set()

    async def finish(self, ok: bool, error: str | None = None) -> None:
        """After a run that retried: ``auto_retry_end`` with its outcome."""
        if self.attempt > 0:
            await self._s.events.emit_session_event(AutoRetryEndEvent(ok, self.attempt, error))
            self.attempt = 0

    async def retry(self, msg: AssistantMessage) -> bool:
        """Retry after ``msg`` failed; False when the attempts, the allowed delay or an abort end it."""
        s = self._s
        emit = s.events.emit_session_event
        rs = s.settings.retry
        self.attempt += 1
        attempt = self.attempt
        error = msg.error_message or "unknown error"
        if attempt > rs.max_retries:
            await emit(AutoRetryEndEvent(False, attempt - 1, error))
            self.attempt = 0
            return False
        delay = retry_delay_ms(msg, attempt, rs)
        if delay is None:
            final = (
                f"{error} (the server asked to wait {msg.retry_after}s, more than retry.max_delay_ms="
                f"{rs.max_delay_ms}; raise it in settings to wait that long)"
            )
            if attempt > 1:
                await emit(AutoRetryEndEvent(False, attempt - 1, final))
            self.attempt = 0
            return False
        await emit(AutoRetryStartEvent(attempt, rs.max_retries, delay, error))
        abort = self._abort
        if abort is not None and not abort.is_set():
            if delay > 0:
                try:
                    await asyncio.wait_for(abort.wait(), delay / 1000)
                except TimeoutError:
                    pass
            else:
                await asyncio.sleep(0)
        if abort is not None and abort.is_set():
            await emit(AutoRetryEndEvent(False, attempt, "Retry cancelled"))
            self.attempt = 0
            return False
        msgs = s.agent.state.messages
        if msgs and msgs[-1] is msg:
            msgs.pop()
        await s.agent.continue_()
        return True


__all__ = ["AutoRetry"]
