"""``test_inspect``: filter and summarize a recorded session.

Public surface: ``load_records(ws)``, ``iteration_of(records)``, ``inspect_records(records,
filter, limit, format)``, ``FILTER_KEYS``, ``FORMATS``.

Iteration numbers: ``_meta.iteration`` marks the *end* of iteration ``n``, so a record belongs
to iteration ``k + 1`` when ``k`` markers precede it (the marker itself to its ``n``).
``after_iteration: k`` keeps iterations > k, ``before_iteration: k`` keeps iterations < k.
``topics`` are topic globs (``build.*``) and keep only records with a topic; ``event_types``
are event types (``bus.publish``, ``_meta.*``); ``payload_pattern`` is a regex searched in the
payload (an object payload is searched as compact JSON).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from autocue.checks.errors import TestToolError
from autocue.checks.workspace import SESSION_FILE, Workspace
from autocue.globs import tree_glob
from autocue.loop.session_file import Record, SessionParseError, parse_session
from autocue.loop.topics import topic_matches

FILTER_KEYS = ("event_types", "topics", "after_iteration", "before_iteration", "payload_pattern")
FORMATS = ("json", "summary", "timeline")


def load_records(ws: Workspace) -> list[Record]:
    try:
        return parse_session(ws.read_file(SESSION_FILE), str(ws.session_file))
    except FileNotFoundError:
        raise TestToolError(
            "no_session",
            f"workspace {ws.id!r} has no session.jsonl yet: call test_run first",
            session_file=str(ws.session_file),
        ) from None
    except SessionParseError as e:
        raise TestToolError("session_parse_error", str(e), line=e.line, session_file=e.path) from None


def iteration_of(records: Sequence[Record]) -> list[int]:
    out: list[int] = []
    seen = 0
    for r in records:
        if r.event == "_meta.iteration":
            n = r.data.get("n")
            seen = n if isinstance(n, int) else seen + 1
            out.append(seen)
        else:
            out.append(seen + 1)
    return out


def _regex(pattern: Any, what: str) -> re.Pattern[str]:
    if not isinstance(pattern, str):
        raise TestToolError("invalid_argument", f"{what} must be a string regex, got {pattern!r}")
    try:
        return re.compile(pattern)
    except re.error as e:
        raise TestToolError("invalid_argument", f"{what} {pattern!r} is not a valid regex: {e}") from None


def _str_list(v: Any, what: str) -> list[str]:
    if isinstance(v, str):
        return [v]
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise TestToolError("invalid_argument", f"filter.{what} must be a list of strings, got {v!r}")
    return v


def _int(v: Any, what: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise TestToolError("invalid_argument", f"filter.{what} must be an integer, got {v!r}")
    return v


def filter_records(records: Sequence[Record], flt: dict[str, Any] | None) -> tuple[list[Record], list[int]]:
    """The matching records and their iteration numbers."""
    its = iteration_of(records)
    if not flt:
        return list(records), its
    if not isinstance(flt, dict):
        raise TestToolError("invalid_argument", f"filter must be an object, got {type(flt).__name__}")
    unknown = sorted(set(flt) - set(FILTER_KEYS))
    if unknown:
        raise TestToolError(
            "invalid_argument", f"unknown filter key(s) {', '.join(unknown)}; known: {', '.join(FILTER_KEYS)}"
        )
    types = _str_list(flt["event_types"], "event_types") if flt.get("event_types") is not None else None
    type_rx = [tree_glob(t) for t in types] if types else None
    topics = _str_list(flt["topics"], "topics") if flt.get("topics") is not None else None
    after = _int(flt["after_iteration"], "after_iteration") if flt.get("after_iteration") is not None else None
    before = _int(flt["before_iteration"], "before_iteration") if flt.get("before_iteration") is not None else None
    payload_rx = _regex(flt["payload_pattern"], "filter.payload_pattern") if flt.get("payload_pattern") else None
    out: list[Record] = []
    out_its: list[int] = []
    for r, it in zip(records, its, strict=True):
        if after is not None and it <= after:
            continue
        if before is not None and it >= before:
            continue
        if type_rx is not None and not any(rx.match(r.event) for rx in type_rx):
            continue
        if topics is not None:
            t = r.data.get("topic")
            if not isinstance(t, str) or not any(topic_matches(p, t) for p in topics):
                continue
        if payload_rx is not None and ("payload" not in r.data or payload_rx.search(r.payload_text) is None):
            continue
        out.append(r)
        out_its.append(it)
    return out, out_its


def summary(records: Sequence[Record]) -> dict[str, Any]:
    by_type: dict[str, int] = {}
    by_topic: dict[str, int] = {}
    hats: dict[str, None] = {}
    iterations = 0
    term: Record | None = None
    for r in records:
        ev = r.event
        by_type[ev] = by_type.get(ev, 0) + 1
        if ev == "bus.publish":
            t = r.data.get("topic")
            if isinstance(t, str):
                by_topic[t] = by_topic.get(t, 0) + 1
        elif ev == "_meta.iteration":
            n = r.data.get("n")
            if isinstance(n, int) and n > iterations:
                iterations = n
            h = r.data.get("hat")
            if isinstance(h, str):
                hats[h] = None
        elif ev == "_meta.termination":
            term = r
    duration: float = 0.0
    if term is not None and isinstance(term.data.get("elapsed_secs"), (int, float)):
        duration = float(term.data["elapsed_secs"])
        if not iterations and isinstance(term.data.get("iterations"), int):
            iterations = term.data["iterations"]
    else:
        stamps = [r.ts for r in (records[0], records[-1]) if r.ts is not None] if records else []
        if len(stamps) == 2:
            duration = (stamps[1] - stamps[0]) / 1000
    return {
        "total_events": len(records),
        "by_type": by_type,
        "by_topic": by_topic,
        "iterations": iterations,
        "hats_used": list(hats),
        "duration_secs": round(duration, 3),
    }


def timeline(records: Sequence[Record], its: Sequence[int], topics: list[str] | None = None) -> dict[str, Any]:
    groups: dict[int, list[Record]] = {}
    markers: dict[int, Record] = {}
    for r, it in zip(records, its, strict=True):
        if r.event == "_meta.iteration":
            markers[it] = r
        elif r.event == "bus.publish":
            groups.setdefault(it, []).append(r)
    out: list[dict[str, Any]] = []
    prev_elapsed = 0
    for n in sorted(markers):
        m = markers[n].data
        hat = m.get("hat") if isinstance(m.get("hat"), str) else None
        elapsed = m.get("elapsed_ms") if isinstance(m.get("elapsed_ms"), int) else None
        duration = m.get("duration_ms")
        if not isinstance(duration, int):
            duration = (elapsed - prev_elapsed) if elapsed is not None else None
        if elapsed is not None:
            prev_elapsed = elapsed
        trigger = m.get("trigger") if isinstance(m.get("trigger"), str) else None
        pubs = groups.get(n, [])
        produced = [
            t for r in pubs if isinstance(t := r.data.get("topic"), str) and t != trigger
            and (r.source is None or r.source == hat) and (not topics or any(topic_matches(p, t) for p in topics))
        ]
        if trigger:
            events = [f"{trigger} → {t}" for t in produced] or [f"{trigger} → (none)"]
        else:
            events = [str(t) for t in produced]
        out.append({"iteration": n, "hat": hat, "events": events, "duration_ms": duration})
    return {"timeline": out}


def inspect_records(
    records: Sequence[Record], flt: dict[str, Any] | None = None, limit: int = 100, fmt: str = "json"
) -> dict[str, Any]:
    if fmt not in FORMATS:
        raise TestToolError("invalid_argument", f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise TestToolError("invalid_argument", f"limit must be a non-negative integer, got {limit!r}")
    if fmt == "timeline":
        iters_only = {k: v for k, v in (flt or {}).items() if k in ("after_iteration", "before_iteration")}
        matched, its = filter_records(records, iters_only)
        if flt:
            filter_records([], flt)  # validate the other keys
        topics = (flt or {}).get("topics")
        return timeline(matched, its, _str_list(topics, "topics") if topics is not None else None)
    matched, _ = filter_records(records, flt)
    if fmt == "summary":
        return summary(matched)
    return {
        "records": [r.to_json() for r in matched[:limit]],
        "total_matched": len(matched),
        "truncated": len(matched) > limit,
    }


__all__ = ["FILTER_KEYS", "FORMATS", "filter_records", "inspect_records", "iteration_of", "load_records",
           "summary", "timeline"]
