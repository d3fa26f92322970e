"""Shared helpers for the built-in tool tests: run a tool directly, make real image files."""

from __future__ import annotations

import os
import struct
import zlib
from pathlib import Path
from typing import Any

from autocue.agent import AgentTool, ToolResult
from autocue.llm.abort import AbortController, AbortSignal
from autocue.tools import TOOL_FACTORIES


def make(name: str, cwd: Path, **kw: Any) -> AgentTool:
    factory: Any = TOOL_FACTORIES[name]
    return factory(cwd, **kw) if kw else factory(cwd)  # type: ignore[no-any-return]


async def run(
    tool: AgentTool,
    signal: AbortSignal | None = None,
    updates: list[ToolResult] | None = None,
    **params: Any,
) -> ToolResult:
    """Validate and execute like the agent does; raises what the tool raises."""
    args = tool.validate(params)
    sig = signal if signal is not None else AbortController().signal
    return await tool.execute("call-1", args, sig, (updates.append if updates is not None else lambda r: None))


def png_bytes(width: int = 2, height: int = 2) -> bytes:
    """A real, valid RGB PNG."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    raw = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def gif_bytes() -> bytes:
    return (
        b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00"
        b",\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;"
    )


def jpeg_bytes() -> bytes:
    return b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00" + b"\x00" * 32 + b"\xff\xd9"


def webp_bytes() -> bytes:
    body = b"WEBPVP8L" + struct.pack("<I", 10) + b"\x2f\x00\x00\x00\x00\x00\x00\x00\x00\x00"
    return b"RIFF" + struct.pack("<I", len(body)) + body


def pid_alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return state not in ("Z", "X")
