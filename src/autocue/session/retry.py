"""Auto-retry policy: which failed replies are retried and how long to wait.

A reply is retryable when its ``stop_reason`` is ``error``, it is not a context overflow, and
either its ``error_status`` is one of 408, 429, 502, 503, 504, 529 (a bare 500 counts only when
the message says so, as in pi: a scripted ``fail("...")`` is not retried), or its ``error_message`` matches pi's pattern
(overloaded, rate limit, too many requests, 429/5xx, service unavailable, server/internal/connection
errors, ...). The delay is ``base_delay_ms * 2**(attempt-1)`` capped at ``max_delay_ms``; a reply
carrying ``retry_after`` (seconds) waits that long instead, and when that exceeds ``max_delay_ms``
the error is not retried (the server asked for longer than the settings allow).

``AutoRetry`` retries a failed reply of an ``AgentSession``: ``retry(msg)`` waits the policy's
delay (``abort()`` ends the wait: the retry ends as cancelled), drops the failed reply and
continues the agent; ``finish(ok, error)`` emits the closing ``auto_retry_end`` once a run that
retried is over. (``RetrySettings`` is defined in ``settings.py``.)
"""

from __future__ import annotations

import asyncio
import contextlib
import re

from autocue.agent.agent import Agent
from autocue.llm.types import AssistantMessage
from autocue.session.event_dispatch import EventDispatch
from autocue.session.events import AutoRetryEndEvent, AutoRetryStartEvent
from autocue.session.settings import RetrySettings, Settings

RETRYABLE_PATTERN = re.compile(
    r"overloaded|rate.?limit|too many requests|429|500|502|503|504|service.?unavailable|server.?error|"
    r"internal.?error|connection.?error|connection.?refused|other side closed|fetch failed|upstream.?connect|"
    r"reset before headers|terminated|retry delay",
    re.IGNORECASE,
)

RETRYABLE_STATUS = frozenset({408, 429, 502, 503, 504, 529})


def is_retryable_error(message: AssistantMessage, *, is_overflow: bool = False) -> bool:
    """True for a failed reply worth retrying (see the module docstring)."""
    if message.stop_reason != "error" or is_overflow:
        return False
    if message.error_status in RETRYABLE_STATUS:
        return True
    return bool(message.error_message and RETRYABLE_PATTERN.search(message.error_message))


def retry_delay_ms(message: AssistantMessage, attempt: int, settings: RetrySettings) -> int | None:
    """Milliseconds to wait before retry number ``attempt`` (1-based); ``None`` = do not retry
    (the server's ``retry_after`` exceeds ``max_delay_ms``)."""
    if message.retry_after is not None:
        ms = int(message.retry_after * 1000)
        return None if ms > settings.max_delay_ms else ms
    return int(min(settings.base_delay_ms * 2 ** (attempt - 1), settings.max_delay_ms))


class AutoRetry:
    """The retries of one session's runs (built with its agent, settings and events)."""

    __slots__ = ("_abort", "_agent", "_events", "_settings", "attempt")

    def __init__(self, *, agent: Agent, settings: Settings, events: EventDispatch) -> None:
        self._agent = agent
        self._settings = settings
        self._events = events
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
            await self._events.emit_session_event(AutoRetryEndEvent(ok, self.attempt, error))
            self.attempt = 0

    async def retry(self, msg: AssistantMessage) -> bool:
        """Retry after ``msg`` failed; False when the attempts, the allowed delay or an abort end it."""
        emit = self._events.emit_session_event
        rs = self._settings.retry
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
            self.attempt -= 1  # this attempt never started
            await self.finish(False, final)
            return False
        await emit(AutoRetryStartEvent(attempt, rs.max_retries, delay, error))
        abort = self._abort
        if abort is not None and not abort.is_set():
            if delay > 0:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(abort.wait(), delay / 1000)
            else:
                await asyncio.sleep(0)
        if abort is not None and abort.is_set():
            await self.finish(False, "Retry cancelled")
            return False
        msgs = self._agent.state.messages
        if msgs and msgs[-1] is msg:
            msgs.pop()
        await self._agent.continue_()
        return True


__all__ = [
    "RETRYABLE_PATTERN", "RETRYABLE_STATUS", "AutoRetry", "RetrySettings", "is_retryable_error", "retry_delay_ms",
]
