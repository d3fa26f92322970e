"""The ``find`` tool: files (and directories) whose path matches a glob.

Arguments ``{pattern, path?, limit?}``. A pattern without ``/`` (``*.py``) matches names at any
depth; one with ``/`` (``src/**/*.ts``) matches the path relative to the searched directory.
Results are relative ``/``-separated paths in path order, directories with a trailing ``/``;
hidden files are included, ``.git`` and what ignore files exclude are skipped (see
``autocue.tools.walk``). At most ``limit`` results (default 1000) and 50 KB, with a notice.

Public: ``create_find_tool(cwd)``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from autocue.agent.tool import AgentTool, OnUpdate, ToolResult
from autocue.globs import PathGlob
from autocue.llm.abort import AbortSignal
from autocue.tools.common import check_aborted
from autocue.tools.listing import listing_dir, listing_result
from autocue.tools.paths import StrPath
from autocue.tools.truncate import DEFAULT_MAX_BYTES
from autocue.tools.walk import walk

DEFAULT_FIND_LIMIT = 1000

FIND_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "pattern": {
            "type": "string",
            "description": "Glob pattern to match files, e.g. '*.ts', '**/*.json', or 'src/**/*.spec.ts'",
        },
        "path": {"type": "string", "description": "Directory to search in (default: current directory)"},
        "limit": {"type": "number", "description": f"Maximum number of results (default: {DEFAULT_FIND_LIMIT})"},
    },
    "required": ["pattern"],
}

FIND_DESCRIPTION = (
    "Search for files by glob pattern. Returns matching file paths relative to the search directory. Respects "
    f".gitignore. Output is truncated to {DEFAULT_FIND_LIMIT} results or {DEFAULT_MAX_BYTES // 1024}KB "
    "(whichever is hit first)."
)


def _find(root: str, pattern: str, limit: int, signal: AbortSignal) -> list[str]:
    glob = PathGlob(pattern)
    found: list[str] = []
    for e in walk(root, should_stop=lambda: signal.aborted):
        if glob.matches(e.rel) != glob.negated:
            found.append(e.rel + "/" if e.is_dir else e.rel)
            if len(found) >= limit:
                break
    return found


def create_find_tool(cwd: StrPath) -> AgentTool:
    """The ``find`` tool searching relative to ``cwd``."""

    async def execute(
        tool_call_id: str, params: dict[str, Any], signal: AbortSignal, on_update: OnUpdate
    ) -> ToolResult:
        check_aborted(signal)
        pattern: str = params["pattern"]
        root, limit = listing_dir(params, cwd, DEFAULT_FIND_LIMIT, "find searches a directory; use read for a file.")
        found = await asyncio.to_thread(_find, str(root), pattern, limit, signal)
        check_aborted(signal)
        if not found:
            return ToolResult.text("No files found matching pattern")
        hit = len(found) >= limit
        notice = f"{limit} results limit reached. Use limit={limit * 2} for more, or refine pattern"
        return listing_result(found, (notice, "resultLimitReached", limit) if hit else None)

    return AgentTool("find", FIND_DESCRIPTION, FIND_PARAMETERS, execute, label="find")
