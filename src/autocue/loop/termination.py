"""Why a loop ended, with its exit code.

Public surface: ``TerminationReason`` (an ``Enum`` whose value is the CamelCase name written
to ``_meta.termination.reason``), ``.exit_code``, ``.as_str()`` (the snake_case form used in
the ``loop.terminate`` payload).

One vocabulary: CamelCase everywhere in records and results; the snake_case form only
appears inside the human-readable ``loop.terminate`` payload, as in ralph.
"""

from __future__ import annotations

import re
from enum import Enum


class TerminationReason(Enum):
    COMPLETION_PROMISE = "CompletionPromise"
    MAX_ITERATIONS = "MaxIterations"
    MAX_RUNTIME = "MaxRuntime"
    CONSECUTIVE_FAILURES = "ConsecutiveFailures"
    LOOP_STALE = "LoopStale"
    VALIDATION_FAILURE = "ValidationFailure"
    INTERRUPTED = "Interrupted"

    @property
    def exit_code(self) -> int:
        return _EXIT_CODES[self]

    def as_str(self) -> str:
        """snake_case name: ``CompletionPromise`` → ``completion_promise`` (``completed`` for success)."""
        if self is TerminationReason.COMPLETION_PROMISE:
            return "completed"
        return re.sub(r"(?<!^)(?=[A-Z])", "_", self.value).lower()

    @classmethod
    def parse(cls, name: str) -> TerminationReason:
        """Accept the CamelCase value, the enum name, or the snake_case form."""
        for r in cls:
            if name in (r.value, r.name, r.as_str()):
                return r
        known = ", ".join(r.value for r in cls)
        raise ValueError(f"unknown termination reason {name!r}; known: {known}")


_EXIT_CODES: dict[TerminationReason, int] = {
    TerminationReason.COMPLETION_PROMISE: 0,
    TerminationReason.MAX_ITERATIONS: 2,
    TerminationReason.MAX_RUNTIME: 2,
    TerminationReason.CONSECUTIVE_FAILURES: 1,
    TerminationReason.LOOP_STALE: 1,
    TerminationReason.VALIDATION_FAILURE: 1,
    TerminationReason.INTERRUPTED: 130,
}

__all__ = ["TerminationReason"]
