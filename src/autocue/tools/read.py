"""The ``read`` tool: a text file by lines, or an image as image content.

Arguments ``{path, offset?, limit?}``. ``offset`` is the 1-based first line, ``limit`` the
number of lines. Output is cut at 2000 lines or 50 KB, with a notice that says which lines
were shown and which ``offset`` continues. PNG, JPEG, GIF and WebP files (detected by their
bytes) come back as ``Read image file [mime]`` plus an ``ImageContent``; an image over
``MAX_IMAGE_BYTES`` (5 MB) comes back as a note saying so, with nothing attached.

Only regular files are read: a FIFO, device, socket or directory is a tool error, found
without blocking. Text is streamed (``linescan.scan_lines``): memory stays near the 50 KB the
output can show, whatever the file's size, while the notice still gives its total line count.

Public: ``create_read_tool(cwd)``, ``open_regular_file(path, cwd)``, ``MAX_IMAGE_BYTES``.
"""

from __future__ import annotations

import asyncio
import base64
import os
import stat
from pathlib import Path
from typing import Any, BinaryIO

from autocue.agent.tool import AgentTool, OnUpdate, ToolResult
from autocue.llm.abort import AbortSignal
from autocue.llm.types import ImageContent, TextContent
from autocue.tools.common import ToolError, check_aborted, opt_int
from autocue.tools.images import SNIFF_BYTES, detect_image_mime
from autocue.tools.linescan import LineScan, scan_lines
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


MAX_IMAGE_BYTES = 5 * 1024 * 1024
"""The largest image attached whole (the common provider limit for one inline image)."""

_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _not_regular(abs_path: Path, mode: int) -> ToolError:
    if stat.S_ISDIR(mode):
        return ToolError(
            f"EISDIR: illegal operation on a directory, read '{abs_path}'. "
            "Use ls to list a directory or find to search it."
        )
    kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    return ToolError(
        f"'{abs_path}' is {kind}, not a regular file: read only reads regular files. "
        "Use bash (for example head -c) if you really mean to read from it."
    )


def open_regular_file(path: str, cwd: StrPath) -> tuple[Path, BinaryIO, int]:
    """Open ``path`` for reading if it is a regular file: ``(absolute path, file, size)``.

    A FIFO, device, socket or directory gives a ``ToolError`` without blocking: the path is
    checked with ``stat`` first and opened with ``O_NONBLOCK`` (a FIFO swapped in between is
    caught by ``fstat`` before anything is read). Errors are pi-style and name the absolute path.
    """
    abs_path = resolve_to_cwd(path, cwd)
    try:
        st = os.stat(abs_path)
        if not stat.S_ISREG(st.st_mode):
            raise _not_regular(abs_path, st.st_mode)
        fd = os.open(abs_path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise ToolError(f"ENOENT: no such file or directory, access '{abs_path}'") from None
    except PermissionError:
        raise ToolError(f"EACCES: permission denied, open '{abs_path}'") from None
    except NotADirectoryError:
        raise ToolError(f"ENOTDIR: not a directory, access '{abs_path}'") from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise _not_regular(abs_path, st.st_mode)
    os.set_blocking(fd, True)
    return abs_path, os.fdopen(fd, "rb"), st.st_size


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
        return await asyncio.to_thread(_read, path, cwd, offset, limit, signal)

    return AgentTool("read", READ_DESCRIPTION, READ_PARAMETERS, execute, label="read")


def _read(path: str, cwd: StrPath, offset: int | None, limit: int | None, signal: AbortSignal) -> ToolResult:
    _, f, size = open_regular_file(path, cwd)
    with f:
        head = f.read(SNIFF_BYTES)
        mime = detect_image_mime(head)
        if mime is not None:
            return _read_image(f, head, size, mime)
        f.seek(0)
        start = max(0, offset - 1) if offset else 0
        stop = start + limit if limit is not None else None
        # what the output limit can show, and one byte more to know that it was cut
        scan = scan_lines(f, start, stop, DEFAULT_MAX_BYTES + 1, lambda: check_aborted(signal))
    if start >= scan.total_lines:
        raise ToolError(f"Offset {offset} is beyond end of file ({scan.total_lines} lines total)")
    return _text_result(scan, path, start, limit)


def _read_image(f: BinaryIO, head: bytes, size: int, mime: str) -> ToolResult:
    if size > MAX_IMAGE_BYTES:
        note = (
            f"Read image file [{mime}]\n[Image omitted: the file is {format_size(size)}, over the "
            f"{format_size(MAX_IMAGE_BYTES)} limit for an attached image. Make a smaller copy (for example "
            "with bash) and read that.]"
        )
        return ToolResult([TextContent(note)], {"imageOmitted": True, "size": size, "maxImageBytes": MAX_IMAGE_BYTES})
    data = head + f.read(MAX_IMAGE_BYTES + 1 - len(head))
    if len(data) > MAX_IMAGE_BYTES:  # grew since stat
        return _read_image(f, head, len(data), mime)
    image = ImageContent(base64.b64encode(data).decode("ascii"), mime)
    return ToolResult([TextContent(f"Read image file [{mime}]"), image])


def _text_result(scan: LineScan, path: str, start: int, limit: int | None) -> ToolResult:
    total = scan.total_lines
    end = start + scan.selected_lines
    tr = truncate_head(scan.kept.decode("utf-8", "replace"))
    if scan.cut:  # only the head of the selection was read: report its real size
        tr.truncated = True
        tr.truncated_by = tr.truncated_by or "bytes"
        tr.total_lines = scan.selected_lines
        tr.total_bytes = scan.selected_bytes
    first = start + 1
    details: dict[str, Any] | None = None
    if tr.first_line_exceeds_limit:
        size = format_size(scan.first_line_bytes)
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
