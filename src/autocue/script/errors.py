"""The script model's errors (the tree is in ``docs/architecture.md``)."""

from __future__ import annotations

from autocue.errors import AutocueError


class ChaosSpecError(AutocueError, ValueError):
    """A chaos spec that does not parse: the message names the item, its column and the fix."""


__all__ = ["ChaosSpecError"]
