"""The sandbox check's errors, under one root ``SandboxError`` (the tree is in ``docs/architecture.md``).

This module imports nothing of the sandbox package, so any of its modules may import it.
"""

from __future__ import annotations

from typing import Any

from autocue.errors import AutocueError


class SandboxError(AutocueError):
    """Base of the sandbox check's errors: a failed check, a step that ends it, a bad smoke playbook."""


class SandboxVerificationError(SandboxError, AssertionError):
    """The package failed the sandbox check; ``.result`` is the full ``SandboxResult``."""

    def __init__(self, result: Any) -> None:  # a SandboxResult (sandbox/check.py imports this module)
        super().__init__(result.report())
        self.result = result


class SandboxStepError(SandboxError):
    """A step of the check failed in a way that ends the check; carries the ``Problem``."""

    def __init__(self, problem: Any) -> None:  # a Problem (sandbox/problems.py imports this module)
        super().__init__(problem.message)
        self.problem = problem


class SmokeSpecError(SandboxError, ValueError):
    """A smoke playbook that cannot be sent into the sandbox (names where and why)."""


__all__ = ["SandboxError", "SandboxStepError", "SandboxVerificationError", "SmokeSpecError"]
