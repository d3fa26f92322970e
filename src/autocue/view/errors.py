"""The viewer's errors (the tree is in ``docs/architecture.md``)."""

from __future__ import annotations

from autocue.errors import AutocueError


class ViewSourceError(AutocueError, ValueError):
    """Input the viewer cannot read (the message names where and what to do)."""


__all__ = ["ViewSourceError"]
