"""ACP checks: what the runner saw as an agent's ACP client, checked by a timeline ``assert`` or ``expect``.

The ``acp:`` key of an ``assert`` step (checked on the messages so far) or of ``expect`` (on the whole
run)::

    acp:
      toolCalls:                      # each must match one tool call the agent reported
        - {kind: edit, title: hello.txt, status: completed, locations: [hello.txt]}
      toolCallCount: {min: 1}         # or an exact number
      permissions: {count: 1, tools: [hello.txt]}   # requests asked (tools: text in their tool call's title or kind)
      plan: [write the file]          # text in an entry of a plan the agent reported
      stopReasons: [end_turn]         # every prompt's stop reason, in order
      text: {contains: [Done], regex: "hello\\.txt"}   # the text the agent streamed

``title`` and the ``tools`` of ``permissions`` match as case-insensitive substrings; ``kind`` and ``status``
exactly; ``locations`` are paths relative to the workspace (or absolute), each among the call's. A failure
names the ACP message it was judged on (its index in ``acp.jsonl`` and its method).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autocue.runner.errors import AcpSpecError

KEYS = ("toolCalls", "toolCallCount", "permissions", "plan", "stopReasons", "text")
CALL_KEYS = ("kind", "title", "status", "locations")


@dataclass(slots=True)
class ToolCall:
    id: str
    kind: str = ""
    title: str = ""
    status: str = ""
    locations: list[str] = field(default_factory=list)
    index: int = 0
    """The index (in ``acp.jsonl``) of its last message."""

    def describe(self) -> str:
        where = f" at {', '.join(self.locations)}" if self.locations else ""
        return f"#{self.index} {self.title!r} ({self.kind or 'no kind'}, {self.status or 'no status'}{where})"


@dataclass(slots=True)
class Seen:
    """What the client saw, from the log's entries."""

    calls: dict[str, ToolCall] = field(default_factory=dict)
    permissions: list[tuple[int, str]] = field(default_factory=list)
    """(index, the tool call's title and kind) of each ``session/request_permission``."""
    plan: list[str] = field(default_factory=list)
    plan_index: int | None = None
    stops: list[tuple[int, str]] = field(default_factory=list)
    text: str = ""
    text_index: int | None = None
    last: int | None = None


def _rel(path: str, workspace: Path) -> str:
    try:
        return Path(path).resolve().relative_to(workspace.resolve()).as_posix()
    except (ValueError, OSError):
        return path


def seen(entries: list[dict[str, Any]], workspace: Path) -> Seen:
    s = Seen()
    prompts: set[Any] = set()
    for e in entries:
        msg = e.get("msg")
        if not isinstance(msg, dict):
            continue
        s.last = e["i"]
        method, params = msg.get("method"), msg.get("params")
        if e["dir"] == "out" and method == "session/prompt":
            prompts.add(msg.get("id"))
        elif e["dir"] == "in" and "method" not in msg and msg.get("id") in prompts:
            result = msg.get("result")
            reason = result.get("stopReason") if isinstance(result, dict) else None
            s.stops.append((e["i"], str(reason) if reason is not None else f"error {msg.get('error')}"))
        if e["dir"] != "in" or not isinstance(params, dict):
            continue
        if method == "session/request_permission":
            tc: dict[str, Any] = params["toolCall"] if isinstance(params.get("toolCall"), dict) else {}
            call = s.calls.get(str(tc.get("toolCallId")))
            title = str(tc.get("title") or (call.title if call else ""))
            tool_kind = str(tc.get("kind") or (call.kind if call else ""))
            s.permissions.append((e["i"], f"{title} {tool_kind}"))
            continue
        update = params.get("update")
        if method != "session/update" or not isinstance(update, dict):
            continue
        kind = update.get("sessionUpdate")
        if kind in ("tool_call", "tool_call_update"):
            cid = str(update.get("toolCallId"))
            call = s.calls.setdefault(cid, ToolCall(cid))
            call.index = e["i"]
            for key in ("kind", "title", "status"):
                if update.get(key):
                    setattr(call, key, str(update[key]))
            for loc in update.get("locations") or []:
                path = _rel(str(loc["path"]), workspace) if isinstance(loc, dict) and loc.get("path") else None
                if path is not None and path not in call.locations:
                    call.locations.append(path)
        elif kind == "plan":
            s.plan += [c for x in update.get("entries") or [] if isinstance(x, dict)
                       and (c := str(x.get("content", ""))) not in s.plan]
            s.plan_index = e["i"]
        elif kind == "agent_message_chunk":
            content = update.get("content")
            if isinstance(content, dict) and content.get("type") == "text":
                s.text += str(content.get("text", ""))
                s.text_index = e["i"]
    return s


def validate(spec: object) -> dict[str, Any]:
    """``spec`` as a mapping of known keys, else ``AcpSpecError`` naming what is wrong."""
    if not isinstance(spec, dict):
        raise AcpSpecError(f"acp: expected a mapping of checks ({', '.join(KEYS)}), got {type(spec).__name__}")
    for k in spec:
        if k not in KEYS:
            raise AcpSpecError(f"acp: unknown check {k!r} (known: {', '.join(KEYS)})")
    for i, c in enumerate(_list(spec.get("toolCalls"))):
        if not isinstance(c, dict) or not c or any(k not in CALL_KEYS for k in c):
            raise AcpSpecError(f"acp.toolCalls[{i}]: expected a mapping of {', '.join(CALL_KEYS)}, got {c!r}")
    text = spec.get("text")
    if text is not None:
        if not isinstance(text, dict) or any(k not in ("contains", "regex") for k in text):
            raise AcpSpecError(f"acp.text: expected {{contains: [...], regex: ...}}, got {text!r}")
        for rx in _list(text.get("regex")):
            try:
                re.compile(str(rx))
            except re.error as e:
                raise AcpSpecError(f"acp.text.regex {rx!r}: {e}") from None
    return spec


def _list(v: object) -> list[Any]:
    if v is None:
        return []
    return v if isinstance(v, list) else [v]


def _count_ok(want: object, n: int) -> bool:
    if isinstance(want, dict):
        return (want.get("min") is None or n >= int(want["min"])) and (want.get("max") is None or n <= int(want["max"]))
    return n == int(str(want))


@dataclass(slots=True)
class Miss:
    check: str
    expected: object
    actual: object
    index: int | None
    """The ACP message the check was judged on (None: none yet)."""


def check(spec: dict[str, Any], entries: list[dict[str, Any]], workspace: Path) -> list[Miss]:
    """The failed checks of ``spec`` (validated) on the log's ``entries``."""
    s = seen(entries, workspace)
    out: list[Miss] = []
    calls = list(s.calls.values())
    for i, want in enumerate(_list(spec.get("toolCalls"))):
        if not any(_call_matches(want, c) for c in calls):
            out.append(Miss(f"acp.toolCalls[{i}]", want, "; ".join(c.describe() for c in calls) or "no tool call",
                            calls[-1].index if calls else s.last))
    if (want := spec.get("toolCallCount")) is not None and not _count_ok(want, len(calls)):
        out.append(Miss("acp.toolCallCount", want, len(calls), calls[-1].index if calls else s.last))
    if (perm := spec.get("permissions")) is not None:
        perm = perm if isinstance(perm, dict) else {"count": perm}
        last = s.permissions[-1][0] if s.permissions else s.last
        if perm.get("count") is not None and not _count_ok(perm["count"], len(s.permissions)):
            out.append(Miss("acp.permissions.count", perm["count"], len(s.permissions), last))
        for tool in _list(perm.get("tools")):
            if not any(str(tool).lower() in what.lower() for _, what in s.permissions):
                out.append(Miss(f"acp.permissions.tools {tool!r}", tool, [w.strip() for _, w in s.permissions], last))
    for item in _list(spec.get("plan")):
        if not any(str(item).lower() in e.lower() for e in s.plan):
            out.append(Miss(f"acp.plan {item!r}", item, s.plan or "no plan", s.plan_index or s.last))
    if (stops := spec.get("stopReasons")) is not None:
        got = [r for _, r in s.stops]
        if [str(x) for x in _list(stops)] != got:
            out.append(Miss("acp.stopReasons", _list(stops), got, s.stops[-1][0] if s.stops else s.last))
    text = spec.get("text") or {}
    for c in _list(text.get("contains")):
        if str(c) not in s.text:
            out.append(Miss(f"acp.text.contains {c!r}", c, s.text[-300:], s.text_index or s.last))
    for rx in _list(text.get("regex")):
        if re.search(str(rx), s.text) is None:
            out.append(Miss(f"acp.text.regex {rx!r}", rx, s.text[-300:], s.text_index or s.last))
    return out


def _call_matches(want: dict[str, Any], c: ToolCall) -> bool:
    if "kind" in want and str(want["kind"]) != c.kind:
        return False
    if "status" in want and str(want["status"]) != c.status:
        return False
    if "title" in want and str(want["title"]).lower() not in c.title.lower():
        return False
    return all(str(p) in c.locations or any(loc.endswith("/" + str(p)) for loc in c.locations)
               for p in _list(want.get("locations")))


__all__ = ["CALL_KEYS", "KEYS", "Miss", "Seen", "ToolCall", "check", "seen", "validate"]
