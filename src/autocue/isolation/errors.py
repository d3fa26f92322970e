"""The sandbox providers' exceptions (``autocue.isolation``)."""

from __future__ import annotations

from autocue.errors import AutocueError


class IsolationError(AutocueError):
    """A sandbox could not be chosen, started or used."""


class SandboxUnavailableError(IsolationError):
    """The provider cannot run on this machine (no ``bwrap``, no container engine, ...): the message says why."""


class UnknownSandboxError(IsolationError, ValueError):
    """No provider of that name: neither built in nor an ``autocue.sandboxes`` entry point."""
