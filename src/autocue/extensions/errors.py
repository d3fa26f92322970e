"""The extension API's errors (the tree is in ``docs/architecture.md``)."""

from __future__ import annotations

from autocue.errors import AutocueError


class ExtensionRuntimeError(AutocueError, RuntimeError):
    """An action method was called before the extension runtime was ready."""


__all__ = ["ExtensionRuntimeError"]
