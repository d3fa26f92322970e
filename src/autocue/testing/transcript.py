"""A readable transcript of a test run: turns, replies, tool calls, results, blocks and UI calls.

Shown by the pytest plugin when a test fails, and available as ``t.transcript()``.
"""

from __future__ import annotations

import json
from typing import Any

from autocue.llm.types import AssistantMessage, TextContent, ThinkingContent, ToolCall, ToolResultMessage, UserMessage

_MAX = 2000
"""Characters of one text (a reply, a tool result, ...) shown before ``... (+N chars)``."""


def _clip(text: str, limit: int = _MAX) -> str:
    """``text`` as written (real newlines: ``render_transcript`` indents its later lines), cut past ``limit``."""
    return text if len(text) <= limit else text[:limit] + f"... (+{len(text) - limit} chars)"


def _indented(entry: str) -> list[str]:
    """An entry's lines: the ones after the first go 4 columns right of it, under their label."""
    first, *rest = entry.split("\n")
    pad = " " * (len(first) - len(first.lstrip(" ")) + 4)
    return [first, *(pad + line if line else "" for line in rest)]


def _json(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, default=repr)
    except (TypeError, ValueError):
        return repr(value)


def render_transcript(events: list[Any]) -> str:
    """Render events (``t.events.all``) as indented text lines."""
    lines: list[str] = []
    turn = 0
    for ev in events:
        t = getattr(ev, "type", None)
        if t == "message_end":
            m = ev.message
            if isinstance(m, UserMessage):
                turn += 1
                lines.append(f"turn {turn} ▸ user: {_clip(m.text)}")
            elif isinstance(m, AssistantMessage):
                for b in m.content:
                    if isinstance(b, ThinkingContent):
                        lines.append(f"  model thinks: {_clip(b.thinking)}")
                    elif isinstance(b, TextContent):
                        lines.append(f"  model says: {_clip(b.text)}")
                    elif isinstance(b, ToolCall):
                        lines.append(f"  model calls {b.name}({_clip(_json(b.arguments))})  [{b.id}]")
                if m.stop_reason in ("error", "aborted"):
                    lines.append(f"  model call failed ({m.stop_reason}): {_clip(m.error_message or '')}")
            elif isinstance(m, ToolResultMessage):
                continue  # shown from tool_execution_end, which knows about blocks
            else:
                role = getattr(m, "role", type(m).__name__)
                body = m.to_json() if hasattr(m, "to_json") else m
                lines.append(f"  {role} message: {_clip(_json(body))}")
        elif t == "tool_execution_end":
            text = "\n".join(b.text for b in getattr(ev.result, "content", []) if isinstance(b, TextContent))
            if getattr(ev, "blocked", False):
                lines.append(f"    ✗ {ev.tool_name} BLOCKED: {_clip(text)}")
            elif ev.is_error:
                lines.append(f"    ✗ {ev.tool_name} error: {_clip(text)}")
            else:
                lines.append(f"    ✓ {ev.tool_name} → {_clip(text)}")
        elif t == "ui_call":
            lines.append(f"    ui.{ev.method}({_clip(_json(ev.args))}) → {_clip(repr(ev.return_value))}")
        elif t == "harness_warning":
            lines.append(f"  ! {ev.message}")
        elif t in ("auto_retry_start", "auto_compaction_start", "extension_error"):
            lines.append(f"  · {t}: {_clip(_json(getattr(ev, 'to_json', lambda: {})()))}")
    return "\n".join(x for entry in lines for x in _indented(entry))


__all__ = ["render_transcript"]
