"""The agent layer's errors (the tree is in ``docs/architecture.md``)."""

from __future__ import annotations

from autocue.errors import AutocueError


class AgentBusyError(AutocueError, RuntimeError):
    """``prompt`` or ``continue_`` while a run is in progress."""


class ToolArgumentsError(AutocueError, ValueError):
    """Arguments that do not match the tool's schema; the message lists each problem."""


__all__ = ["AgentBusyError", "ToolArgumentsError"]
