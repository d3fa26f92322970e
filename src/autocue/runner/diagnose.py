"""What a failed run of a real agent reports besides its failures: what the agent sent that the
scenario did not expect, and what it said.

From the server session's journal: the first divergent request (an error answer, or the last
request when replies were left unplayed) with its declared tools and last message; the scripted
tool names the agent did not declare (the session's warnings); side requests — those the server
recognised (answered without a scripted step) and *suspected* ones: a request that declared no
tools but took a scripted reply while the agent's other requests declare tools (an unknown
title, summary or router request of the CLI consuming a step meant for its turn); and the tail
of the agent's stderr.

From the agent's own session logs (a profile's ``session_logs``: Codex's rollout JSONL, Claude
Code's transcript JSONL): the
tool calls it reports failed (``tool_failures``). A call the agent could not run at all — its
sandbox failed (``bwrap: ...``) — is ``unrunnable``: the executor fails the run on it (kind
``tool_result``), since the run then tested the machine, not the agent; other failed calls (a
command that exits non-zero) are diagnostics, as a scenario checks results with ``assert`` and
``expectRequest``.
"""

from __future__ import annotations

import glob
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

STDERR_LINES = 20
_EXIT = re.compile(r"^Process exited with code (-?\d+)\s*$", re.M)
_SANDBOX_SIGNS = ("codex-linux-sandbox", "bubblewrap is unavailable")


@dataclass(frozen=True, slots=True)
class ToolFailure:
    """A tool call the agent logged as failed."""

    tool: str
    call: str
    """What was called: the command, or the arguments (one line, shortened)."""
    output: str
    """The failure's text (its output, or the error)."""
    exit_code: int | None = None

    @property
    def unrunnable(self) -> bool:
        """The agent could not run the call: its sandbox failed before the command started (bubblewrap's
        own ``bwrap: ...`` error, Codex's sandbox helper missing, no bubblewrap)."""
        return any(ln.startswith("bwrap: ") or any(sign in ln for sign in _SANDBOX_SIGNS)
                   for ln in self.output.splitlines())

    def describe(self) -> str:
        code = f"exit {self.exit_code}: " if self.exit_code is not None else ""
        return f"{self.tool} `{self.call}`: {code}{_one_line(self.output, 300)}"


def _one_line(text: str, limit: int) -> str:
    flat = " | ".join(ln.strip() for ln in text.strip().splitlines() if ln.strip())
    return flat if len(flat) <= limit else flat[:limit - 3] + "..."


def tool_failures(pattern: str | None) -> list[ToolFailure]:
    """The failed tool calls logged in the session logs matching ``pattern`` (a glob, ``**`` allowed), oldest
    file first; lines that are not a known record are skipped."""
    if not pattern:
        return []
    out: list[ToolFailure] = []
    texts = []
    for name in glob.glob(pattern, recursive=True):
        try:
            texts.append((Path(name).stat().st_mtime, name, Path(name).read_text(encoding="utf-8", errors="replace")))
        except OSError:
            continue
    for _, _, text in sorted(texts):
        records = []
        for line in text.splitlines():
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if isinstance(rec, dict):
                records.append(rec)
        out.extend(_codex_failures(records))
        out.extend(_claude_failures(records))
    return out


def _claude_failures(records: list[dict[str, Any]]) -> list[ToolFailure]:
    """Claude Code transcript JSONL (``~/.claude/projects/*/SESSION.jsonl``): a ``tool_use`` block of an
    assistant message and the ``tool_result`` block with ``is_error: true`` that answers it."""
    calls: dict[str, tuple[str, str]] = {}
    out: list[ToolFailure] = []
    for rec in records:
        msg = rec.get("message")
        content = msg.get("content") if isinstance(msg, dict) else None
        for b in content if isinstance(content, list) else ():
            if not isinstance(b, dict):
                continue
            if b.get("type") == "tool_use":
                calls[str(b.get("id"))] = (str(b.get("name") or "tool"), _call_text({"arguments": b.get("input")}))
            elif b.get("type") == "tool_result" and b.get("is_error") is True:
                c = b.get("content")
                if isinstance(c, list):
                    c = "\n".join(str(x.get("text") or "") for x in c if isinstance(x, dict))
                text = re.sub(r"</?tool_use_error>", "", str(c or ""))
                tool, call = calls.get(str(b.get("tool_use_id")), ("tool", str(b.get("tool_use_id"))))
                out.append(ToolFailure(tool, call, text))
    return out


def _codex_failures(records: list[dict[str, Any]]) -> list[ToolFailure]:
    """Codex rollout JSONL: ``response_item`` records of a ``function_call`` / ``custom_tool_call`` and its
    ``*_output`` (``Process exited with code N`` and the ``Output:``, or a JSON object with
    ``metadata.exit_code``)."""
    calls: dict[str, tuple[str, str]] = {}
    out: list[ToolFailure] = []
    for rec in records:
        p = rec.get("payload") if rec.get("type") == "response_item" else None
        if not isinstance(p, dict):
            continue
        kind, call_id = p.get("type"), str(p.get("call_id") or "")
        if kind in ("function_call", "custom_tool_call", "local_shell_call"):
            calls[call_id] = (str(p.get("name") or kind), _call_text(p))
        elif kind in ("function_call_output", "custom_tool_call_output"):
            failed = _failed_output(p.get("output"))
            if failed is not None:
                tool, call = calls.get(call_id, ("tool", call_id))
                out.append(ToolFailure(tool, call, failed[1], failed[0]))
    return out


def _call_text(p: dict[str, Any]) -> str:
    raw = p.get("arguments") if "arguments" in p else p.get("input")
    args: Any = raw
    if isinstance(raw, str):
        try:
            args = json.loads(raw)
        except ValueError:
            args = raw
    if isinstance(args, dict):
        cmd = args.get("cmd") or args.get("command") or args.get("file_path")
        args = " ".join(map(str, cmd)) if isinstance(cmd, list) else cmd if cmd else json.dumps(args)
    text = str(args or "").strip().replace("\n", "\\n")
    return text if len(text) <= 160 else text[:157] + "..."


def _failed_output(output: Any) -> tuple[int | None, str] | None:
    """``(exit code, text)`` of a failed call's output, None when it succeeded."""
    if isinstance(output, dict):  # {"content": ..., "success": false} (older Codex)
        if output.get("success") is False:
            return None, str(output.get("content") or "")
        output = output.get("content")
    text = str(output or "")
    try:
        obj = json.loads(text)
    except ValueError:
        obj = None
    if isinstance(obj, dict) and isinstance(obj.get("metadata"), dict):
        code = obj["metadata"].get("exit_code")
        return (int(code), str(obj.get("output") or "")) if isinstance(code, int) and code != 0 else None
    m = _EXIT.search(text)
    if m is None or int(m.group(1)) == 0:
        return None
    _, _, rest = text.partition("\nOutput:\n")
    return int(m.group(1)), rest or text


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


def diagnose(status: dict[str, Any] | None, stderr_file: Path | None, failed_calls: Sequence[ToolFailure] = (),
             agent: str = "the agent") -> list[str]:
    """Lines a user can act on, for a failed run."""
    lines = [f"{agent} reported a failed tool call: {f.describe()}" for f in failed_calls]
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
