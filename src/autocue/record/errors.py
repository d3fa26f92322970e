"""The recording proxy's errors (the tree is in ``docs/architecture.md``)."""

from __future__ import annotations

from autocue.errors import AutocueError


class CheckError(AutocueError):
    """A recording that cannot be checked (a reply built by a factory, no reply at all)."""


__all__ = ["CheckError"]
