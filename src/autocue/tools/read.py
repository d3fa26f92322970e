"""The ``read`` tool: a text file by lines, or an image as image content.

Arguments ``{path, offset?, limit?}``. ``offset`` is the 1-based first line, ``limit`` the
number of lines. Output is cut at 2000 lines or 50 KB, with a notice that says which lines
were shown and which ``offset`` continues. PNG, JPEG, GIF and WebP files (detected by their
bytes) come back as ``Read image file [mime]`` plus an ``ImageContent``.

Public: ``create_read_tool(cwd)``.
"""

from __future__ import annotations

import base64
from typing import Any

from autocue.agent.tool import AgentTool, OnUpdate, ToolResult
from autocue.llm.abort import AbortSignal
from autocue.llm.types import ImageContent, TextContent
from autocue.tools.common import ToolError, check_aborted, opt_int
from autocue.tools.images import SNIFF_BYTES, detect_image_mime
from autocue.tools.paths import StrPath, resolve_to_cwd
from autocue.tools.truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, format_size, truncate_head

READ_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "Path to the file to read (relative or absolute)"},
        "offset": {"type": "number", "description": "Line number to start reading from (1-indexed)"},
        "limit": {"type": "number", "description": "Maximum number of lines to read"},
    },
    "required": ["path"],
}

READ_DESCRIPTION = (
    "Read the contents of a file. Supports text files and images (jpg, png, gif, webp). Images are sent as "
    f"attachments. For text files, output is truncated to {DEFAULT_MAX_LINES} lines or "
    f"{DEFAULT_MAX_BYTES // 1024}KB (whichever is hit first). Use offset/limit for large files. When you need "
    "the full file, continue with offset until complete."
)


def read_file_bytes(path: str, cwd: StrPath) -> tuple[str, bytes]:
    """Read a file for a tool, with pi-style errors naming the absolute path."""
    abs_path = resolve_to_cwd(path, cwd)
    try:
        return str(abs_path), abs_path.read_bytes()
    except FileNotFoundError:
        raise ToolError(f"ENOENT: no such file or directory, access '{abs_path}'") from None
    except IsADirectoryError:
        raise ToolError(
            f"EISDIR: illegal operation on a directory, read '{abs_path}'. "
            "Use ls to list a directory or find to search it."
        ) from None
    except PermissionError:
        raise ToolError(f"EACCES: permission denied, open '{abs_path}'") from None
    except NotADirectoryError:
        raise ToolError(f"ENOTDIR: not a directory, access '{abs_path}'") from None


def create_read_tool(cwd: StrPath) -> AgentTool:
    """The ``read`` tool working relative to ``cwd``."""

    async def execute(
        tool_call_id: str, params: dict[str, Any], signal: AbortSignal, on_update: OnUpdate
    ) -> ToolResult:
        check_aborted(signal)
        path: str = params["path"]
        offset = opt_int(params, "offset")
        limit = opt_int(params, "limit")
        if limit is not None and limit < 1:
            raise ToolError(
                f"limit must be at least 1 line, got {limit}. Leave it out to read up to {DEFAULT_MAX_LINES} lines."
            )
        _, data = read_file_bytes(path, cwd)
        check_aborted(signal)
        mime = detect_image_mime(data[:SNIFF_BYTES])
        if mime is not None:
            return ToolResult(
                [TextContent(f"Read image file [{mime}]"), ImageContent(base64.b64encode(data).decode("ascii"), mime)]
            )
        return _read_text(data.decode("utf-8", "replace"), path, offset, limit)

    return AgentTool("read", READ_DESCRIPTION, READ_PARAMETERS, execute, label="read")


def _read_text(text: str, path: str, offset: int | None, limit: int | None) -> ToolResult:
    lines = text.split("\n")
    total = len(lines)
    start = max(0, offset - 1) if offset else 0
    if start >= total:
        raise ToolError(f"Offset {offset} is beyond end of file ({total} lines total)")
    end = min(start + limit, total) if limit is not None else total
    selected = "\n".join(lines[start:end])
    tr = truncate_head(selected)
    first = start + 1
    details: dict[str, Any] | None = None
    if tr.first_line_exceeds_limit:
        size = format_size(len(lines[start].encode("utf-8")))
        out = (
            f"[Line {first} is {size}, exceeds {format_size(DEFAULT_MAX_BYTES)} limit. "
            f"Use bash: sed -n '{first}p' {path} | head -c {DEFAULT_MAX_BYTES}]"
        )
        details = {"truncation": tr.to_json()}
    elif tr.truncated:
        last = first + tr.output_lines - 1
        limit_note = "" if tr.truncated_by == "lines" else f" ({format_size(DEFAULT_MAX_BYTES)} limit)"
        out = (
            f"{tr.content}\n\n[Showing lines {first}-{last} of {total}{limit_note}. Use offset={last + 1} to continue.]"
        )
        details = {"truncation": tr.to_json()}
    elif limit is not None and end < total:
        out = f"{tr.content}\n\n[{total - end} more lines in file. Use offset={end + 1} to continue.]"
    else:
        out = tr.content
    return ToolResult([TextContent(out)], details)
