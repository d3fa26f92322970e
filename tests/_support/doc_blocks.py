"""Run the code examples of a docs page, so the page stays true (shared by every docs test)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def code_blocks(page: Path, lang: str = "python") -> list[tuple[int, str]]:
    """``(first line number, code)`` of every fenced ``lang`` block of ``page``."""
    text = page.read_text()
    pattern = re.compile(rf"^ *```{re.escape(lang)}\n(.*?)^ *```", re.S | re.M)
    return [(text.count("\n", 0, m.start()) + 2, m.group(1)) for m in pattern.finditer(text)]


def run_block(page: Path | str, line: int, code: str, name: str) -> dict[str, Any]:
    """Execute one block so tracebacks point at the page's own line numbers; returns its namespace."""
    ns: dict[str, Any] = {"__name__": name}
    exec(compile("\n" * (line - 1) + code, str(page), "exec"), ns)
    return ns
