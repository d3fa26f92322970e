"""Session events: what ``AgentSession.subscribe`` listeners get besides the agent events.

``auto_compaction_start{reason}`` / ``auto_compaction_end{result, aborted, will_retry, error_message}``,
``auto_retry_start{attempt, max_attempts, delay_ms, error_message}`` /
``auto_retry_end{success, attempt, final_error}``, and ``extension_error{extension_path, event,
error, stack}``. ``to_json`` gives pi's camelCase form (as ``--mode json`` / RPC print it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal, TypeAlias

from autocue.agent.events import AgentEvent
from autocue.casing import CamelJson
from autocue.extensions.events import ExtensionErrorEvent


@dataclass(slots=True)
class AutoCompactionStartEvent(CamelJson):
    reason: Literal["threshold", "overflow"]
    type: ClassVar[Literal["auto_compaction_start"]] = "auto_compaction_start"
    KEYS = ("reason",)


@dataclass(slots=True)
class AutoCompactionEndEvent(CamelJson):
    result: Any
    """The ``CompactionResult`` (``None`` when it failed or was cancelled)."""
    aborted: bool
    will_retry: bool
    error_message: str | None = None
    type: ClassVar[Literal["auto_compaction_end"]] = "auto_compaction_end"
    KEYS = ("result", "aborted", "willRetry", "errorMessage?")

    def to_json(self) -> dict[str, Any]:
        d = CamelJson.to_json(self)
        d["result"] = None if self.result is None else self.result.to_json()
        return d


@dataclass(slots=True)
class AutoRetryStartEvent(CamelJson):
    attempt: int
    max_attempts: int
    delay_ms: int
    error_message: str
    type: ClassVar[Literal["auto_retry_start"]] = "auto_retry_start"
    KEYS = ("attempt", "maxAttempts", "delayMs", "errorMessage")


@dataclass(slots=True)
class AutoRetryEndEvent(CamelJson):
    success: bool
    attempt: int
    final_error: str | None = None
    type: ClassVar[Literal["auto_retry_end"]] = "auto_retry_end"
    KEYS = ("success", "attempt", "finalError?")


SessionOnlyEvent: TypeAlias = (
    AutoCompactionStartEvent | AutoCompactionEndEvent | AutoRetryStartEvent | AutoRetryEndEvent | ExtensionErrorEvent
)
AgentSessionEvent: TypeAlias = AgentEvent | SessionOnlyEvent

__all__ = [
    "AgentSessionEvent", "AutoCompactionEndEvent", "AutoCompactionStartEvent", "AutoRetryEndEvent",
    "AutoRetryStartEvent", "ExtensionErrorEvent", "SessionOnlyEvent",
]
