"""The recording proxy's errors (the tree is in ``docs/architecture.md``)."""

from __future__ import annotations

from autocue.errors import AutocueError


class CheckError(AutocueError):
    """A recording that cannot be checked (a reply built by a factory, no reply at all)."""


class ForkError(AutocueError):
    """A recording that cannot be forked (not written by autocue record, or ``--from`` past its replies)."""


class RunCaptureError(AutocueError):
    """A whole agent run that cannot be recorded (``autocue record --agent``: bad options, a launch
    failure, the time limit)."""


__all__ = ["CheckError", "ForkError", "RunCaptureError"]
