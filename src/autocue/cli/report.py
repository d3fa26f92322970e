"""``autocue report FILE [--json]``: summarize a recorded session.

Two kinds of recording are recognised by their first line:

* an agent session file (pi v3 JSONL, ``{"type":"session",...}`` first): entries by type, the
  conversation on the current branch (user prompts, replies, tool calls and failures), tool
  use counts and token usage;
* an orchestrator loop recording (``session.jsonl`` lines ``{"ts", "event", "data"}``):
  iterations, hats, topics published, how the loop ended.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any


def _first_line(path: Path) -> dict[str, Any]:
    from autocue.session.file_reader import read_session_bytes

    # a regular file only, opened without blocking: a FIFO or /dev/zero is a SessionFileError at once
    for raw in read_session_bytes(str(path), 1 << 20).split(b"\n"):
        if raw.strip():
            try:
                value = json.loads(raw)
            except ValueError as e:
                raise ValueError(f"{path}:1: not JSON ({e}); expected a session recording") from None
            if not isinstance(value, dict):
                raise ValueError(f"{path}:1: expected a JSON object")
            return value
    raise ValueError(f"{path}: the file is empty")


def agent_session_report(path: Path) -> dict[str, Any]:
    from autocue.llm.types import AssistantMessage, ToolCall, ToolResultMessage, Usage, UserMessage
    from autocue.session.manager import SessionManager

    sm = SessionManager.open(path)
    entries = sm.get_entries()
    by_type = dict(Counter(e.type for e in entries))
    ctx = sm.build_session_context()
    usage = Usage()
    tools: dict[str, dict[str, int]] = {}
    transcript: list[str] = []
    failed_replies = 0
    for m in ctx.messages:
        if isinstance(m, UserMessage):
            transcript.append(f"user: {m.text[:200]}")
        elif isinstance(m, AssistantMessage):
            usage.add(m.usage)
            if m.stop_reason in ("error", "aborted"):
                failed_replies += 1
                transcript.append(f"  model call failed ({m.stop_reason}): {(m.error_message or '')[:200]}")
            for b in m.content:
                if isinstance(b, ToolCall):
                    tools.setdefault(b.name, {"calls": 0, "errors": 0})["calls"] += 1
                    transcript.append(f"  model calls {b.name}({json.dumps(b.arguments, ensure_ascii=False)[:160]})")
            if m.text:
                transcript.append(f"  model: {m.text[:200]}")
        elif isinstance(m, ToolResultMessage):
            mark = "✗" if m.is_error else "✓"
            if m.is_error:
                tools.setdefault(m.tool_name, {"calls": 0, "errors": 0})["errors"] += 1
            transcript.append(f"    {mark} {m.tool_name} → {m.text.strip()[:160]!r}")
        else:
            transcript.append(f"  {getattr(m, 'role', '?')} message")
    header = sm.get_header()
    return {
        "kind": "agent-session",
        "file": str(path),
        "session_id": sm.get_session_id(),
        "cwd": getattr(header, "cwd", None),
        "name": sm.get_session_name(),
        "entries": len(entries),
        "entries_by_type": by_type,
        "context_messages": len(ctx.messages),
        "model": list(ctx.model) if ctx.model else None,
        "thinking_level": ctx.thinking_level,
        "tools": tools,
        "failed_replies": failed_replies,
        "usage": usage.to_json(),
        "warnings": [str(w) for w in getattr(sm, "warnings", [])],
        "transcript": transcript,
    }


def loop_session_report(path: Path) -> dict[str, Any]:
    from autocue.checks.inspect import summary
    from autocue.loop import read_session

    records = read_session(path)
    out: dict[str, Any] = {"kind": "loop-session", "file": str(path), **summary(records)}
    for r in records:
        if r.event == "_meta.termination":
            out["termination"] = r.data
    return out


def _read_problem(path: Path, e: OSError) -> str:
    if isinstance(e, IsADirectoryError):
        return f"{path}: is a directory; give a session file (an agent session .jsonl or a loop session.jsonl)"
    if isinstance(e, FileNotFoundError):
        return f"{path}: no such file"
    return f"{e.filename or path}: cannot read: {e.strerror or e}"


def main(argv: list[str]) -> int:
    from autocue.cli.args import CliParser, fail, one_line
    from autocue.session.errors import SessionError, SessionFileError

    ap = CliParser(prog="autocue report", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file", type=Path, help="a session file (agent JSONL or loop session.jsonl)")
    ap.add_argument("--json", action="store_true", help="print the report as JSON")
    args = ap.parse_args(argv)
    path: Path = args.file
    try:
        first = _first_line(path)
        report = agent_session_report(path) if first.get("type") == "session" else loop_session_report(path)
    except OSError as e:
        return fail("autocue report", _read_problem(path, e), 1)
    except SessionFileError as e:
        return fail("autocue report", e.one_line(), 1)
    except (SessionError, ValueError) as e:
        return fail("autocue report", one_line(str(e)), 1)
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
        return 0
    transcript = report.pop("transcript", None)
    for key, value in report.items():
        if value in (None, [], {}):
            continue
        shown = json.dumps(value, ensure_ascii=False) if isinstance(value, (dict, list)) else value
        print(f"{key:>18}: {shown}")
    if transcript:
        print()
        print("\n".join(transcript))
    return 0
