"""The ``ls`` tool: one directory's entries.

Arguments ``{path?, limit?}``. Entries are sorted case-insensitively, directories get a
trailing ``/``, dotfiles are included; ``(empty directory)`` when there are none. At most
``limit`` entries (default 500) and 50 KB, with a notice.

Public: ``create_ls_tool(cwd)``.
"""

from __future__ import annotations

import os
from typing import Any

from autocue.agent.tool import AgentTool, OnUpdate, ToolResult
from autocue.llm.abort import AbortSignal
from autocue.tools.common import ToolError, check_aborted
from autocue.tools.listing import listing_dir, listing_result
from autocue.tools.paths import StrPath
from autocue.tools.truncate import DEFAULT_MAX_BYTES

DEFAULT_LS_LIMIT = 500

LS_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "Directory to list (default: current directory)"},
        "limit": {
            "type": "number",
            "description": f"Maximum number of entries to return (default: {DEFAULT_LS_LIMIT})",
        },
    },
}

LS_DESCRIPTION = (
    "List directory contents. Returns entries sorted alphabetically, with '/' suffix for directories. Includes "
    f"dotfiles. Output is truncated to {DEFAULT_LS_LIMIT} entries or {DEFAULT_MAX_BYTES // 1024}KB (whichever is "
    "hit first)."
)


def create_ls_tool(cwd: StrPath) -> AgentTool:
    """The ``ls`` tool listing relative to ``cwd``."""

    async def execute(
        tool_call_id: str, params: dict[str, Any], signal: AbortSignal, on_update: OnUpdate
    ) -> ToolResult:
        check_aborted(signal)
        dir_path, limit = listing_dir(params, cwd, DEFAULT_LS_LIMIT, "Use read to see a file.")
        try:
            with os.scandir(dir_path) as it:
                entries = [(e.name, _is_dir(e)) for e in it]
        except OSError as e:
            raise ToolError(f"Cannot read directory: {e.strerror or e}: {dir_path}") from None
        entries.sort(key=lambda t: (t[0].lower(), t[0]))
        results = [name + "/" if is_dir else name for name, is_dir in entries[:limit]]
        if not results:
            return ToolResult.text("(empty directory)")
        hit = len(entries) > limit
        notice = f"{limit} entries limit reached. Use limit={limit * 2} for more"
        return listing_result(results, (notice, "entryLimitReached", limit) if hit else None)

    return AgentTool("ls", LS_DESCRIPTION, LS_PARAMETERS, execute, label="ls")


def _is_dir(e: os.DirEntry[str]) -> bool:
    try:
        return e.is_dir()  # follows symlinks, like stat
    except OSError:
        return False
