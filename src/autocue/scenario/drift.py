"""Structural differences between two recordings of one conversation, classified.

``diff_scripts(a, b)`` pairs the two scripts' turns and replies in order and lists each
difference with its class:

- **benign**: what changes between two runs of the same model on the same input without
  changing what the agent does: ids (tool call ids, ``_meta.responseId``), timing (the
  ``[ms, text]`` delays), usage, the model name in ``_meta``, an error's wording;
- **regression**: what the agent would see differently: a turn's prompt, the text or
  thinking of a reply, its tool calls (names, arguments, count), their order or the order of
  a reply's blocks, a stop reason, an error instead of a reply (or another status), a reply
  more or fewer.

A report is ``identical`` (no difference at all), ``benign`` or ``regression``; ``steps``
classifies each reply the same way, which ``autocue record --check`` prints per step.
``diff_scenarios`` does the same for two loaded scenarios, reading each reply's ``_meta``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from autocue.llm.types import TextContent, ThinkingContent
from autocue.scenario.model import LlmResponse, Scenario
from autocue.script.model import Script, ScriptedResponse, ScriptedToolCall, Step

Severity = Literal["benign", "regression"]
Verdict = Literal["identical", "benign", "regression"]


@dataclass(slots=True)
class Difference:
    reply: int | None
    """1-based reply number in the whole script (None: about a turn, not a reply)."""
    turn: int
    step: int | None
    kind: str
    severity: Severity
    a: Any
    b: Any

    @property
    def where(self) -> str:
        if self.reply is None:
            return f"turn {self.turn}"
        return f"reply {self.reply} (turn {self.turn}, step {self.step})"

    def change(self) -> str:
        return f"{_show(self.a)} → {_show(self.b)}"

    def describe(self) -> str:
        return f"{self.where}: {self.severity}: {self.kind}: {self.change()}"

    def to_json(self) -> dict[str, Any]:
        return {"reply": self.reply, "turn": self.turn, "step": self.step, "kind": self.kind,
                "class": self.severity, "a": self.a, "b": self.b}


@dataclass(slots=True)
class StepVerdict:
    reply: int
    turn: int
    step: int
    verdict: Verdict
    a: str
    b: str

    def to_json(self) -> dict[str, Any]:
        return {"reply": self.reply, "turn": self.turn, "step": self.step, "class": self.verdict,
                "a": self.a, "b": self.b}


@dataclass(slots=True)
class DriftReport:
    differences: list[Difference] = field(default_factory=list)
    steps: list[StepVerdict] = field(default_factory=list)

    @property
    def verdict(self) -> Verdict:
        return _worst(d.severity for d in self.differences)

    @property
    def regressions(self) -> list[Difference]:
        return [d for d in self.differences if d.severity == "regression"]

    def to_json(self) -> dict[str, Any]:
        return {"class": self.verdict, "regressions": len(self.regressions),
                "benign": len(self.differences) - len(self.regressions),
                "differences": [d.to_json() for d in self.differences],
                "steps": [s.to_json() for s in self.steps]}


def _worst(severities: Any) -> Verdict:
    out: Verdict = "identical"
    for s in severities:
        if s == "regression":
            return "regression"
        out = "benign"
    return out


def _show(v: Any) -> str:
    s = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, default=str)
    return s if len(s) <= 120 else s[:117] + "..."


def _describe(step: Step | None) -> str:
    if step is None:
        return "(none)"
    if isinstance(step, ScriptedResponse):
        return step.describe()
    return f"<factory {getattr(step, '__name__', type(step).__name__)}>"


def _blocks(r: ScriptedResponse) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for b in r.content:
        if isinstance(b, ScriptedToolCall):
            out.append(("call", [b.name, b.resolve()]))
        elif isinstance(b, ThinkingContent):
            out.append(("thinking", b.thinking))
        elif isinstance(b, TextContent):
            out.append(("text", b.text))
    return out


def _usage(r: ScriptedResponse) -> dict[str, int] | None:
    u = r.usage
    if u is None:
        return None
    return {"input": u.input, "output": u.output, "cacheRead": u.cache_read, "cacheWrite": u.cache_write}


def _compare_replies(a: ScriptedResponse, b: ScriptedResponse, add: Any,
                     meta_a: dict[str, Any] | None, meta_b: dict[str, Any] | None) -> None:
    ea, eb = a.error, b.error
    if ea is not None or eb is not None:
        if ea is None or eb is None:
            add("error", "regression", _describe(a), _describe(b))
        elif ea.http_status() != eb.http_status() or ea.kind != eb.kind:
            add("error", "regression", ea.http_status(), eb.http_status())
        elif ea.message != eb.message:
            add("error message", "benign", ea.message, eb.message)
        return
    ba, bb = _blocks(a), _blocks(b)
    calls_a = [p for k, p in ba if k == "call"]
    calls_b = [p for k, p in bb if k == "call"]
    if calls_a != calls_b:
        key = lambda c: json.dumps(c, sort_keys=True, default=str)  # noqa: E731
        if sorted(map(key, calls_a)) == sorted(map(key, calls_b)):
            add("order", "regression", [c[0] for c in calls_a], [c[0] for c in calls_b])
        else:
            add("tool calls", "regression", calls_a, calls_b)
    for kind in ("text", "thinking"):
        ta = "".join(p for k, p in ba if k == kind)
        tb = "".join(p for k, p in bb if k == kind)
        if ta != tb:
            add(kind, "regression", ta, tb)
    if ba != bb and [k for k, _ in ba] != [k for k, _ in bb] and sorted(map(str, ba)) == sorted(map(str, bb)):
        add("order", "regression", [k for k, _ in ba], [k for k, _ in bb])
    if a.effective_stop_reason() != b.effective_stop_reason():
        add("stop reason", "regression", a.effective_stop_reason(), b.effective_stop_reason())
    ids_a = [c.id for c in a.tool_calls]
    ids_b = [c.id for c in b.tool_calls]
    if ids_a != ids_b:
        add("ids", "benign", ids_a, ids_b)
    if (a.chunk_delays_ms or []) != (b.chunk_delays_ms or []):
        add("timing", "benign", a.chunk_delays_ms or [], b.chunk_delays_ms or [])
    if a.usage is not None and b.usage is not None and _usage(a) != _usage(b):  # None: not recorded
        add("usage", "benign", _usage(a), _usage(b))
    if meta_a is None or meta_b is None:
        return  # one side has no _meta (a live reply): nothing to compare
    ma, mb = meta_a, meta_b
    if ma.get("responseId") != mb.get("responseId"):
        add("ids", "benign", ma.get("responseId"), mb.get("responseId"))
    if ma.get("model") != mb.get("model"):
        add("model", "benign", ma.get("model"), mb.get("model"))


def diff_scripts(a: Script, b: Script, *, metas_a: list[dict[str, Any] | None] | None = None,
                 metas_b: list[dict[str, Any] | None] | None = None) -> DriftReport:
    """The classified differences between ``a`` and ``b`` (``metas_*``: each reply's ``_meta``, in order)."""
    report = DriftReport()
    reply = 0
    for t in range(max(len(a.turns), len(b.turns))):
        ta = a.turns[t] if t < len(a.turns) else None
        tb = b.turns[t] if t < len(b.turns) else None
        pa = ta.prompt if ta is not None else None
        pb = tb.prompt if tb is not None else None
        if pa != pb:
            report.differences.append(Difference(None, t + 1, None, "prompt", "regression", pa, pb))
        sa = ta.steps if ta is not None else []
        sb = tb.steps if tb is not None else []
        for k in range(max(len(sa), len(sb))):
            reply += 1
            first = len(report.differences)
            xa = sa[k] if k < len(sa) else None
            xb = sb[k] if k < len(sb) else None

            def add(kind: str, severity: Severity, va: Any, vb: Any, t: int = t, k: int = k, n: int = reply) -> None:
                report.differences.append(Difference(n, t + 1, k + 1, kind, severity, va, vb))

            if xa is None or xb is None:
                add("missing reply" if xb is None else "extra reply", "regression", _describe(xa), _describe(xb))
            elif isinstance(xa, ScriptedResponse) and isinstance(xb, ScriptedResponse):
                ma = metas_a[reply - 1] if metas_a is not None and reply - 1 < len(metas_a) else None
                mb = metas_b[reply - 1] if metas_b is not None and reply - 1 < len(metas_b) else None
                _compare_replies(xa, xb, add, ma, mb)
            elif xa is not xb:
                add("factory", "regression", _describe(xa), _describe(xb))
            verdict = _worst(d.severity for d in report.differences[first:])
            report.steps.append(StepVerdict(reply, t + 1, k + 1, verdict, _describe(xa), _describe(xb)))
    return report


def reply_metas(sc: Scenario) -> list[dict[str, Any] | None] | None:
    """Each reply's ``_meta`` in order when every reply is one ``llmResponse`` group (as recorded), else None."""
    groups = [ev for ev in sc.timeline if isinstance(ev, LlmResponse)]
    if not all(g.grouped for g in groups):
        return None
    return [g.meta for g in groups]


def diff_scenarios(a: Scenario, b: Scenario) -> DriftReport:
    """``diff_scripts`` of two loaded scenarios, with their ``_meta``."""
    return diff_scripts(a.compile(), b.compile(), metas_a=reply_metas(a), metas_b=reply_metas(b))
