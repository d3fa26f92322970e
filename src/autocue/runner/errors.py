"""The scenario runner's errors, under one root ``RunnerError`` (the tree is in ``docs/architecture.md``).

This module imports nothing of the runner, so any runner module may import it.
"""

from __future__ import annotations

from typing import Any

from autocue.errors import AutocueError


class RunnerError(AutocueError):
    """Base of the runner's errors: launching the program, seeding the workspace, a failed scenario."""


class LaunchError(RunnerError, ValueError):
    """No program, or an unknown profile (message says what to write)."""


class AgentProfileError(LaunchError):
    """A user-defined launch profile file that cannot be read (the message names the file and key)."""


class SpawnError(RunnerError):
    """The program could not be started (not found, not executable)."""


class WorkspaceError(RunnerError):
    """The workspace could not be seeded as the scenario asks (message names the key)."""


class Interrupted(RunnerError):
    """The run stopped because ``autocue run`` was interrupted (raised in the run's thread)."""


class JobError(RunnerError, ValueError):
    """A job directory (``--job``) that cannot be used: not a directory, a cell file that is not one
    (the message names the file and what to do)."""


class MatrixError(RunnerError, ValueError):
    """A matrix file (``--matrix``) or axis flag that cannot be read: ``str(err)`` is ``file:line:col: message``."""


class ReportError(RunnerError, ValueError):
    """A report file to merge is missing or not a report (message names the file)."""


class ScenarioFailed(RunnerError):
    """A scenario collected by the pytest plugin failed; ``.result`` is its ``ScenarioResult``."""

    def __init__(self, result: Any) -> None:  # a ScenarioResult (runner/report.py imports this module)
        super().__init__(result.name)
        self.result = result


__all__ = ["AgentProfileError", "Interrupted", "JobError", "LaunchError", "MatrixError", "ReportError", "RunnerError",
           "ScenarioFailed", "SpawnError", "WorkspaceError"]
