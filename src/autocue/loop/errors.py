"""The orchestrator loop's errors, under one root ``LoopError`` (the tree is in ``docs/architecture.md``).

Each keeps its standard-library base, so ``except ValueError`` still catches a bad configuration.
"""

from __future__ import annotations

from pathlib import Path

from autocue.errors import AutocueError


class LoopError(AutocueError):
    """Base of the loop's errors: a configuration, a mock response, a path or a file it refuses."""


class LoopConfigError(LoopError, ValueError):
    """A configuration the loop cannot run; the message says where and what to do."""


class MockConfigError(LoopError, ValueError):
    """A mock response that cannot be used; the message names its index."""


class PathEscapeError(LoopError, ValueError):
    """A path argument that would leave the workspace."""


class UnsafeFileError(LoopError, OSError):
    """A path below a workspace that autocue refuses to follow or open (see ``autocue.loop.safe_files``)."""

    def __init__(self, path: Path, what: str) -> None:
        self.path = path
        self.what = what
        super().__init__(
            f"{path} is {what}: autocue does not follow links or open special files in a workspace "
            "(an agent may have planted it); remove it and retry"
        )

    def __str__(self) -> str:
        return str(self.args[0])


class SessionParseError(LoopError, ValueError):
    """A corrupted session line. ``line`` is 1-based."""

    def __init__(self, path: str, line: int, problem: str) -> None:
        self.path = path
        self.line = line
        self.problem = problem
        super().__init__(
            f"{path}:{line}: corrupted session record: {problem}. "
            "Each line must be a JSON object {\"ts\": ms, \"event\": type, \"data\": {...}}; "
            "fix or remove that line."
        )


__all__ = ["LoopConfigError", "LoopError", "MockConfigError", "PathEscapeError", "SessionParseError",
           "UnsafeFileError"]
