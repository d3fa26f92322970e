"""The runner's exceptions."""

from __future__ import annotations

from autocue.errors import AutocueError


class LaunchError(AutocueError, ValueError):
    """No program, or an unknown profile (message says what to write)."""


class AgentProfileError(LaunchError):
    """A user-defined launch profile file that cannot be read (the message names the file and key)."""


__all__ = ["AgentProfileError", "LaunchError"]
