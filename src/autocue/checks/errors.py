"""``TestToolError``: what a test tool returns instead of a result when it cannot run.

Public surface: ``TestToolError(code, message, **details)`` with ``to_dict()``.

Codes: ``unknown_workspace`` (details: ``available``), ``invalid_argument``,
``path_outside_workspace``, ``session_parse_error`` (details: ``line``), ``no_session``,
``unknown_snapshot`` (details: ``available``), ``backend_unavailable``.
"""

from __future__ import annotations

from typing import Any

from autocue.errors import AutocueError


class TestToolError(AutocueError):
    """See module docstring. The message says what happened and what to do."""

    __test__ = False  # not a pytest test class

    def __init__(self, code: str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details

    def to_dict(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message, **self.details}}


__all__ = ["TestToolError"]
