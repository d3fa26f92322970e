"""The recording proxy's errors (the tree is in ``docs/architecture.md``)."""

from __future__ import annotations

from autocue.errors import AutocueError


class CheckError(AutocueError):
    """A recording that cannot be checked (a reply built by a factory, no reply at all)."""


class RunCaptureError(AutocueError):
    """A whole agent run that cannot be recorded (``autocue record --agent``: bad options, a launch
    failure, the time limit)."""


__all__ = ["CheckError", "RunCaptureError"]
