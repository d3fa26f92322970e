"""The harness's errors. Each names the turn, the step and the actions in DSL form."""

from __future__ import annotations

from typing import Any

from autocue.errors import AutocueError


class HarnessError(AutocueError, AssertionError):
    """Base of every error the test harness raises (an ``AssertionError``, so tests fail, not error)."""

    transcript: str = ""
    """What the session did up to the failure, when a scenario run raised it (``run_scenario``)."""


class PlaybookError(HarnessError):
    """The model calls the agent made do not match the playbook."""


class PlaybookExhaustedError(PlaybookError):
    """The agent asked the model for more replies than its turn scripted."""


class PlaybookNotConsumedError(PlaybookError):
    """A turn ended with scripted replies left over."""


class UnknownToolError(HarnessError):
    """The model called a tool that is neither registered, built in, nor mocked."""


class ToolExecutionError(HarnessError):
    """A real (not mocked) tool raised while ``propagate_errors`` is on."""


class ExtensionLoadError(HarnessError):
    """An extension failed to load."""


def hide_harness_frame(excinfo: Any) -> bool:
    """``__tracebackhide__`` of the harness's own functions: pytest hides their frame when the error is a
    ``HarnessError`` (its message names the turn and the step), and shows it for any other (a bug, an error
    of the user's callback)."""
    return excinfo is not None and bool(excinfo.errisinstance(HarnessError))


class RecordingMissingError(HarnessError):
    """Replay-only (``none``) and the recording has no reply for this call."""


class ScenarioAssertionError(HarnessError):
    """An ``assert`` step of a scenario failed."""
