"""Errors raised by the session data layer.

- ``SessionError``: base class.
- ``SessionFileError``: a session file cannot be loaded (missing/invalid header, a corrupt
  line before the last one, an entry with the wrong shape). It names the file and the line.
- ``EntryNotFoundError``: an entry id that is not in the session (``branch``, labels, ...).
- ``CompactionError``: compaction could not run (nothing to compact, summarization failed).
"""

from __future__ import annotations


class SessionError(Exception):
    """Base class of every session-layer error."""


class SessionFileError(SessionError):
    """A session file is unreadable. ``path`` and ``line`` (1-based, or None) say where."""

    def __init__(self, path: str, line: int | None, problem: str, hint: str | None = None) -> None:
        self.path = path
        self.line = line
        self.problem = problem
        self.hint = hint
        where = f"{path}:{line}" if line is not None else path
        text = f"{where}: {problem}"
        if hint:
            text += f"\n  {hint}"
        super().__init__(text)


class EntryNotFoundError(SessionError, LookupError):
    """An entry id that the session does not contain."""

    def __init__(self, entry_id: str, where: str) -> None:
        self.entry_id = entry_id
        super().__init__(f"Entry {entry_id} not found in {where}")

    def __str__(self) -> str:  # LookupError would quote the message like a KeyError
        return str(self.args[0])


class CompactionError(SessionError):
    """Compaction failed: nothing to compact, already compacted, or the summary call failed."""


__all__ = ["CompactionError", "EntryNotFoundError", "SessionError", "SessionFileError"]
