"""Everything autocue records, read into one ``ViewDoc``: session events (the simulation schema) plus a summary.

- ``session_file_doc(path)``: a pi-compatible session file (``SessionManager``): every entry,
  on which branch of the tree it sits, labels, compactions, thinking, tool calls with their
  results and diffs, usage and cost;
- ``loop_doc(path)``: an orchestrator loop recording (``autocue.loop.read_session``):
  iterations, hats, bus events, terminal output;
- ``run_dir_doc(path)``: the ``--out`` folder of ``autocue run``: its ``report.json`` and, per
  scenario, its timeline and transcript, each screenshot's golden (next to the scenario) and
  ``.actual`` screen (in its ``out_dir``), and the ``*.cast`` recordings in its ``out_dir``
  (relative paths are read from where the run started, the report's ``cwd``, then the run directory);
- ``live_doc(url)``: a session of ``autocue simulate``: the page follows its event stream.

``load_doc(path_or_url)`` picks the reader. Bad input raises ``ViewSourceError`` naming the
file (and line) and what to do.

The viewer reads only what it was given (docs/security.md): the input must be a regular file
(checked before it is opened, opened with ``O_NONBLOCK``) or a run directory; in a run
directory every file (``report.json``, screens, casts) is a regular file inside it, reached
without following a symbolic link, of at most ``FILE_CAP`` bytes (``REPORT_CAP`` for the
report) and ``PAGE_CAP`` in all; the only files read outside it are the scenario files the
report names (``.yaml``/``.yml``, through the scenario loader) and the ``.golden`` files it
names below such a scenario's own ``goldens/`` folder, by the same rules. What is skipped is a
warning at the top of the page, with the reason.
"""

from __future__ import annotations

import base64
import difflib
import gc
import ipaddress
import json
import math
import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlsplit

import orjson

from autocue.simulate.schema import EVENT_SCHEMA_VERSION
from autocue.view.errors import ViewSourceError as ViewSourceError

if TYPE_CHECKING:
    from autocue.session.manager import SessionManager

Event = dict[str, Any]


@dataclass(slots=True)
class ViewDoc:
    kind: str
    """``session``, ``loop``, ``run`` or ``live``."""
    title: str
    events: list[Event] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    live_url: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"schema": EVENT_SCHEMA_VERSION, "kind": self.kind, "title": self.title, "summary": self.summary,
                "warnings": self.warnings, "live": self.live_url, "events": self.events}


class _Events:
    def __init__(self) -> None:
        self.out: list[Event] = []

    def add(self, t: float, type_: str, **fields: Any) -> Event:
        return self.entry(t, type_, fields, None)

    def entry(self, t: float, type_: str, fields: dict[str, Any], common: dict[str, Any] | None) -> Event:
        """An event of ``fields`` (without their None values), then ``common`` (which has none)."""
        out = self.out
        ev: Event = {"v": EVENT_SCHEMA_VERSION, "id": len(out) + 1, "t": t if t > 0 else 0, "type": type_}
        for k, v in fields.items():
            if v is not None:
                ev[k] = v
        if common is not None:
            ev.update(common)
        out.append(ev)
        return ev


class _Clock:
    """``iso_to_ms`` of a session's timestamps, each second parsed once: pi writes
    ``YYYY-MM-DDTHH:MM:SS.mmmZ``, so an entry's time is its second's plus its milliseconds."""

    def __init__(self) -> None:
        from autocue.session.file_format import iso_to_ms

        self.iso_to_ms = iso_to_ms
        self.second = ""
        self.second_ms = 0

    def ms(self, s: Any) -> int:
        if type(s) is str and len(s) == 24 and s[19] == "." and s[23] == "Z":
            frac = s[20:23]
            if frac.isascii() and frac.isdigit():
                second = s[:19]
                if second != self.second:
                    self.second, self.second_ms = second, self.iso_to_ms(second + "Z")
                if self.second_ms:
                    return self.second_ms + int(frac)
        return self.iso_to_ms(s)


# ---------------------------------------------------------------------------- session files


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for b in content or ():
        if isinstance(b, dict):
            if b.get("type") == "text":
                parts.append(str(b.get("text", "")))
            elif b.get("type") == "image":
                parts.append(f"[image {b.get('mimeType', '')}]")
    return "\n".join(parts)


def _branches(entries: list[Any], leaf: str | None) -> dict[str, int]:
    """Entry id → branch number: 0 for the path to the current leaf, 1, 2, ... for the others (file order)."""
    has_child: set[str] = {e.parent_id for e in entries if e.parent_id is not None}
    parents = {e.id: e.parent_id for e in entries}
    leaves = [e.id for e in entries if e.id not in has_child]
    if leaf in parents:
        leaves = [leaf, *(x for x in leaves if x != leaf)]
    out: dict[str, int] = {}
    for n, lid in enumerate(leaves):
        cur: str | None = lid
        while cur is not None and cur not in out and cur in parents:
            out[cur] = n
            cur = parents[cur]
    return out


def session_file_doc(path: Path) -> ViewDoc:
    from autocue.session.errors import SessionFileError
    from autocue.session.manager import SessionManager

    try:
        sm = SessionManager.open(path, decoded=True)  # session_doc reads every entry's JSON: decode it once
    except (OSError, ValueError, SessionFileError) as err:
        raise ViewSourceError(f"{path}: cannot read the session file: {err}") from None
    return session_doc(sm, path.name, str(path))


def session_doc(sm: SessionManager, title: str, source: str) -> ViewDoc:
    """The ``ViewDoc`` of a ``SessionManager`` (a file or an in-memory session of a test)."""
    from autocue.session.file_format import iso_to_ms

    header = sm.get_header()
    entries = sm.get_entries()
    branch = _branches(entries, sm.get_leaf_id())
    try:
        t0 = iso_to_ms(header.timestamp)
    except (ValueError, TypeError):
        t0 = 0
    ev = _Events()
    add, clock, get_label = ev.entry, _Clock().ms, sm.get_label
    name = sm.get_session_name()
    ev.add(0, "session.start", kind="session", title=name or title, source=source)
    tally = _Tally()
    messages = 0
    for e in entries:
        d = e.to_json()
        t = clock(d.get("timestamp", "")) - t0
        eid, pid = e.id, e.parent_id
        kind = d.get("type")
        label = str(d.get("label") or "(label removed)") if kind == "label" else get_label(eid)
        common: dict[str, Any] = {"entryId": eid}  # and parentId, branch, label: in this order, never None
        if pid is not None:
            common["parentId"] = pid
        common["branch"] = branch.get(eid, 0)
        if label is not None:
            common["label"] = label
        if kind == "message":
            messages += 1
            m = d.get("message") or {}
            if m.get("role") == "assistant":
                try:
                    _assistant_events(add, t, m, common, tally)
                except _BadValue as err:  # the file:line of the entry, and what is wrong in it
                    line = getattr(e, "line", None)
                    raise ViewSourceError(f"{source}{f':{line}' if line else ''}: message entry {eid}: {err}; "
                                          "fix or remove the entry") from None
            else:
                _message_events(add, t, m, common, tally)
        else:
            _entry_event(add, t, kind, d, common, tally)
    ev.add(ev.out[-1]["t"] if ev.out else 0, "session.end", status="ended")
    tally.messages = messages
    summary = tally.summary(len(entries), (max(branch.values()) + 1) if branch else 0, getattr(header, "cwd", None))
    return ViewDoc("session", name or title, ev.out, summary, [str(w) for w in sm.warnings])


_Add = Callable[[float, str, dict[str, Any], "dict[str, Any] | None"], Event]
"""``_Events.entry``: adds one event of an entry."""


class _Tally:
    """What a session's summary counts while its entries become events."""

    __slots__ = ("errors", "labels", "messages", "models", "tools", "usage")

    def __init__(self) -> None:
        self.usage: dict[str, Any] = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "cost": 0.0}
        self.tools = self.errors = self.messages = self.labels = 0
        self.models: list[str] = []

    def summary(self, entries: int, branches: int, cwd: str | None) -> dict[str, Any]:
        usage = self.usage
        return {"entries": entries, "messages": self.messages, "tool calls": self.tools, "errors": self.errors,
                "branches": branches, "labels": self.labels, "cwd": cwd, "models": ", ".join(self.models) or None,
                "tokens in": usage["input"], "tokens out": usage["output"], "cache read": usage["cacheRead"],
                "cache write": usage["cacheWrite"], "cost": f"${usage['cost']:.4f}"}


def _message_events(add: _Add, t: float, m: dict[str, Any], common: dict[str, Any], tally: _Tally) -> None:
    """The events of a message entry's message ``m`` (an assistant's: ``_assistant_events``)."""
    role = m.get("role")
    if role == "user":
        add(t, "user", {"text": _text_of(m.get("content"))}, common)
    elif role == "toolResult":
        is_error = bool(m.get("isError"))
        tally.errors += is_error
        details = m.get("details")
        diff = details.get("diff") if isinstance(details, dict) else None
        add(t, "tool.end", {"toolCallId": str(m.get("toolCallId", "")), "toolName": m.get("toolName"),
                            "status": "error" if is_error else "ok", "result": _text_of(m.get("content")),
                            "diff": diff if isinstance(diff, str) else None, "isError": is_error,
                            "error": True if is_error else None}, common)
    else:
        text = _text_of(m.get("content")) or str(m.get("command") or m.get("output") or "")
        add(t, "info", {"kind": str(role), "text": text}, common)


class _BadValue(ValueError):
    """A value of a session entry the summary cannot count (``session_doc`` adds the file:line)."""


def _number(v: Any, what: str) -> float:
    """``v`` as a finite number (None and absent: 0), else ``_BadValue`` saying what it is."""
    if v is None:
        return 0
    if isinstance(v, bool) or not isinstance(v, (int, float)) or (isinstance(v, float) and not math.isfinite(v)):
        shown = repr(v) if len(repr(v)) <= 40 else repr(v)[:40] + "…"
        raise _BadValue(f"{what} must be a number, got {type(v).__name__} {shown}")
    return v


def _assistant_events(add: _Add, t: float, m: dict[str, Any], common: dict[str, Any], tally: _Tally) -> None:
    """An assistant reply: its thinking, the reply, then one ``tool.start`` per tool call."""
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    for b in m.get("content") or ():
        if not isinstance(b, dict):
            continue
        if b.get("type") == "thinking":
            add(t, "thinking", {"text": str(b.get("thinking", ""))}, common)
        elif b.get("type") == "text":
            texts.append(str(b.get("text", "")))
        elif b.get("type") == "toolCall":
            calls.append(b)
    u = m.get("usage") if isinstance(m.get("usage"), dict) else None
    if u:
        usage = tally.usage
        for k in ("input", "output", "cacheRead", "cacheWrite"):
            usage[k] += int(_number(u.get(k), f"usage.{k}"))
        cost = u.get("cost")
        if isinstance(cost, dict):
            usage["cost"] += _number(cost.get("total"), "usage.cost.total")
    model = f"{m.get('provider', '')}/{m.get('model', '')}".strip("/") or None
    if model and model not in tally.models:
        tally.models.append(model)
    stop = m.get("stopReason")
    failed = stop in ("error", "aborted")
    tally.errors += failed
    add(t, "assistant", {"text": "\n".join(texts), "model": model, "usage": u, "stopReason": stop,
                         "errorMessage": m.get("errorMessage"), "error": True if failed else None}, common)
    tally.tools += len(calls)
    for b in calls:
        add(t, "tool.start", {"toolCallId": str(b.get("id", "")), "toolName": str(b.get("name", "")),
                              "args": b.get("arguments", {})}, common)


def _entry_event(add: _Add, t: float, kind: Any, d: dict[str, Any], common: dict[str, Any], tally: _Tally) -> None:
    """The event of an entry that is not a message (``d``: its JSON)."""
    if kind == "compaction":
        add(t, "compaction", {"summary": str(d.get("summary", "")), "tokensBefore": d.get("tokensBefore")}, common)
    elif kind == "branch_summary":
        add(t, "summary", {"summary": str(d.get("summary", ""))}, common)
    elif kind == "model_change":
        add(t, "info", {"kind": "model", "text": f"model {d.get('provider')}/{d.get('modelId')}"}, common)
    elif kind == "thinking_level_change":
        add(t, "info", {"kind": "thinking level", "text": f"thinking level {d.get('thinkingLevel')}"}, common)
    elif kind == "label":
        tally.labels += 1
        add(t, "marker", {"kind": "label", "spec": {"targetId": d.get("targetId")}}, common)
    elif kind == "session_info":
        add(t, "info", {"kind": "session", "text": f"session name {d.get('name')!r}"}, common)
    elif kind == "custom_message":
        add(t, "info", {"kind": str(d.get("customType", "custom")), "text": _text_of(d.get("content"))}, common)
    else:
        body = {k: v for k, v in d.items() if k not in ("type", "id", "parentId", "timestamp")}
        add(t, "info", {"kind": str(kind), "text": json.dumps(body, ensure_ascii=False)[:2000]}, common)


# ---------------------------------------------------------------------------- loop recordings


def loop_doc(path: Path) -> ViewDoc:
    from autocue.loop import SessionParseError, read_session

    try:
        records = read_session(path)
    except (OSError, SessionParseError) as e:
        raise ViewSourceError(str(e)) from None
    t0 = next((r.ts for r in records if r.ts is not None), 0) or 0
    ev = _Events()
    ev.add(0, "session.start", kind="loop", title=path.name, source=str(path))
    iterations = 0
    hats: list[str] = []
    end: dict[str, Any] | None = None
    for r in records:
        t = (r.ts - t0) if r.ts is not None else (ev.out[-1]["t"] if ev.out else 0)
        d = r.data
        if r.event == "ux.terminal.write":
            raw = d.get("bytes")
            text = base64.b64decode(raw).decode("utf-8", "replace") if isinstance(raw, str) else ""
            ev.add(t, "terminal", content=text, stream="stdout" if d.get("stdout", True) else "stderr")
        elif r.event == "_meta.iteration":
            iterations += 1
            hat = d.get("hat") if isinstance(d.get("hat"), str) else None
            if hat and hat not in hats:
                hats.append(hat)
            n = d.get("n")
            ev.add(t, "iteration", n=n if isinstance(n, int) else iterations, hat=hat, elapsedMs=d.get("elapsed_ms"))
        elif r.event == "bus.publish":
            ev.add(t, "bus", topic=r.topic or "?", payload=r.payload_text, source=r.source,
                   target=d.get("target") if isinstance(d.get("target"), str) else None)
        elif r.event == "_meta.termination":
            end = d
            reason = str(d.get("reason", "?"))
            failed = reason not in ("CompletionPromise", "completed", "Completed")
            ev.add(t, "loop.end", reason=reason, iterations=d.get("iterations"), error=True if failed else None)
        elif r.event == "_meta.loop_start":
            ev.add(t, "info", kind="loop", text="loop start " + json.dumps(d, ensure_ascii=False))
        elif r.event == "_meta.event_dropped":
            ev.add(t, "info", kind="dropped", text=f"event dropped: {d.get('topic')}: {d.get('reason')}", error=True)
        else:
            ev.add(t, "info", kind=r.event, text=json.dumps(d, ensure_ascii=False)[:2000])
    ev.add(ev.out[-1]["t"], "session.end", status="ended")
    summary: dict[str, Any] = {"records": len(records), "iterations": iterations, "hats": ", ".join(hats) or None,
                               "ended": end.get("reason") if end else "no termination record"}
    return ViewDoc("loop", path.name, ev.out, summary)


# ---------------------------------------------------------------------------- ACP runs (acp.jsonl)


def _acp_events(ev: _Events, text: str, t0: float, common: dict[str, Any]) -> int:
    """The messages of an ``acp.jsonl`` (``autocue run --via acp``) as ``info`` events of kind ``acp``, from ``t0``
    (ms); how many."""
    methods: dict[tuple[str, Any], str] = {}
    n = 0
    for line in text.splitlines():
        try:
            e = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if not isinstance(e, dict):
            continue
        t = t0 + float(e.get("t") or 0) * 1000
        way = "client → agent" if e.get("dir") == "out" else "agent → client"
        msg = e.get("msg")
        if not isinstance(msg, dict):
            ev.entry(t, "info", {"kind": "acp", "text": f"#{e.get('i')} {way} malformed line ({e.get('error')}): "
                                 f"{str(e.get('raw', ''))[:500]}", "error": True}, common)
            n += 1
            continue
        if "method" in msg and "id" in msg:
            methods[(str(e.get("dir")), msg["id"])] = str(msg["method"])
        if "method" in msg:
            what = str(msg["method"])
            params = msg.get("params")
            update = params.get("update") if isinstance(params, dict) else None
            if isinstance(update, dict) and update.get("sessionUpdate"):
                what += f" {update['sessionUpdate']}"
        else:
            other = "in" if e.get("dir") == "out" else "out"
            what = f"{'error' if 'error' in msg else 'response'} to {methods.get((other, msg.get('id')), '?')}"
        body = orjson.dumps({k: v for k, v in msg.items() if k != "jsonrpc"}).decode()
        ev.entry(t, "info", {"kind": "acp", "text": f"#{e.get('i')} {way} {what}: {body[:2000]}",
                             "error": True if "error" in msg else None}, common)
        n += 1
    return n


def acp_doc(path: Path) -> ViewDoc:
    """The ``ViewDoc`` of an ``acp.jsonl`` file: its messages as a timeline."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as e:
        raise ViewSourceError(f"{path}: cannot read it ({e.strerror})") from None
    ev = _Events()
    ev.add(0, "session.start", kind="acp", title=path.name, source=str(path))
    n = _acp_events(ev, text, 0, {})
    ev.add(ev.out[-1]["t"], "session.end", status="ended")
    return ViewDoc("session", path.name, ev.out, {"acp messages": n})


# ---------------------------------------------------------------------------- scenario run directories


FILE_CAP = 20_000_000
"""The most bytes of one file a run page takes (a screen, a golden, a cast); a larger one is skipped."""
REPORT_CAP = 64 * 1024 * 1024
"""The largest ``report.json`` read."""
PAGE_CAP = 100_000_000
"""The most bytes of files (screens, goldens, casts) one run page takes in all."""


class _Files:
    """Reads the files of a run page: regular files below an allowed folder, no link followed, capped."""

    def __init__(self, run: Path, warnings: list[str]) -> None:
        self.run = run
        self.left = PAGE_CAP
        self.warnings = warnings

    def read(self, p: Path, roots: list[Path], what: str, scenario: str) -> str | None:
        """The text of ``p`` when it is a regular file below one of ``roots`` reached without a symbolic
        link, within ``FILE_CAP`` and what is left of ``PAGE_CAP``; else ``None`` and a warning why."""
        try:
            data = _read_below(p, roots, min(FILE_CAP, self.left), what)
        except _Skip as skip:
            self.warnings.append(f"{scenario}: {what} {p} skipped: {skip}")
            return None
        if data is None:
            return None
        self.left -= len(data)
        return data.decode("utf-8", "replace")


class _Skip(Exception):
    """Why a file is not read (the reason for the page's warning)."""


def _rel_below(p: Path, root: Path) -> str | None:
    """``p`` relative to ``root`` when it is below it (compared without following links), else None."""
    ap = os.path.abspath(p)
    for base in (os.path.abspath(root), os.path.realpath(root)):
        rel = os.path.relpath(ap, base)
        if rel != "." and rel != ".." and not rel.startswith(".." + os.sep):
            return rel
    return None


def _read_below(p: Path, roots: list[Path], cap: int, what: str) -> bytes | None:
    """The bytes of ``p`` (see ``_Files.read``); ``None`` when it does not exist; ``_Skip`` when refused."""
    from autocue.loop.safe_files import UnsafeFileError, open_dir, open_regular_at

    root, rel = next(((r, x) for r in roots if (x := _rel_below(p, r)) is not None), (None, None))
    if root is None or rel is None:
        raise _Skip(f"it is outside {' and '.join(str(r) for r in roots)}")
    parent, _, name = rel.replace(os.sep, "/").rpartition("/")
    try:
        with open_dir(root, parent) as dfd, open_regular_at(dfd, name, p) as fh:
            size = os.fstat(fh.fileno()).st_size
            if size > cap:
                raise _Skip(f"it is {size} bytes, over the limit of {cap} bytes" + (
                    "" if cap in (FILE_CAP, REPORT_CAP) else " left for this page's files"))
            return fh.read(cap)
    except FileNotFoundError:
        return None
    except UnsafeFileError as e:
        raise _Skip(f"it is {e.what}" if e.path == p else f"{e.path} is {e.what}") from None
    except OSError as e:
        if isinstance(e, NotADirectoryError):
            return None
        raise _Skip(f"cannot read it ({e.strerror or e})") from None


def run_dir_doc(path: Path) -> ViewDoc:
    """The ``ViewDoc`` of an ``autocue run --out`` folder: its ``report.json`` (see ``autocue.runner.report``)."""
    report_path = path / "report.json"
    try:
        raw = _read_below(report_path, [path], REPORT_CAP, "report")
        if raw is None:
            raise FileNotFoundError
        report = orjson.loads(raw)
    except _Skip as skip:
        raise ViewSourceError(f"{report_path}: not read: {skip}; give the --out folder of a run") from None
    except FileNotFoundError:
        raise ViewSourceError(f"{path}: not a run directory of `autocue run` (no report.json in it): give the "
                              "--out folder of a run (default ./autocue-runs)") from None
    except orjson.JSONDecodeError as e:
        raise ViewSourceError(f"{report_path}: not JSON ({e}); re-run `autocue run` to write it again") from None
    scenarios = report.get("scenarios") if isinstance(report, dict) else None
    if not isinstance(scenarios, list):
        raise ViewSourceError(f"{report_path}: expected {{\"scenarios\": [...]}} (the report of `autocue run`)")
    cwd = report.get("cwd")
    bases = [Path(cwd), path] if isinstance(cwd, str) and cwd else [path]  # for relative paths: where the run
    # started, then the run directory
    ev = _Events()
    warnings: list[str] = []
    files = _Files(path, warnings)
    offset = 0.0
    for n, sc in enumerate(scenarios):
        if not isinstance(sc, dict):
            raise ViewSourceError(f"{report_path}: scenarios[{n}] is not an object")
        name = str(sc.get("name", f"scenario {n + 1}"))
        passed = bool(sc.get("passed"))
        ev.add(offset, "session.start", kind="run", title=name, scenario=name, source=str(sc.get("file", "")))
        file = sc.get("file")
        fp = _resolve(file, bases) if isinstance(file, str) and file else None
        why = _scenario_refused(fp) if fp is not None else None
        if why:
            warnings.append(f"{name}: timeline not shown: scenario file {fp} skipped: {why}")
            fp = None
        if fp is not None and fp.is_file():  # the scenario's timeline, as the simulation plays it
            from autocue.scenario import ScenarioError, load_scenarios
            from autocue.simulate.timeline import scenario_events

            try:
                found = [s for s in load_scenarios(fp) if s.name == name] or load_scenarios(fp)[:1]
                for se in scenario_events(found[0])[1:-1] if found else ():
                    fields = {k: v for k, v in se.items() if k not in ("v", "id", "t", "type", "scenario")}
                    ev.add(offset + se["t"], se["type"], **fields, scenario=name)
            except ScenarioError as err:
                warnings.append(f"{name}: timeline not shown: {err}")
        elif isinstance(file, str) and file and not why:
            warnings.append(f"{name}: timeline not shown: no scenario file {file} (looked in "
                            f"{', '.join(str(b) for b in bases)})")
        end_t = ev.out[-1]["t"]
        for line in sc.get("transcript") or ():  # what the runner did, event by event
            ev.add(end_t, "info", kind="ran", text=str(line), scenario=name)
        raw_out = sc.get("out_dir")
        out = _resolve(raw_out, [path]) if isinstance(raw_out, str) and raw_out else path / name
        golden_roots = [fp.parent / "goldens"] if fp is not None else []
        for label, status, golden, actual in _screens(sc, bases):
            a = files.read(actual, [path], "screen", name) if actual is not None else None
            g = None
            if golden is not None and golden.suffix != ".golden":
                warnings.append(f"{name}: golden {golden} skipped: a golden's name ends in .golden")
            elif golden is not None:
                g = files.read(golden, [*golden_roots, path], "golden", name)
            if a is None and g is None:
                warnings.append(f"{name}: screenshot {label!r}: neither {golden} nor {actual} can be read")
                continue
            ok = a is None or a == g
            golden_path = _shown(golden, bases[0]) if golden is not None else None
            actual_path = _shown(actual, bases[0]) if a is not None and actual is not None else None
            diff = None if ok else "".join(difflib.unified_diff(
                (g or "").splitlines(keepends=True), (a or "").splitlines(keepends=True),
                fromfile=golden_path if g is not None and golden_path else "/dev/null", tofile=actual_path or ""))
            ev.add(end_t, "screen", label=label, status=status, actual=a if a is not None else g, golden=g,
                   passed=ok, diff=diff, goldenPath=golden_path, actualPath=actual_path, scenario=name,
                   error=None if ok else True)
        if _rel_below(out, path) is None:
            warnings.append(f"{name}: recordings in {out} skipped: it is outside the run directory {path}")
        else:
            for cast in sorted(out.glob("*.cast")) if out.is_dir() and not out.is_symlink() else ():
                text = files.read(cast, [path], "recording", name)
                if text is not None:
                    ev.add(end_t, "cast", name=cast.name, cast=text, scenario=name)
            acp = out / "acp.jsonl"  # an ACP run (autocue run --via acp): its messages, in time
            if acp.is_file() and not out.is_symlink() and (text := files.read(acp, [path], "ACP log", name)):
                _acp_events(ev, text, end_t, {"scenario": name})
                end_t = ev.out[-1]["t"]
        for f in sc.get("failures") or ():
            if isinstance(f, dict):
                ev.add(end_t, "failure", kind=str(f.get("kind", "failure")), message=str(f.get("message", "")),
                       position=f.get("position") if isinstance(f.get("position"), str) else None,
                       diff=f.get("diff") if isinstance(f.get("diff"), str) else None, scenario=name, error=True)
        dur = sc.get("duration_s")
        took = f" in {dur:.2f} s" if isinstance(dur, (int, float)) else ""
        ev.add(end_t, "marker", kind="result", label=("passed" if passed else "FAILED") + took, scenario=name,
               error=None if passed else True)
        offset = end_t + 1
    if ev.out:
        ev.add(ev.out[-1]["t"], "session.end", status="ended")
    summary: dict[str, Any] = {"scenarios": len(scenarios), "passed": report.get("passed"),
                               "failed": report.get("failed")}
    counts = report.get("goldens")
    if isinstance(counts, dict):
        summary["goldens"] = ", ".join(f"{counts.get(k, 0)} {k}" for k in ("written", "compared", "failed"))
    return ViewDoc("run", path.name, ev.out, summary, warnings)


def _scenario_refused(fp: Path) -> str | None:
    """Why the scenario file ``fp`` a report names is not read (None: read it through the scenario loader)."""
    if fp.suffix not in (".yaml", ".yml"):
        return "a scenario file's name ends in .yaml or .yml"
    try:
        st = fp.lstat()
    except OSError:
        return None  # missing: said by the caller
    if not stat.S_ISREG(st.st_mode):
        from autocue.loop.safe_files import describe

        return f"it is {describe(st)}"
    return None


def _resolve(p: str, bases: list[Path]) -> Path:
    """``p`` as it is when absolute, else under the first of ``bases`` where it exists (else the first)."""
    path = Path(p)
    if path.is_absolute():
        return path
    return next((b / path for b in bases if (b / path).exists()), bases[0] / path)


def _shown(p: Path, base: Path) -> str:
    """``p`` for the page: relative to where the run started when it is inside it."""
    try:
        return str(p.relative_to(base)) if p.is_absolute() and base.is_absolute() else str(p)
    except ValueError:
        return str(p)


def _screens(sc: dict[str, Any], bases: list[Path]) -> list[tuple[str, str | None, Path | None, Path | None]]:
    """``(label, status, golden, actual)`` of each screenshot of a report's scenario: its ``goldens`` entries, or
    (a report of an older autocue) its ``screenshots`` paths, an ``.actual`` one beside its golden."""
    goldens = sc.get("goldens")
    if isinstance(goldens, list):
        out: list[tuple[str, str | None, Path | None, Path | None]] = []
        for g in goldens:
            if isinstance(g, dict):
                golden, actual, status = g.get("golden"), g.get("actual"), g.get("status")
                out.append((str(g.get("label", "")), status if isinstance(status, str) else None,
                            _resolve(golden, bases) if isinstance(golden, str) else None,
                            _resolve(actual, bases) if isinstance(actual, str) else None))
        return out
    shots = sc.get("screenshots")
    old: list[tuple[str, str | None, Path | None, Path | None]] = []
    for label, raw in shots.items() if isinstance(shots, dict) else ():
        if isinstance(raw, str):
            p = _resolve(raw, bases)
            old.append((str(label), None, p.with_suffix(".golden"), p) if p.suffix == ".actual"
                       else (str(label), None, p, None))
    return old


# ---------------------------------------------------------------------------- live streams


_HOST = re.compile(r"(?:[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?\.)*[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}"
                   r"[A-Za-z0-9_])?\.?")
_LIVE_HINT = "give a session URL http://HOST:PORT/api/v1/sessions/ID of `autocue simulate`"


def live_origin(url: str) -> str:
    """``scheme://host[:port]`` of a live session URL: http or https, a host name or IP address and a port,
    a path; no user info, query or fragment: anything else raises ``ViewSourceError``."""
    try:
        u = urlsplit(url)
        host, port = u.hostname, u.port
    except ValueError as e:
        raise ViewSourceError(f"{url!r}: not a valid URL ({e}); {_LIVE_HINT}") from None
    if u.scheme not in ("http", "https"):
        raise ViewSourceError(f"{url!r}: refused: only http and https URLs are followed; {_LIVE_HINT}")
    if "@" in u.netloc:
        raise ViewSourceError(f"{url!r}: refused: the URL has user info (before '@'); {_LIVE_HINT}")
    if not host:
        raise ViewSourceError(f"{url!r}: refused: no host; {_LIVE_HINT}")
    if u.query or u.fragment:
        raise ViewSourceError(f"{url!r}: refused: the URL has a query or fragment; {_LIVE_HINT}")
    try:
        ip = ipaddress.ip_address(host)
        shown = f"[{ip.compressed}]" if ip.version == 6 else ip.compressed
    except ValueError:
        if not _HOST.fullmatch(host):
            raise ViewSourceError(f"{url!r}: refused: {host!r} is not a host name; {_LIVE_HINT}") from None
        shown = host
    return f"{u.scheme}://{shown}" + (f":{port}" if port is not None else "")


def live_doc(url: str) -> ViewDoc:
    import httpx2

    from autocue.simulate.client import events_url

    origin = live_origin(url)
    base = origin + quote(urlsplit(url).path, safe="/-._~%").rstrip("/").removesuffix("/events")
    try:
        r = httpx2.get(base, timeout=10)
    except httpx2.HTTPError as e:
        raise ViewSourceError(f"{url}: cannot reach the simulation server ({e}); is `autocue simulate` running?") \
            from None
    if r.status_code != 200:
        raise ViewSourceError(f"{url}: HTTP {r.status_code}: {r.text.strip()[:200]} (give a session URL "
                              "http://HOST:PORT/api/v1/sessions/ID)")
    try:
        info = r.json()
    except ValueError:
        raise ViewSourceError(f"{url}: not a session of `autocue simulate` (the answer is not JSON)") from None
    title = str(info.get("scenario") or info.get("id") or base) if isinstance(info, dict) else base
    return ViewDoc("live", title, [], {"session": info.get("id") if isinstance(info, dict) else None,
                                       "url": base}, live_url=events_url(base))


def load_doc(source: str) -> ViewDoc:
    """The ``ViewDoc`` of a session file, loop recording, run directory or live session URL.

    The cyclic garbage collector is paused meanwhile (the events hold no cycles; bulk allocation
    would trigger it thousands of times on a large session)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _load_doc(source)
    finally:
        if enabled:
            gc.enable()


def _load_doc(source: str) -> ViewDoc:
    if source.startswith(("http://", "https://")):
        return live_doc(source)
    path = Path(source)
    try:
        st = path.stat()
        if stat.S_ISDIR(st.st_mode):
            return run_dir_doc(path)
        if not stat.S_ISREG(st.st_mode):
            from autocue.loop.safe_files import describe

            raise ViewSourceError(f"{path}: it is {describe(st)}, not a file: give a session file, a loop "
                                  "session.jsonl, a run directory or a simulation URL")
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)  # a FIFO swapped in: no block
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                raise ViewSourceError(f"{path}: it is not a regular file (it changed while read); give a session "
                                      "file, a loop session.jsonl or a run directory")
            os.set_blocking(f.fileno(), True)
            first = next((raw for raw in f if raw.strip()), b"")
    except FileNotFoundError:
        raise ViewSourceError(f"{path}: no such file or directory") from None
    except OSError as e:
        raise ViewSourceError(f"{path}: cannot read it ({e.strerror})") from None
    if not first:
        raise ViewSourceError(f"{path}: the file is empty; give a session file, a loop session.jsonl, a run "
                              "directory or a simulation URL")
    try:
        head = orjson.loads(first)
    except orjson.JSONDecodeError as e:
        raise ViewSourceError(f"{path}:1: not JSON ({e}); give a session file (JSONL), a loop session.jsonl, "
                              "a run directory or a simulation URL") from None
    if isinstance(head, dict) and head.get("type") == "session":
        return session_file_doc(path)
    if isinstance(head, dict) and "event" in head:
        return loop_doc(path)
    if isinstance(head, dict) and "dir" in head and ("msg" in head or "raw" in head):
        return acp_doc(path)
    raise ViewSourceError(f"{path}:1: neither a session file (first line {{\"type\": \"session\"}}) nor a loop "
                          "recording (lines {\"ts\", \"event\", \"data\"})")


__all__ = ["FILE_CAP", "PAGE_CAP", "REPORT_CAP", "ViewDoc", "ViewSourceError", "acp_doc", "live_doc", "live_origin",
           "load_doc", "loop_doc", "run_dir_doc", "session_doc",
           "session_file_doc"]
