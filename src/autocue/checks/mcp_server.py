"""The loop's checks (``autocue.checks``) as an MCP server (official ``mcp`` SDK, ``MCPServer``), on stdio.

Public surface: ``build_server(tools=None) -> MCPServer``, ``serve_stdio(root=None,
stale_after_secs=STALE_AFTER_SECS)``, ``STALE_AFTER_SECS``.

Eight tools with the seed's names, parameters and return shapes: ``test_setup``,
``test_run``, ``test_assert``, ``test_inspect``, ``test_cleanup``, ``test_mock_backend``,
``test_snapshot``, ``test_diff``. A result is the tool's JSON object (structured content,
and the same JSON as text); a failure is an ``isError`` result whose text is
``{"error": {code, message, ...}}``. At start the server deletes workspaces untouched for
``stale_after_secs`` (default 24 h), so abandoned test runs do not pile up; only folders
carrying the test tools' marker are deleted (others are named on stderr and left alone).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import wraps
from pathlib import Path
from typing import Any, TypeVar

import orjson

from autocue.checks.errors import TestToolError
from autocue.checks.tools import TestTools
from autocue.errors import require_extra

try:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
except ModuleNotFoundError as e:  # the MCP SDK is the optional extra autocue[mcp]
    raise require_extra(e, "mcp", "mcp", "the checks' MCP server (autocue mcp)") from None

STALE_AFTER_SECS = 24 * 3600
INSTRUCTIONS = (
    "Checks for the autocue orchestrator loop: test tools that set up, run and assert on loop runs. Typical flow: "
    "test_setup → test_mock_backend → test_run → test_assert / test_inspect → test_snapshot / test_diff → "
    "test_cleanup. The mock backend is the default: nothing reaches a model or the network unless you pick another "
    "backend."
)

F = TypeVar("F", bound=Callable[..., Any])


def _error(e: TestToolError) -> ToolError:
    return ToolError(orjson.dumps(e.to_dict()).decode("utf-8"))


def _guard(fn: F) -> F:
    @wraps(fn)
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            r = fn(*args, **kwargs)
            if isinstance(r, Awaitable):
                r = await r
            return r
        except TestToolError as e:
            raise _error(e) from None
        except (TypeError, ValueError) as e:
            raise _error(TestToolError("invalid_argument", str(e))) from None
        except OSError as e:
            raise _error(TestToolError("os_error", str(e))) from None

    return wrapper  # type: ignore[return-value]


def build_server(tools: TestTools | None = None) -> MCPServer[Any]:
    """The MCP server of ``tools``' eight ``test_*`` methods (their parameters are the tools' inputs)."""
    t = tools or TestTools()
    server: MCPServer[Any] = MCPServer("autocue-checks", instructions=INSTRUCTIONS)

    async def test_run(
        workspace_id: str,
        task: str,
        backend: str = "mock",
        max_iterations: int = 5,
        max_runtime_secs: float = 300,
        env: dict[str, str] | None = None,
        mock_responses: list[dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        rt: int | float = int(max_runtime_secs) if float(max_runtime_secs).is_integer() else max_runtime_secs
        return await t.test_run_async(workspace_id, task, backend, max_iterations, rt, env, mock_responses)

    tool_table: tuple[tuple[Callable[..., Any], str], ...] = (
        (t.test_setup, "Create an isolated test workspace (under the system temp dir) with optional fixture files "
                       "(path → content), loop config overrides and initial scratchpad."),
        (test_run, "Run the orchestrator loop in the workspace and record session.jsonl. "
                   "backend: mock (default), command, agent, claude, gemini, kiro."),
        (t.test_assert, "Evaluate assertions (all of them, no short-circuit) on the last run: exit_code, "
                        "termination_reason, iterations, file_exists, file_contains, file_not_contains, "
                        "event_occurred, event_sequence, event_count, scratchpad_contains, no_event, duration."),
        (t.test_inspect, "Read the recorded session: format json (records, total_matched, truncated), "
                         "summary or timeline; filter by event_types, topics (globs), after_iteration, "
                         "before_iteration, payload_pattern."),
        (t.test_cleanup, "Delete a workspace (preserve_session keeps only session.jsonl)."),
        (t.test_mock_backend, "Configure the mock backend: ordered responses {output, hat?, trigger_pattern?, "
                              "exit_code?, delay_ms?}."),
        (t.test_snapshot, "Capture the workspace files (include/exclude glob patterns)."),
        (t.test_diff, "Compare a snapshot (or 'initial') with another snapshot or 'current': "
                      "added/changed/deleted files and line-level hunks."),
    )
    for fn, description in tool_table:
        server.tool(description=description)(_guard(fn))
    return server


def serve_stdio(root: str | Path | None = None, stale_after_secs: float = STALE_AFTER_SECS) -> list[str]:
    """Clean stale workspaces, then serve over stdio until the client closes; returns the cleaned ids."""
    import sys

    import anyio

    def skipped(path: Path, why: str) -> None:
        print(f"autocue mcp: left {path} alone: {why}", file=sys.stderr)

    tools = TestTools(root)
    cleaned = tools.store.clean_stale(stale_after_secs, on_skip=skipped)
    server = build_server(tools)
    anyio.run(server.run_stdio_async)
    return cleaned


__all__ = ["STALE_AFTER_SECS", "build_server", "serve_stdio"]
