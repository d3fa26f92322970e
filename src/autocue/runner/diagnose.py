"""What a failed run of a real agent reports besides its failures: what the agent sent that the
scenario did not expect, and what it said.

From the server session's journal: the first divergent request (an error answer, or the last
request when replies were left unplayed) with its declared tools and last message; the scripted
tool names the agent did not declare (the session's warnings); side requests — those the server
recognised (answered without a scripted step) and *suspected* ones: a request that declared no
tools but took a scripted reply while the agent's other requests declare tools (an unknown
title, summary or router request of the CLI consuming a step meant for its turn); and the tail
of the agent's stderr.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

STDERR_LINES = 20


def side_requests(status: dict[str, Any]) -> list[dict[str, Any]]:
    """Each side request of a session: ``{"request", "kind", "last"}``; ``kind`` is ``known`` (answered
    by the server without a scripted step) or ``suspected`` (a tool-less request that took a step)."""
    journal = [e for e in status.get("journal") or [] if isinstance(e, dict)]
    with_tools = any(e.get("tools") for e in journal)
    out = []
    for e in journal:
        last = e.get("last") or {}
        text = " ".join(str(last.get("text") or "").split())[:120]
        if e.get("outcome") == "side-call":
            out.append({"request": e.get("n"), "kind": "known", "last": text})
        elif with_tools and not e.get("tools") and e.get("reply") is not None:
            out.append({"request": e.get("n"), "kind": "suspected", "last": text, "reply": e.get("reply")})
    return out


def diagnose(status: dict[str, Any] | None, stderr_file: Path | None) -> list[str]:
    """Lines a user can act on, for a failed run."""
    lines: list[str] = []
    if status is not None:
        journal = [e for e in status.get("journal") or [] if isinstance(e, dict)]
        bad = next((e for e in journal if int(e.get("status") or 200) >= 400), None)
        if bad is None and status.get("remaining") and journal:
            bad = journal[-1]
        if bad is not None:
            last = bad.get("last") or {}
            tools = bad.get("tools") or []
            lines.append(f"first divergent request: #{bad.get('n')} {bad.get('api')} {bad.get('path')} -> "
                         f"{bad.get('status')} {bad.get('outcome')}; declared tools: "
                         f"{', '.join(tools[:30]) or 'none'}{' ...' if len(tools) > 30 else ''}; last message "
                         f"({last.get('role')}): {' '.join(str(last.get('text') or '').split())[:200]!r}")
        for w in status.get("warnings") or []:
            if "does not declare" in str(w):
                lines.append(f"scripted tool not declared by the agent: {w}")
        for s in side_requests(status):
            if s["kind"] == "suspected":
                lines.append(f"suspected side request: #{s['request']} declared no tools but took scripted reply "
                             f"{s['reply']} (last message: {s['last']!r}); if the CLI sends it on its own, the server "
                             "should answer it as a side call")
        if not journal:
            lines.append("the agent sent no request to the mock LLM server (see its stderr and last screen)")
    if stderr_file is not None:
        try:
            tail = stderr_file.read_text(encoding="utf-8", errors="replace").splitlines()[-STDERR_LINES:]
        except OSError:
            tail = []
        if tail:
            lines.append("agent stderr (last lines):")
            lines.extend("  " + ln for ln in tail)
    return lines
