"""A test's failure when the mock LLM could not answer: the first such request in one line (the
server's own message: it names the scenario, the step and what was expected), then the journal
of its session with that request marked, what the scenario expected there and what came.

A request the scenario could not answer is an error answer the scenario did not script: the
scenario is exhausted, an ``expectRequest`` or check failed, no scenario matched, or the path
is no endpoint (``404``) or the body no valid request of its API (``400``). Scripted errors and
chaos are what the test asked for and do not count.
"""

from __future__ import annotations

from typing import Any, Protocol

from autocue.testing.mock_llm.driver import Exchanged


class Journaled(Protocol):
    """What the report reads of a ``MockLLM``."""

    exchanges: list[Exchanged]

    @property
    def scenario(self) -> str: ...

    def sessions(self) -> list[dict[str, Any]]: ...

    def requests(self, sid: str = "default") -> list[dict[str, Any]]: ...

WANTED = ("scripted", "chaos")
"""``x-autocue-error`` reasons of error answers the scenario asked for."""
ANSWERED = ("reply", "side-call", *WANTED)
"""Journal outcomes of requests the scenario answered as written."""
PREFIX = "autocue mock LLM: "


def failure_report(llm: Journaled) -> str | None:
    """The report, or None when every request was answered as the scenario says."""
    for s in llm.sessions():
        if s["errors"]:
            return _session_report(llm, s)
    bad = next((e for e in llm.exchanges if e.status >= 400 and e.reason not in WANTED), None)
    if bad is None:
        return None
    lines = [f"{bad.method} {bad.path} got {bad.status} from the mock LLM (scenario {llm.scenario}): "
             f"{_strip(bad.message or 'no message')}",
             "requests (✗ marks the first one it could not answer):"]
    for n, e in enumerate(llm.exchanges, 1):
        mark = "✗" if e is bad else " "
        lines.append(f"  {mark} {n} {e.method} {e.path} → {e.status}{' ' + e.reason if e.reason else ''}")
    return "\n".join(lines)


def _session_report(llm: Journaled, s: dict[str, Any]) -> str:
    journal = llm.requests(s["session"])
    bad = next((r for r in journal if r["outcome"] not in ANSWERED), None)
    lines = [_strip(s["errors"][0]),
             f"journal of session {s['session']!r} (scenario {s['scenario']!r}, {s['consumed']} of {s['total']} "
             "replies played; ✗ marks the first request it could not answer):"]
    if s["journal_dropped"]:
        lines.append(f"    ... {s['journal_dropped']} older requests not kept")
    for r in journal:
        mark = "✗" if r is bad else "✓" if r["outcome"] in ANSWERED else " "
        got = f"reply {r['reply']}" if r["reply"] is not None and r["outcome"] == "reply" else r["outcome"]
        lines.append(f"  {mark} {r['n']} {r['path']}{' (stream)' if r['stream'] else ''} → {r['status']} {got} · "
                     f"last: {_last(r)}")
        if r is bad:
            expected = s["next"] if s["remaining"] else f"no more requests (all {s['total']} replies were played)"
            lines.append(f"      expected: {expected}")
            tools = ", ".join(r["tools"]) or "none"
            n = r["messages"]
            lines.append(f"      got:      {n} message{'' if n == 1 else 's'}, the last {_last(r, 300)}; "
                         f"tools: {tools}")
    return "\n".join(lines)


def _last(r: dict[str, Any], size: int = 80) -> str:
    last = r.get("last") or {}
    role = last.get("role") or "?"
    text = " ".join(str(last.get("text") or "").split())
    return f"{role}: {text[:size]!r}" + ("..." if len(text) > size else "")


def _strip(message: str) -> str:
    return message[len(PREFIX):] if message.startswith(PREFIX) else message
