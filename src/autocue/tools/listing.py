"""The result of a listing tool (``find``, ``ls``, ``grep``): lines cut at the byte limit, notices appended.
``listing_dir`` is the directory and entry limit ``find`` and ``ls`` take.

pi's form: the kept lines, then one bracketed line of notices (``[a. b]``) in a fixed order (the
tool's own limit, the byte cut, then anything tool-specific), each also recorded in ``details``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeAlias

from autocue.agent.tool import ToolResult
from autocue.tools.common import ToolError, opt_int
from autocue.tools.paths import StrPath, resolve_to_cwd
from autocue.tools.truncate import DEFAULT_MAX_BYTES, NO_LINE_LIMIT, format_size, truncate_head

Notice: TypeAlias = tuple[str, str, Any]
"""``(text for the model, details key, details value)``."""


def listing_dir(params: dict[str, Any], cwd: StrPath, default_limit: int, not_dir_hint: str) -> tuple[Path, int]:
    """The directory ``params["path"]`` names (default ``.``) and the ``limit`` (at least 1), or a
    ``ToolError`` when it is missing or not a directory (``not_dir_hint`` says what to do instead)."""
    root = resolve_to_cwd(params.get("path") or ".", cwd)
    limit = max(1, opt_int(params, "limit") or default_limit)
    if not root.exists():
        raise ToolError(f"Path not found: {root}")
    if not root.is_dir():
        raise ToolError(f"Not a directory: {root}. {not_dir_hint}")
    return root, limit


def listing_result(lines: Sequence[str], limit: Notice | None = None, after: Notice | None = None) -> ToolResult:
    """``lines`` joined and cut at ``DEFAULT_MAX_BYTES``, with the notices that apply."""
    tr = truncate_head("\n".join(lines), max_lines=NO_LINE_LIMIT)
    found: list[Notice] = [limit] if limit is not None else []
    if tr.truncated:
        found.append((f"{format_size(DEFAULT_MAX_BYTES)} limit reached", "truncation", tr.to_json()))
    if after is not None:
        found.append(after)
    text = tr.content
    if found:
        text += f"\n\n[{'. '.join(n[0] for n in found)}]"
    return ToolResult.text(text, {key: value for _, key, value in found} or None)
