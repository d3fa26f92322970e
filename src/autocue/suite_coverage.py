"""Suite coverage (``--autocue-coverage``): what a test suite or an ``autocue run`` exercised.

One process-wide ``COLLECTOR`` (None unless coverage is on: every reporting site costs one
module-level None check) gathers what the mock LLM server's sessions served and what the agents
declared (``autocue.mockllm.state``), the extension hooks registered and fired, the UI dialogs and
tool profiles of autocue's own runtime, and the timeline events the runner played.

Coverage is on in a process when ``enable(folder)`` ran or the environment variable
``AUTOCUE_COVERAGE_PARTS`` names a folder (``enable`` sets it, so the processes a run starts, such
as pytest-xdist workers or an ``autocue serve``, inherit it): each such process writes its part
(``part-*.json``) into that folder when it ends (``write_part``, also at exit), and the process
that enabled coverage merges the parts with its own (``merge``) into the report.

The report (``summary`` prints it, ``score`` gives the percentage ``--autocue-coverage-fail-under``
checks): **covered = scripted replies served + declared tools called, out of all scripted
replies of the scenarios the suite played + all tools the agents declared**. A reply counts as
served when any session of its scenario was sent it; a declared tool counts as called when any
scripted reply called it (by the name the agent declared, after a tool profile mapped it).

This module imports nothing of autocue (its callers hand it plain names and numbers).
"""

from __future__ import annotations

import atexit
import json
import os
import tempfile
import threading
import uuid
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

ENV = "AUTOCUE_COVERAGE_PARTS"
"""The folder every process of a coverage run writes its part into."""
DEFAULT_PATH = "autocue-coverage.json"
VERSION = 1


class SessionCoverage:
    """What one mock LLM session served: reply indices, the tools its requests declared and the calls sent."""

    __slots__ = ("called", "declared", "lock", "profile", "requests", "scenario", "served", "session", "source",
                 "steps")

    def __init__(self, session: str, scenario: str, source: str | None, steps: list[dict[str, Any]]) -> None:
        self.session = session
        self.scenario = scenario
        self.source = source
        self.steps = steps
        """Each scripted reply: ``{"at": file:line or None, "step": its DSL form}``."""
        self.served: set[int] = set()
        self.declared: dict[str, None] = {}
        self.called: dict[str, None] = {}
        self.profile: str | None = None
        self.requests = 0
        self.lock = threading.Lock()

    def request(self, declared: Iterable[str], taken: int | None, calls: Iterable[str], profile: str | None) -> None:
        """One request answered: the tools it declared, the reply it took (0-based) and the tools that reply called."""
        with self.lock:
            self.requests += 1
            self.declared.update(dict.fromkeys(declared))
            self.called.update(dict.fromkeys(calls))
            if taken is not None:
                self.served.add(taken)
            if profile is not None:
                self.profile = profile

    def to_json(self) -> dict[str, Any]:
        with self.lock:
            return {"session": self.session, "scenario": self.scenario, "source": self.source,
                    "total": len(self.steps), "served": sorted(self.served), "requests": self.requests,
                    "declared_tools": list(self.declared), "called_tools": list(self.called), "profile": self.profile,
                    "steps": self.steps}


class WatchedHooks(dict[str, Any]):
    """An ``ExtensionRunner``'s handlers per event (``{event: [(extension, handler), ...]}``) that tells the
    collector each time a dispatch looks an event up and finds handlers (``get``): those hooks fired."""

    def __init__(self, collector: Collector, by_event: Mapping[str, Any]) -> None:
        super().__init__(by_event)
        self.collector = collector
        for event, handlers in by_event.items():
            for ext, _ in handlers:
                collector.count("hooks_registered", f"{_ext_name(ext)}\t{event}")

    def get(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        found = super().get(key)
        if found is None:
            return default
        for ext, _ in found:
            self.collector.count("hooks_fired", f"{_ext_name(ext)}\t{key}")
        return found


def _ext_name(ext: Any) -> str:
    return str(getattr(ext, "path", None) or "<inline>")


class Collector:
    """Everything one process reports while coverage is on (thread-safe)."""

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = Path(folder)
        self.sessions: list[SessionCoverage] = []
        self.counts: dict[str, dict[str, int]] = {}
        """``hooks_registered``, ``hooks_fired`` (``extension\\tevent``), ``dialogs`` (``kind\\ttitle``),
        ``profiles`` (``name\\twhere``), ``timeline`` (event kind), ``runs`` (``scenarios``)."""
        self.lock = threading.Lock()
        self.written = False

    # ------------------------------------------------------------------ reporting sites
    def session(self, session: str, scenario: str, source: str | None, steps: list[dict[str, Any]]) -> SessionCoverage:
        rec = SessionCoverage(session, scenario, source, steps)
        with self.lock:
            self.sessions.append(rec)
        return rec

    def count(self, table: str, key: str, n: int = 1) -> None:
        with self.lock:
            t = self.counts.setdefault(table, {})
            t[key] = t.get(key, 0) + n

    def hooks(self, by_event: Mapping[str, Any]) -> WatchedHooks:
        return WatchedHooks(self, by_event)

    def dialog(self, kind: str, title: str) -> None:
        self.count("dialogs", f"{kind}\t{title}")

    def profile(self, name: str, where: str) -> None:
        self.count("profiles", f"{name}\t{where}")

    def timeline(self, kinds: Iterable[str]) -> None:
        """One scenario the runner played: the kinds of the timeline events it reached."""
        self.count("runs", "scenarios")
        for k in kinds:
            self.count("timeline", k)

    # ------------------------------------------------------------------ parts
    def to_json(self) -> dict[str, Any]:
        with self.lock:
            sessions = list(self.sessions)
            counts = {k: dict(v) for k, v in self.counts.items()}
        return {"version": VERSION, "sessions": [s.to_json() for s in sessions], "counts": counts}

    def write_part(self) -> Path | None:
        """Write this process's part into the folder (once; None when it was written already or the folder is gone)."""
        if self.written:
            return None
        self.written = True
        data = self.to_json()
        if not data["sessions"] and not data["counts"]:
            return None
        path = self.folder / f"part-{os.getpid()}-{uuid.uuid4().hex[:8]}.json"
        try:
            path.write_text(json.dumps(data), encoding="utf-8")
        except OSError:
            return None
        return path


COLLECTOR: Collector | None = None
"""The process's collector (None: coverage is off; every reporting site checks this first)."""


def _start(folder: str) -> Collector:
    global COLLECTOR
    COLLECTOR = Collector(folder)
    atexit.register(COLLECTOR.write_part)
    return COLLECTOR


def enable(folder: str | os.PathLike[str] | None = None, *, fresh: bool = False) -> Collector:
    """Turn coverage on in this process and the ones it starts from now on; returns the collector (the
    one already on when the environment named a folder, unless ``fresh``: a run that reports on its own,
    such as a pytest controller or ``autocue run`` started inside another coverage run, starts anew).
    ``folder``: where parts go (default: a new temporary folder)."""
    if COLLECTOR is not None:
        if not fresh:
            return COLLECTOR
        disable()
    path = str(folder) if folder is not None else tempfile.mkdtemp(prefix="autocue-coverage-")
    os.environ[ENV] = path
    return _start(path)


def disable() -> None:
    """Turn coverage off in this process (the environment variable goes too); the parts stay."""
    global COLLECTOR
    if COLLECTOR is not None:
        atexit.unregister(COLLECTOR.write_part)
    COLLECTOR = None
    os.environ.pop(ENV, None)


if os.environ.get(ENV):
    _start(os.environ[ENV])


# ---------------------------------------------------------------------------- the report
def merge(parts: Sequence[Mapping[str, Any]], timeline_kinds: Sequence[str] = ()) -> dict[str, Any]:
    """The report of several parts (``Collector.to_json()``): scenarios with the union of their sessions'
    served replies, declared tools with the sessions that called them, hooks, dialogs, profiles, and the
    timeline count of every kind in ``timeline_kinds`` (zero included) once the runner played a scenario."""
    sessions = [s for p in parts for s in p.get("sessions", [])]
    counts: dict[str, dict[str, int]] = {}
    for p in parts:
        for table, t in p.get("counts", {}).items():
            mine = counts.setdefault(table, {})
            for k, n in t.items():
                mine[k] = mine.get(k, 0) + int(n)
    for s in sessions:
        if s["profile"]:
            t = counts.setdefault("profiles", {})
            k = f"{s['profile']}\tmock LLM session"
            t[k] = t.get(k, 0) + 1
    names: dict[str, set[str]] = {}
    for s in sessions:
        names.setdefault(s["source"] or s["scenario"], set()).add(s["scenario"])
    scenarios: dict[str, dict[str, Any]] = {}
    for s in sessions:
        where = s["source"] or s["scenario"]
        key = _shown(where) + (f" ({s['scenario']})" if len(names[where]) > 1 else "")
        sc = scenarios.setdefault(key, {"scenario": s["scenario"], "source": s["source"], "steps": s["steps"],
                                        "served": set(), "sessions": []})
        sc["served"].update(s["served"])
        sc["sessions"].append({"session": s["session"], "served": s["served"], "requests": s["requests"],
                               "profile": s["profile"]})
    out_scenarios = []
    for key, sc in sorted(scenarios.items()):
        steps = [{"n": i + 1, **st, "at": _shown_at(st["at"]), "served": i in sc["served"]}
                 for i, st in enumerate(sc["steps"])]
        out_scenarios.append({"key": key, "scenario": sc["scenario"], "source": sc["source"],
                              "total": len(steps),
                              "served": sum(1 for st in steps if st["served"]),
                              "unserved": [st for st in steps if not st["served"]], "steps": steps,
                              "sessions": sc["sessions"]})
    called = {name for s in sessions for name in s["called_tools"]}
    tools: dict[str, dict[str, Any]] = {}
    for s in sessions:
        for name in s["declared_tools"]:
            t = tools.setdefault(name, {"tool": name, "called": name in called, "declared_by": []})
            where = _shown(s["source"] or s["scenario"])
            if where not in t["declared_by"]:
                t["declared_by"].append(where)
    registered = counts.get("hooks_registered", {})
    fired = counts.get("hooks_fired", {})
    hooks = [{"extension": k.split("\t")[0], "event": k.split("\t")[1], "fired": fired.get(k, 0)}
             for k in sorted(set(registered) | set(fired))]
    report: dict[str, Any] = {
        "version": VERSION,
        "scenarios": out_scenarios,
        "tools": sorted(tools.values(), key=lambda t: (t["called"], t["tool"])),
        "hooks": hooks,
        "dialogs": [{"kind": k.split("\t")[0], "title": k.split("\t")[1], "count": n}
                    for k, n in sorted(counts.get("dialogs", {}).items())],
        "profiles": [{"profile": k.split("\t")[0], "where": k.split("\t")[1], "count": n}
                     for k, n in sorted(counts.get("profiles", {}).items())],
    }
    runs = counts.get("runs", {}).get("scenarios", 0)
    if runs:
        seen = counts.get("timeline", {})
        kinds = list(dict.fromkeys([*timeline_kinds, *sorted(seen)]))
        report["timeline"] = {"scenarios": runs, "kinds": {k: seen.get(k, 0) for k in kinds}}
    report["score"] = score(report)
    return report


def _shown(path: str) -> str:
    """A scenario file relative to the working directory when it is inside it (as written otherwise)."""
    try:
        return Path(path).resolve().relative_to(Path.cwd()).as_posix()
    except (ValueError, OSError):
        return path


def _shown_at(at: str | None) -> str | None:
    """``file:line`` with the file as ``_shown`` gives it."""
    if not at or ":" not in at:
        return at
    file, line = at.rsplit(":", 1)
    return f"{_shown(file)}:{line}"


def score(report: Mapping[str, Any]) -> dict[str, Any]:
    """``percent`` = (replies served + declared tools called) / (scripted replies + declared tools) × 100
    (100 when the suite played no scenario and declared no tool)."""
    replies = sum(s["total"] for s in report["scenarios"])
    served = sum(s["served"] for s in report["scenarios"])
    tools = len(report["tools"])
    called = sum(1 for t in report["tools"] if t["called"])
    total = replies + tools
    percent = 100.0 if total == 0 else round(100.0 * (served + called) / total, 2)
    return {"replies": replies, "replies_served": served, "tools": tools, "tools_called": called,
            "percent": percent}


def collect(timeline_kinds: Sequence[str] = ()) -> dict[str, Any]:
    """The report of this process's collector and every part in its folder (the process that enabled
    coverage calls it once the others have ended)."""
    if COLLECTOR is None:
        return merge([], timeline_kinds)
    parts = [COLLECTOR.to_json()]
    for path in sorted(COLLECTOR.folder.glob("part-*.json")):
        try:
            parts.append(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            continue
    return merge(parts, timeline_kinds)


def write_report(report: Mapping[str, Any], path: str | os.PathLike[str]) -> Path:
    out = Path(path)
    if out.parent != Path():
        out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return out


def summary(report: Mapping[str, Any]) -> list[str]:
    """The readable summary: the score, then each section with what was not exercised first."""
    sc = report["score"]
    lines = [f"autocue coverage: {sc['percent']:g}% ({sc['replies_served']}/{sc['replies']} scripted replies served, "
             f"{sc['tools_called']}/{sc['tools']} declared tools called)"]
    if report["scenarios"]:
        lines.append("scenarios (replies served / scripted):")
    for s in report["scenarios"]:
        lines.append(f"  {s['key']}: {s['served']}/{s['total']} served by {len(s['sessions'])} session(s)")
        for st in s["unserved"]:
            lines.append(f"    not served: reply {st['n']}{' at ' + st['at'] if st['at'] else ''}: {st['step']}")
    if report["tools"]:
        lines.append("declared tools:")
    for t in report["tools"]:
        state = "called" if t["called"] else "NEVER CALLED by any scenario"
        lines.append(f"  {t['tool']}: {state} (declared in {', '.join(t['declared_by'])})")
    if report["hooks"]:
        lines.append("extension hooks (fired times):")
    for h in report["hooks"]:
        lines.append(f"  {h['event']} of {h['extension']}: {h['fired'] or 'NEVER FIRED'}")
    if report["dialogs"]:
        lines.append("UI dialogs requested: " + ", ".join(f"{d['kind']} {d['title']!r} ×{d['count']}"
                                                        for d in report["dialogs"]))
    if report["profiles"]:
        lines.append("tool profiles used: " + ", ".join(f"{p['profile']} ({p['where']}) ×{p['count']}"
                                                       for p in report["profiles"]))
    tl = report.get("timeline")
    if tl is not None:
        lines.append(f"timeline events by kind ({tl['scenarios']} scenario run(s)): "
                     + ", ".join(f"{k} {n}" for k, n in tl["kinds"].items()))
    return lines


def fails_under(report: Mapping[str, Any], minimum: float | None) -> str | None:
    """The failure line when the score is below ``minimum`` percent (None: it is not, or no minimum)."""
    if minimum is None:
        return None
    percent = float(report["score"]["percent"])
    if percent + 1e-9 >= minimum:
        return None
    return f"autocue coverage {percent:g}% is under --autocue-coverage-fail-under={minimum:g}"
