"""The result of a listing tool (``find``, ``ls``, ``grep``): lines cut at the byte limit, notices appended.

pi's form: the kept lines, then one bracketed line of notices (``[a. b]``) in a fixed order (the
tool's own limit, the byte cut, then anything tool-specific), each also recorded in ``details``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeAlias

from autocue.agent.tool import ToolResult
from autocue.tools.truncate import DEFAULT_MAX_BYTES, NO_LINE_LIMIT, format_size, truncate_head

Notice: TypeAlias = tuple[str, str, Any]
"""``(text for the model, details key, details value)``."""


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
