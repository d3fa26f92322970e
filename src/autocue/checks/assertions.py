"""``test_assert``: evaluate every assertion (never short-circuit) against the last run.

Public surface: ``evaluate(ws, assertions) -> {passed, results, failed_count}``,
``ASSERTION_TYPES``.

The seed's twelve types: ``exit_code{expected}``, ``termination_reason{expected}``,
``iterations{min?,max?,exact?}``, ``file_exists{path}``, ``file_contains{path,pattern}``,
``file_not_contains{path,pattern}``, ``event_occurred{topic,payload_pattern?}``,
``event_sequence{topics[]}`` (in-order subsequence), ``event_count{topic,min?,max?,exact?}``,
``scratchpad_contains{pattern}``, ``no_event{topic}``, ``duration{max_secs}``. Also
``hat_sequence{hats[]}`` (exact), ``hat_transition{from,to}``, ``iteration_count{hat,min?,max?,exact?}``,
``stdout_contains{pattern}``, ``stderr_contains{pattern}``.

Patterns are regexes (``re.search``, multiline); topics are topic globs. Each result is
``{assertion, passed, expected?, actual?, ...}`` with a ``message`` when it failed; a bad
assertion (unknown type, missing parameter, invalid regex, path outside the workspace, a
missing file) is a failed result with a message, not an exception.
"""

from __future__ import annotations

import itertools
import re
import stat
from collections.abc import Callable
from typing import Any

from autocue.checks.errors import TestToolError
from autocue.checks.inspect import load_records
from autocue.checks.workspace import Workspace
from autocue.errors import AutocueError
from autocue.loop.paths import SCRATCHPAD
from autocue.loop.safe_files import UnsafeFileError, describe, lstat_in, read_regular
from autocue.loop.session_file import Record
from autocue.loop.termination import TerminationReason
from autocue.loop.topics import topic_matches


class _Fail(AutocueError):
    def __init__(self, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.extra = extra


class _Ctx:
    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self._records: list[Record] | None = None
        self._run: dict[str, Any] | None = None

    def run(self) -> dict[str, Any]:
        if self._run is None:
            self._run = self.ws.read_state("last_run")
            if self._run is None:
                self._run = self._from_session()
        return self._run

    def _from_session(self) -> dict[str, Any]:
        try:
            recs = self.records()
        except _Fail:
            raise _Fail(f"workspace {self.ws.id!r} has no test_run result yet: call test_run first") from None
        term = next((r for r in reversed(recs) if r.event == "_meta.termination"), None)
        if term is None:
            raise _Fail("no test_run result and the session has no _meta.termination record")
        out: dict[str, Any] = {"termination_reason": term.data.get("reason"),
                               "iterations": term.data.get("iterations"),
                               "elapsed_secs": term.data.get("elapsed_secs")}
        try:
            out["exit_code"] = TerminationReason.parse(str(out["termination_reason"])).exit_code
        except ValueError:
            out["exit_code"] = None
        return out

    def records(self) -> list[Record]:
        if self._records is None:
            try:
                self._records = load_records(self.ws)
            except TestToolError as e:
                raise _Fail(e.message) from None
        return self._records

    def publishes(self) -> list[Record]:
        return [r for r in self.records() if r.event == "bus.publish"]

    def hats(self) -> list[str]:
        return [str(r.data.get("hat")) for r in self.records() if r.event == "_meta.iteration"]


def _need(a: dict[str, Any], key: str, kind: type | tuple[type, ...]) -> Any:
    if key not in a:
        raise _Fail(f"missing parameter '{key}'")
    v = a[key]
    if isinstance(v, bool) and kind in (int, (int, float)):
        raise _Fail(f"parameter '{key}' must be a number, got {v!r}")
    if not isinstance(v, kind):
        raise _Fail(f"parameter '{key}' has the wrong type: {v!r}")
    return v


def _rx(pattern: Any, key: str = "pattern") -> re.Pattern[str]:
    if not isinstance(pattern, str):
        raise _Fail(f"missing or non-string parameter '{key}'")
    try:
        return re.compile(pattern, re.M)
    except re.error as e:
        raise _Fail(f"{key} {pattern!r} is not a valid regex: {e}") from None


def _bounds(a: dict[str, Any], actual: int) -> dict[str, Any]:
    exp: dict[str, int] = {}
    for k in ("exact", "min", "max"):
        if a.get(k) is not None:
            v = a[k]
            if isinstance(v, bool) or not isinstance(v, int):
                raise _Fail(f"parameter '{k}' must be an integer, got {v!r}")
            exp[k] = v
    if not exp:
        raise _Fail("give at least one of 'exact', 'min', 'max'")
    said = " and ".join(f"{_BOUND_WORDS[k]} {v}" for k, v in exp.items())
    return _result(all(_BOUND_TESTS[k](actual, v) for k, v in exp.items()), f"expected {said}, got {actual}",
                   expected=exp, actual=actual)


_BOUND_TESTS: dict[str, Callable[[int, int], bool]] = {
    "exact": lambda actual, v: actual == v, "min": lambda actual, v: actual >= v, "max": lambda actual, v: actual <= v,
}
_BOUND_WORDS = {"exact": "exactly", "min": "at least", "max": "at most"}


def _result(ok: bool, failure: str, **fields: Any) -> dict[str, Any]:
    """An assertion's result: ``passed``, ``fields``, and the ``failure`` message when it did not pass."""
    return {"passed": ok, **fields} if ok else {"passed": ok, **fields, "message": failure}


def _eq(expected: Any, actual: Any, what: str) -> dict[str, Any]:
    return _result(expected == actual, f"{what}: expected {expected!r}, got {actual!r}", expected=expected,
                   actual=actual)


def _exit_code(c: _Ctx, a: dict[str, Any]) -> dict[str, Any]:
    return _eq(_need(a, "expected", int), c.run().get("exit_code"), "exit code")


def _termination(c: _Ctx, a: dict[str, Any]) -> dict[str, Any]:
    expected = _need(a, "expected", str)
    actual = c.run().get("termination_reason")
    try:
        norm = TerminationReason.parse(expected).value
    except ValueError as e:
        raise _Fail(str(e)) from None
    res = _eq(norm, actual, "termination reason")
    res["expected"] = expected
    return res


def _iterations(c: _Ctx, a: dict[str, Any]) -> dict[str, Any]:
    actual = c.run().get("iterations")
    if not isinstance(actual, int):
        raise _Fail("the last run has no iteration count")
    return _bounds(a, actual)


def _duration(c: _Ctx, a: dict[str, Any]) -> dict[str, Any]:
    limit = _need(a, "max_secs", (int, float))
    actual = c.run().get("elapsed_secs")
    if not isinstance(actual, (int, float)):
        raise _Fail("the last run has no elapsed time")
    return _result(actual <= limit, f"the run took {actual}s, more than max_secs={limit}",
                   expected={"max_secs": limit}, actual=actual)


def _resolve(c: _Ctx, path: Any) -> str:
    """``path`` relative to the (resolved) workspace, or ``_Fail``."""
    if not isinstance(path, str):
        raise _Fail("missing or non-string parameter 'path'")
    try:
        p = c.ws.resolve(path)
    except TestToolError as e:
        raise _Fail(e.message, path=path) from None
    rel = p.relative_to(c.ws.path.resolve()).as_posix()
    if rel == ".":
        raise _Fail(f"{path!r} is the workspace itself, not a file", path=path)
    return rel


def _read_rel(c: _Ctx, rel: str, shown: str, **extra: Any) -> str:
    """The text of a regular, singly linked file (never a link, FIFO or hard link: see safe_files)."""
    try:
        raw = read_regular(c.ws.path.resolve(), rel)
    except UnsafeFileError as e:
        raise _Fail(f"{shown} not read: {e}", **extra) from None
    except (FileNotFoundError, NotADirectoryError):
        raise _Fail(f"{shown} does not exist in workspace {c.ws.id!r}", **extra) from None
    return raw.decode("utf-8", errors="replace")


def _read(c: _Ctx, path: Any) -> str:
    return _read_rel(c, _resolve(c, path), f"file {path!r}", path=path)


def _file_exists(c: _Ctx, a: dict[str, Any]) -> dict[str, Any]:
    path = a.get("path")
    try:
        st = lstat_in(c.ws.path.resolve(), _resolve(c, path))
    except (UnsafeFileError, NotADirectoryError):
        st = None
    if st is None or not stat.S_ISREG(st.st_mode):
        raise _Fail(f"file {path!r} does not exist in workspace {c.ws.id!r}"
                    + (f" (it is {describe(st)})" if st is not None else ""), path=path)
    return {"passed": True, "path": path}


def _file_contains(c: _Ctx, a: dict[str, Any], negate: bool = False) -> dict[str, Any]:
    rx = _rx(a.get("pattern"))
    text = _read(c, a.get("path"))
    m = rx.search(text)
    failure = (f"file {a['path']!r} contains {a['pattern']!r} (at {m.group(0)!r})" if negate and m is not None
               else f"file {a['path']!r} does not contain {a['pattern']!r}")
    return _result((m is None) if negate else (m is not None), failure, path=a["path"], pattern=a["pattern"])


def _scratchpad(c: _Ctx, a: dict[str, Any]) -> dict[str, Any]:
    rx = _rx(a.get("pattern"))
    text = _read_rel(c, SCRATCHPAD, f"the scratchpad {SCRATCHPAD}")
    ok = rx.search(text) is not None
    res: dict[str, Any] = {"passed": ok, "pattern": a["pattern"]}
    if not ok:
        res["message"] = f"the scratchpad does not contain {a['pattern']!r}"
        res["actual"] = text[:500]
    return res


def _matching(c: _Ctx, topic: str, payload_rx: re.Pattern[str] | None = None) -> list[Record]:
    return [
        r for r in c.publishes()
        if isinstance(r.topic, str) and topic_matches(topic, r.topic)
        and (payload_rx is None or payload_rx.search(r.payload_text) is not None)
    ]


def _topics(c: _Ctx) -> list[str]:
    return [str(r.topic) for r in c.publishes()]


def _event_occurred(c: _Ctx, a: dict[str, Any]) -> dict[str, Any]:
    topic = _need(a, "topic", str)
    prx = _rx(a["payload_pattern"], "payload_pattern") if a.get("payload_pattern") is not None else None
    hits = _matching(c, topic, prx)
    what = f"event {topic!r}" + (f" with payload matching {a['payload_pattern']!r}" if prx else "")
    return _result(bool(hits), f"{what} was not published; published topics: {_topics(c)}", topic=topic,
                   actual=len(hits))


def _event_sequence(c: _Ctx, a: dict[str, Any]) -> dict[str, Any]:
    wanted = _need(a, "topics", list)
    if not all(isinstance(t, str) for t in wanted):
        raise _Fail("parameter 'topics' must be a list of strings")
    actual = _topics(c)
    i = 0
    for t in actual:
        if i < len(wanted) and topic_matches(wanted[i], t):
            i += 1
    ok = i == len(wanted)
    failure = "" if ok else (f"matched {i} of {len(wanted)} topics in order; {wanted[i]!r} was not published "
                             f"after {wanted[i - 1]!r}" if i else f"{wanted[0]!r} was never published")
    return _result(ok, failure, expected=wanted, actual=actual)


def _event_count(c: _Ctx, a: dict[str, Any]) -> dict[str, Any]:
    topic = _need(a, "topic", str)
    res = _bounds(a, len(_matching(c, topic)))
    res["topic"] = topic
    if not res["passed"]:
        res["message"] = f"event {topic!r}: {res['message']}"
    return res


def _no_event(c: _Ctx, a: dict[str, Any]) -> dict[str, Any]:
    topic = _need(a, "topic", str)
    hits = _matching(c, topic)
    first = hits[0].payload_text[:80] if hits else ""
    return _result(not hits, f"event {topic!r} was published {len(hits)} time(s) (first payload: {first!r})",
                   topic=topic, actual=len(hits))


def _hat_sequence(c: _Ctx, a: dict[str, Any]) -> dict[str, Any]:
    return _eq(_need(a, "hats", list), c.hats(), "hat sequence")


def _hat_transition(c: _Ctx, a: dict[str, Any]) -> dict[str, Any]:
    frm, to = _need(a, "from", str), _need(a, "to", str)
    hats = c.hats()
    pairs = list(itertools.pairwise(hats))
    shown = [f"{x} → {y}" for x, y in pairs]
    return _result((frm, to) in pairs, f"no transition {frm} → {to}; transitions: {shown}", expected=f"{frm} → {to}",
                   actual=shown)


def _iteration_count(c: _Ctx, a: dict[str, Any]) -> dict[str, Any]:
    hat = _need(a, "hat", str)
    res = _bounds(a, c.hats().count(hat))
    res["hat"] = hat
    return res


def _output(c: _Ctx, a: dict[str, Any], key: str) -> dict[str, Any]:
    rx = _rx(a.get("pattern"))
    text = c.run().get(f"{key}_full", c.run().get(key)) or ""
    return _result(rx.search(text) is not None, f"{key} does not contain {a['pattern']!r}", pattern=a["pattern"])


ASSERTION_TYPES: dict[str, Callable[[_Ctx, dict[str, Any]], dict[str, Any]]] = {
    "exit_code": _exit_code,
    "termination_reason": _termination,
    "iterations": _iterations,
    "file_exists": _file_exists,
    "file_contains": _file_contains,
    "file_not_contains": lambda c, a: _file_contains(c, a, negate=True),
    "event_occurred": _event_occurred,
    "event_sequence": _event_sequence,
    "event_count": _event_count,
    "scratchpad_contains": _scratchpad,
    "no_event": _no_event,
    "duration": _duration,
    "hat_sequence": _hat_sequence,
    "hat_transition": _hat_transition,
    "iteration_count": _iteration_count,
    "stdout_contains": lambda c, a: _output(c, a, "stdout"),
    "stderr_contains": lambda c, a: _output(c, a, "stderr"),
}


def evaluate(ws: Workspace, assertions: Any) -> dict[str, Any]:
    if not isinstance(assertions, list):
        got = type(assertions).__name__
        raise TestToolError("invalid_argument", f"assertions must be a list of objects, got {got}")
    ctx = _Ctx(ws)
    results: list[dict[str, Any]] = []
    for i, a in enumerate(assertions):
        kind = a.get("type") if isinstance(a, dict) else None
        head: dict[str, Any] = {"assertion": kind if isinstance(kind, str) else None}
        fn = ASSERTION_TYPES.get(kind) if isinstance(kind, str) else None
        if fn is None or not isinstance(a, dict):
            results.append({**head, "passed": False, "index": i, "message": (
                f"assertion {i}: unknown type {kind!r}; known: {', '.join(ASSERTION_TYPES)}"
                if isinstance(a, dict) else f"assertion {i} must be an object with a 'type'")})
            continue
        try:
            res = fn(ctx, a)
        except _Fail as e:
            res = {"passed": False, **e.extra, "message": f"assertion {i} ({kind}): {e}"}
        except Exception as e:  # an assertion must never stop the others
            res = {"passed": False, "message": f"assertion {i} ({kind}): {type(e).__name__}: {e}"}
        results.append({**head, **res})
    failed = sum(1 for r in results if not r["passed"])
    return {"passed": failed == 0, "results": results, "failed_count": failed}


__all__ = ["ASSERTION_TYPES", "evaluate"]
