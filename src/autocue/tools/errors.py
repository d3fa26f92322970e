"""The built-in tools' errors (the tree is in ``docs/architecture.md``)."""

from __future__ import annotations

from autocue.errors import AutocueError


class ToolError(AutocueError, RuntimeError):
    """A tool failure whose message is meant for the model (and the test reading it)."""


__all__ = ["ToolError"]
