"""Small pieces every built-in tool uses: ``ToolError``, abort checks, argument coercion.

``ToolError`` is what the tools raise for a failure the model caused (missing file, no match,
non-zero exit); the agent turns it into an error tool result carrying the message.
"""

from __future__ import annotations

from typing import Any

from autocue.llm.abort import AbortSignal
from autocue.tools.errors import ToolError as ToolError

ABORTED = "Operation aborted"


def check_aborted(signal: AbortSignal | None) -> None:
    if signal is not None and signal.aborted:
        raise ToolError(ABORTED)


def opt_int(params: dict[str, Any], key: str) -> int | None:
    """An optional numeric argument as an int (JSON Schema ``number`` may arrive as 3.0)."""
    v = params.get(key)
    if v is None:
        return None
    return int(v)
