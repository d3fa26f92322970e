"""The ``autocue`` command's errors (the tree is in ``docs/architecture.md``)."""

from __future__ import annotations

from autocue.errors import AutocueError


class CliError(AutocueError):
    """A problem with the command line or the configuration; printed without a traceback."""


__all__ = ["CliError"]
