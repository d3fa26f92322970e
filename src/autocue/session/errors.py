"""Errors raised by the session layer; each class says when (the tree is in ``docs/architecture.md``)."""

from __future__ import annotations

from autocue.errors import AutocueError


class SessionError(AutocueError):
    """Base class of every session-layer error."""


class SessionFileError(SessionError):
    """A session file is unreadable. ``path`` and ``line`` (1-based, or None) say where."""

    def __init__(self, path: str, line: int | None, problem: str, hint: str | None = None) -> None:
        self.path = path
        self.line = line
        self.problem = problem
        self.hint = hint
        self.where = f"{path}:{line}" if line is not None else path
        super().__init__(f"{self.where}: {problem}" + (f"\n  {hint}" if hint else ""))

    def one_line(self) -> str:
        """The error on one line (for a command-line tool): ``file:line: problem; hint``."""
        return f"{self.where}: {self.problem}" + (f"; {self.hint[0].lower()}{self.hint[1:]}" if self.hint else "")


class SessionFileNotFoundError(SessionFileError, FileNotFoundError):
    """``SessionManager.open`` of a path that does not exist: nothing is created (use ``create_at``)."""

    def __init__(self, path: str) -> None:
        super().__init__(path, None, "no such session file",
                         "Check the path; to start a new session there, create it explicitly "
                         "(SessionManager.create_at).")


class EntryNotFoundError(SessionError, LookupError):
    """An entry id that the session does not contain."""

    def __init__(self, entry_id: str, where: str) -> None:
        self.entry_id = entry_id
        super().__init__(f"Entry {entry_id} not found in {where}")

    def __str__(self) -> str:  # LookupError would quote the message like a KeyError
        return str(self.args[0])


class CompactionError(SessionError):
    """Compaction failed: nothing to compact, already compacted, or the summary call failed."""


class SessionBusyError(SessionError, RuntimeError):
    """``prompt`` while the agent runs, without saying how to queue the message."""


class SessionDisposedError(SessionError, RuntimeError):
    """The session was disposed."""


class SettingsError(AutocueError, ValueError):
    """A settings file that cannot be read."""


class EntryParseError(AutocueError, ValueError):
    """A loaded entry whose message turned out malformed when it was first read."""

    def __init__(self, message: str, entry_id: str, line: int | None) -> None:
        super().__init__(message)
        self.entry_id = entry_id
        self.line = line


__all__ = [
    "CompactionError", "EntryNotFoundError", "EntryParseError", "SessionBusyError", "SessionDisposedError",
    "SessionError", "SessionFileError", "SessionFileNotFoundError", "SettingsError",
]
