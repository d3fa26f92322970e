"""Auto-retry policy: which failed replies are retried and how long to wait.

A reply is retryable when its ``stop_reason`` is ``error``, it is not a context overflow, and
either its ``error_status`` is one of 408, 429, 502, 503, 504, 529 (a bare 500 counts only when
the message says so, as in pi: a scripted ``fail("...")`` is not retried), or its ``error_message`` matches pi's pattern
(overloaded, rate limit, too many requests, 429/5xx, service unavailable, server/internal/connection
errors, ...). The delay is ``base_delay_ms * 2**(attempt-1)`` capped at ``max_delay_ms``; a reply
carrying ``retry_after`` (seconds) waits that long instead, and when that exceeds ``max_delay_ms``
the error is not retried (the server asked for longer than the settings allow).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from autocue.llm.types import AssistantMessage

RETRYABLE_PATTERN = re.compile(
    r"overloaded|rate.?limit|too many requests|429|500|502|503|504|service.?unavailable|server.?error|"
    r"internal.?error|connection.?error|connection.?refused|other side closed|fetch failed|upstream.?connect|"
    r"reset before headers|terminated|retry delay",
    re.IGNORECASE,
)

RETRYABLE_STATUS = frozenset({408, 429, 502, 503, 504, 529})


@dataclass(slots=True)
class RetrySettings:
    """``retry`` settings (pi defaults: enabled, 3 retries, 2 s base, 60 s max)."""

    enabled: bool = True
    max_retries: int = 3
    base_delay_ms: int = 2000
    max_delay_ms: int = 60000


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


__all__ = ["RETRYABLE_PATTERN", "RETRYABLE_STATUS", "RetrySettings", "is_retryable_error", "retry_delay_ms"]
