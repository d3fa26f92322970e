"""The ``write`` tool: create or overwrite a file, creating parent directories.

Arguments ``{path, content}``; result ``Successfully wrote N bytes to PATH`` (N is the UTF-8
size of the content, PATH as the model gave it).

Public: ``create_write_tool(cwd)``.
"""

from __future__ import annotations

from typing import Any

from autocue.agent.tool import AgentTool, OnUpdate, ToolResult
from autocue.llm.abort import AbortSignal
from autocue.tools.common import ToolError, check_aborted
from autocue.tools.paths import StrPath, resolve_to_cwd

WRITE_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "Path to the file to write (relative or absolute)"},
        "content": {"type": "string", "description": "Content to write to the file"},
    },
    "required": ["path", "content"],
}

WRITE_DESCRIPTION = (
    "Write content to a file. Creates the file if it doesn't exist, overwrites if it does. "
    "Automatically creates parent directories."
)


def create_write_tool(cwd: StrPath) -> AgentTool:
    """The ``write`` tool working relative to ``cwd``."""

    async def execute(
        tool_call_id: str, params: dict[str, Any], signal: AbortSignal, on_update: OnUpdate
    ) -> ToolResult:
        check_aborted(signal)
        path: str = params["path"]
        content: str = params["content"]
        abs_path = resolve_to_cwd(path, cwd)
        data = content.encode("utf-8", "surrogatepass")
        try:
            abs_path.parent.mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError):
            raise ToolError(f"ENOTDIR: cannot create parent directory of '{abs_path}': a file is in the way") from None
        except PermissionError:
            raise ToolError(f"EACCES: permission denied, mkdir '{abs_path.parent}'") from None
        check_aborted(signal)
        try:
            abs_path.write_bytes(data)
        except IsADirectoryError:
            raise ToolError(
                f"EISDIR: illegal operation on a directory, open '{abs_path}'. Choose a file path, not a directory."
            ) from None
        except PermissionError:
            raise ToolError(f"EACCES: permission denied, open '{abs_path}'") from None
        return ToolResult.text(f"Successfully wrote {len(data)} bytes to {path}")

    return AgentTool("write", WRITE_DESCRIPTION, WRITE_PARAMETERS, execute, label="write")
