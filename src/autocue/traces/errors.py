"""The trace formats' errors (the tree is in ``docs/architecture.md``)."""

from __future__ import annotations

from autocue.errors import AutocueError


class TraceError(AutocueError):
    """A trace that cannot be read or written: ``FILE: JSON.PATH: what is wrong`` in one line."""


__all__ = ["TraceError"]
