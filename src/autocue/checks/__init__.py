"""``autocue.checks``: the orchestrator loop's checks, test tools an agent (or a test) uses on loop runs.

(Not the in-process harness: that is ``autocue.testing``.) Public surface: ``TestTools(root=None)``
(the eight tools as methods), the same tools as functions on the default root
(``$AUTOCUE_CHECKS_ROOT`` or the per-user ``<temp>/autocue-checks-<uid>``): ``test_setup``,
``test_run`` (``test_run_async`` in async code), ``test_assert``, ``test_inspect``, ``test_cleanup``,
``test_mock_backend``, ``test_snapshot``, ``test_diff``; ``TestToolError``; and
``ASSERTION_TYPES``. The tools keep the names of the spec (``seeds/003``), which is what an
agent calls. The CLI is ``autocue check <tool>``, the MCP server ``autocue mcp``
(``autocue.checks.mcp_server``).
"""

from __future__ import annotations

from typing import Any

from autocue.checks.assertions import ASSERTION_TYPES
from autocue.checks.errors import TestToolError
from autocue.checks.tools import TestTools
from autocue.checks.workspace import Workspace, WorkspaceStore, default_root


def test_setup(workspace_id: str, **kwargs: Any) -> dict[str, Any]:
    return TestTools().test_setup(workspace_id, **kwargs)


def test_run(workspace_id: str, task: str, **kwargs: Any) -> dict[str, Any]:
    return TestTools().test_run(workspace_id, task, **kwargs)


async def test_run_async(workspace_id: str, task: str, **kwargs: Any) -> dict[str, Any]:
    """``test_run`` from async code (the loop runs in the caller's event loop)."""
    return await TestTools().test_run_async(workspace_id, task, **kwargs)


def test_assert(workspace_id: str, assertions: list[dict[str, Any]]) -> dict[str, Any]:
    return TestTools().test_assert(workspace_id, assertions)


def test_inspect(workspace_id: str, **kwargs: Any) -> dict[str, Any]:
    return TestTools().test_inspect(workspace_id, **kwargs)


def test_cleanup(workspace_id: str, preserve_session: bool = False) -> dict[str, Any]:
    return TestTools().test_cleanup(workspace_id, preserve_session)


def test_mock_backend(workspace_id: str, responses: list[dict[str, Any]]) -> dict[str, Any]:
    return TestTools().test_mock_backend(workspace_id, responses)


def test_snapshot(workspace_id: str, **kwargs: Any) -> dict[str, Any]:
    return TestTools().test_snapshot(workspace_id, **kwargs)


def test_diff(workspace_id: str, baseline: str, compare_to: str = "current") -> dict[str, Any]:
    return TestTools().test_diff(workspace_id, baseline, compare_to)


for _f in (
    test_setup, test_run, test_run_async, test_assert, test_inspect, test_cleanup, test_mock_backend, test_snapshot,
    test_diff,
):
    _f.__test__ = False  # type: ignore[attr-defined,union-attr]  # not pytest tests

__all__ = [
    "ASSERTION_TYPES", "TestToolError", "TestTools", "Workspace", "WorkspaceStore", "default_root", "test_assert",
    "test_cleanup", "test_diff", "test_inspect", "test_mock_backend", "test_run", "test_run_async", "test_setup",
    "test_snapshot",
]
