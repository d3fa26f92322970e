"""The simulation's errors (the tree is in ``docs/architecture.md``)."""

from __future__ import annotations

from autocue.errors import AutocueError


class EventSchemaError(AutocueError, ValueError):
    """An event that does not match the schema."""


class StreamError(AutocueError, RuntimeError):
    """The stream could not be read (HTTP error, not an event stream, too many reconnects)."""


__all__ = ["EventSchemaError", "StreamError"]
