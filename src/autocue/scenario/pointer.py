"""RFC 6901 JSON pointers, shared by ``assert`` steps (``json.file``) and ``expectRequest``
(``pointer``)."""

from __future__ import annotations

from typing import Any

MISSING: Any = object()
"""What ``resolve_pointer`` returns for a path the document does not have."""


def resolve_pointer(doc: Any, pointer: str) -> Any:
    """Resolve an RFC 6901 JSON pointer (``""`` is the whole document); a missing path gives ``MISSING``."""
    if pointer in ("", "/"):
        return doc
    cur = doc
    for raw in pointer.lstrip("/").split("/"):
        tok = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(cur, dict):
            if tok not in cur:
                return MISSING
            cur = cur[tok]
        elif isinstance(cur, list):
            if not tok.isdigit() or int(tok) >= len(cur):
                return MISSING
            cur = cur[int(tok)]
        else:
            return MISSING
    return cur
