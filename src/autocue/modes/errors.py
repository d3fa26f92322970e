"""The modes' errors (the tree is in ``docs/architecture.md``)."""

from __future__ import annotations

from autocue.errors import AutocueError


class RpcCommandError(AutocueError):
    """A command that cannot be carried out; its message becomes the error response."""


__all__ = ["RpcCommandError"]
