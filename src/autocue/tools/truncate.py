"""Output truncation shared by the built-in tools.

Two independent limits, whichever is hit first: ``DEFAULT_MAX_LINES`` (2000 lines) and
``DEFAULT_MAX_BYTES`` (50 KB of UTF-8). ``truncate_head`` keeps the beginning (file reads,
search results), ``truncate_tail`` keeps the end (command output). Neither returns a partial
line, except ``truncate_tail`` when the last line alone is over the byte limit.

Public: ``DEFAULT_MAX_LINES``, ``DEFAULT_MAX_BYTES``, ``GREP_MAX_LINE_LENGTH``,
``TruncationResult``, ``truncate_head``, ``truncate_tail``, ``truncate_line``, ``format_size``.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, fields
from typing import Any, Literal

from autocue.casing import to_camel

DEFAULT_MAX_LINES = 2000
DEFAULT_MAX_BYTES = 50 * 1024
GREP_MAX_LINE_LENGTH = 500
NO_LINE_LIMIT = sys.maxsize


@dataclass(slots=True)
class TruncationResult:
    """What was kept. ``to_json`` gives pi's camelCase form (without the content itself)."""

    content: str
    truncated: bool
    truncated_by: Literal["lines", "bytes"] | None
    total_lines: int
    total_bytes: int
    output_lines: int
    output_bytes: int
    last_line_partial: bool
    first_line_exceeds_limit: bool
    max_lines: int
    max_bytes: int

    def to_json(self) -> dict[str, Any]:
        d = {to_camel(f.name): getattr(self, f.name) for f in fields(self) if f.name != "content"}
        if self.max_lines == NO_LINE_LIMIT:
            d["maxLines"] = None
        return d


def format_size(n: int) -> str:
    """``512B``, ``50.0KB``, ``1.5MB``."""
    if n < 1024:
        return f"{n}B"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f}KB"
    return f"{n / (1024 * 1024):.1f}MB"


def _blen(s: str) -> int:
    return len(s.encode("utf-8", "surrogatepass")) if not s.isascii() else len(s)


def _untouched(content: str, lines: int, nbytes: int, max_lines: int, max_bytes: int) -> TruncationResult:
    return TruncationResult(content, False, None, lines, nbytes, lines, nbytes, False, False, max_lines, max_bytes)


def truncate_head(
    content: str, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> TruncationResult:
    """Keep whole lines from the start. If the first line alone is over ``max_bytes`` the
    content is empty and ``first_line_exceeds_limit`` is set."""
    total_bytes = _blen(content)
    lines = content.split("\n")
    total_lines = len(lines)
    if total_lines <= max_lines and total_bytes <= max_bytes:
        return _untouched(content, total_lines, total_bytes, max_lines, max_bytes)
    if _blen(lines[0]) > max_bytes:
        return TruncationResult("", True, "bytes", total_lines, total_bytes, 0, 0, False, True, max_lines, max_bytes)
    kept = 0
    used = 0
    by: Literal["lines", "bytes"] = "lines"
    for i, line in enumerate(lines):
        if i >= max_lines:
            break
        cost = _blen(line) + (1 if i > 0 else 0)
        if used + cost > max_bytes:
            by = "bytes"
            break
        used += cost
        kept += 1
    out = "\n".join(lines[:kept])
    return TruncationResult(
        out, True, by, total_lines, total_bytes, kept, _blen(out), False, False, max_lines, max_bytes
    )


def truncate_tail(
    content: str, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> TruncationResult:
    """Keep whole lines from the end. If the last line alone is over ``max_bytes`` its end is
    kept (``last_line_partial``)."""
    total_bytes = _blen(content)
    lines = content.split("\n")
    total_lines = len(lines)
    if total_lines <= max_lines and total_bytes <= max_bytes:
        return _untouched(content, total_lines, total_bytes, max_lines, max_bytes)
    out_rev: list[str] = []
    used = 0
    by: Literal["lines", "bytes"] = "lines"
    partial = False
    for line in reversed(lines):
        if len(out_rev) >= max_lines:
            break
        cost = _blen(line) + (1 if out_rev else 0)
        if used + cost > max_bytes:
            by = "bytes"
            if not out_rev:
                out_rev.append(_tail_bytes(line, max_bytes))
                partial = True
            break
        out_rev.append(line)
        used += cost
    out_rev.reverse()
    out = "\n".join(out_rev)
    return TruncationResult(
        out, True, by, total_lines, total_bytes, len(out_rev), _blen(out), partial, False, max_lines, max_bytes
    )


def _tail_bytes(s: str, max_bytes: int) -> str:
    b = s.encode("utf-8", "surrogatepass")
    start = len(b) - max_bytes
    while start < len(b) and (b[start] & 0xC0) == 0x80:  # do not start inside a UTF-8 sequence
        start += 1
    return b[start:].decode("utf-8", "replace")


def truncate_line(line: str, max_chars: int = GREP_MAX_LINE_LENGTH) -> tuple[str, bool]:
    """Cut one line to ``max_chars`` characters with a ``... [truncated]`` suffix."""
    if len(line) <= max_chars:
        return line, False
    return f"{line[:max_chars]}... [truncated]", True
