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


class UpstreamClosedError(AutocueError, ConnectionError):
    """The upstream closed its connection before its reply was complete (the proxy answers 502, or
    cuts the reply it was passing on)."""


__all__ = ["CheckError", "ForkError", "RunCaptureError", "UpstreamClosedError"]
