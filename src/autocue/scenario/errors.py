"""Where a scenario problem is, and the two ways one is reported.

``ScenarioError`` is raised for a document autocue cannot use; its message starts with
``file:line:column: path:`` (``path`` like ``timeline[3].llmResponse[0].think``), says what
is wrong and what to write instead. ``ScenarioWarning`` is collected (never raised) for input
that is accepted but ignored or reinterpreted, such as unknown keys.
"""

from __future__ import annotations

from dataclasses import dataclass

from autocue.errors import AutocueError
from autocue.yamlpos import Pos


class ScenarioError(AutocueError, ValueError):
    """A scenario document that cannot be loaded. ``str(err)`` is ``file:line:col: path: message``."""

    def __init__(self, message: str, pos: Pos, path: str = "") -> None:
        self.message = message
        self.pos = pos
        self.path = path
        self.file = pos.file
        self.line = pos.line
        self.col = pos.col
        super().__init__(_format(message, pos, path))


class TimelineKindError(AutocueError, TypeError):
    """A timeline event key registered twice, or an interpreter of timelines (``events.py``) that
    neither handles nor ignores a registered event class: a programming error, not a scenario's."""


@dataclass(frozen=True, slots=True)
class ScenarioWarning:
    """Accepted input that autocue ignores or reinterprets (unknown keys, unsupported blocks)."""

    message: str
    pos: Pos
    path: str = ""

    def __str__(self) -> str:
        return _format(self.message, self.pos, self.path)


def _format(message: str, pos: Pos, path: str) -> str:
    where = f"{pos}: {path}: " if path else f"{pos}: "
    return where + message


class RecordingFileError(AutocueError, OSError):
    """A recording's file was replaced by something autocue does not write through (a symbolic
    link, a FIFO, another file) between two appends."""


class RedactionError(AutocueError, ValueError):
    """A ``--redact`` pattern that is not a regular expression, or a missing ``--redact-env`` variable."""


__all__ = ["Pos", "RecordingFileError", "RedactionError", "ScenarioError", "ScenarioWarning", "TimelineKindError"]
