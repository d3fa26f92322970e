"""``MockState``: the scenarios a server plays, its sessions, and what to answer a request.

``respond(req)`` is the whole decision, independent of HTTP: find or create the session
(scenario by name, by path prefix or by the first user prompt), answer known side calls,
resolve the tool profile, enforce ``strict_tools``, run pending checks, take the next
reply, and build it. The result is an ``Outcome``: a ``Reply`` to render for the request's
API, or an API-shaped error with its status and headers.
"""

from __future__ import annotations

import logging
import math
import os
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from autocue.mockllm.choice import Ambiguous, ambiguous_message, choose
from autocue.mockllm.error_bodies import error_body, error_headers
from autocue.mockllm.errors import PinLimitError as PinLimitError
from autocue.mockllm.fingerprint import Conversation, compare, fingerprint, nearest
from autocue.mockllm.incoming import Incoming
from autocue.mockllm.options import MAX_PINS, ServerOptions
from autocue.mockllm.profiles import Profile, declared_spelling, detect_profile, get_profile, tool_difference
from autocue.mockllm.reply import Reply, build_reply
from autocue.mockllm.session import ChecksFailed, Exhausted, Playable, Session
from autocue.mockllm.sidecalls import side_call
from autocue.mockllm.sources import (
    ScenarioSourceError,
    Source,
    allowed,
    load_playables,
    load_text,
    path_roots,
    scenario_file_paths,
)
from autocue.scenario.redact import Redactor
from autocue.script.model import Script, ScriptedResponse

if TYPE_CHECKING:
    from autocue.script.chaos import ChaosSpec

log = logging.getLogger("autocue.mockllm")


@dataclass(slots=True)
class Outcome:
    status: int = 200
    reply: Reply | None = None
    body: dict[str, Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    taken: int | None = None
    """Index of the scripted reply the request took (None: none was taken)."""
    chaos: ChaosSpec | None = None
    """The scripted step's own chaos spec."""
    undo: Callable[[], None] | None = None
    """Leave the step unplayed again (a chaos fault kept the reply from the client)."""


def error_outcome(req: Incoming, status: int, message: str, reason: str) -> Outcome:
    """An error in ``req``'s API shape; ``x-autocue-error`` says why (``reason``)."""
    h = {"x-autocue-error": reason, **error_headers(req.api, status)}
    if status not in (408, 409, 429) and status < 500:
        h["x-should-retry"] = "false"
    return Outcome(status, body=error_body(req.api, status, message), headers=h)


def session_error(s: Session, req: Incoming, status: int, message: str, reason: str) -> Outcome:
    """``error_outcome``, the message also kept among the session's errors."""
    with s.lock:
        s.errors.append(message)
    return error_outcome(req, status, message, reason)


def _mapped_name(profile: Profile, tool: str, args: dict[str, Any]) -> str:
    try:
        return profile.map_call(tool, args)[0]
    except Exception:  # a templated mapping that needs other arguments: the name is what matters
        return tool


_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


class MockState:
    """Scenarios, sessions and options of one mock server (thread-safe)."""

    def __init__(self, sources: Source = (), options: ServerOptions | None = None) -> None:
        self.options = options or ServerOptions()
        self.playables: dict[str, Playable] = {}
        self.sessions: OrderedDict[str, Session] = OrderedDict()
        """Sessions by id, least recently used first."""
        self.pinned: set[str] = set()
        """Session ids and keys that never expire (``pin``)."""
        self.expired = 0
        """Sessions forgotten by the TTL or the size bound so far."""
        self.recorded: list[str] = []
        self._lock = threading.Lock()
        self._record_n = 0
        self._forced: Profile | None = get_profile(self.options.profile) if self.options.profile else None
        self.roots: list[Path] = path_roots(sources)
        """The scenario files and directories the server was started with: the only paths
        ``add_paths`` (the admin API) reads."""
        self.add(sources)

    # ------------------------------------------------------------------ scenarios
    def add(self, src: Source) -> list[str]:
        """Load scenarios (a Script, scenario, path, or list); returns their names.
        A name loaded again replaces the old script for new sessions."""
        names: list[str] = []
        for p in load_playables(src):
            with self._lock:
                self.playables[p.name] = p
            names.append(p.name)
        return names

    def add_paths(self, paths: list[str]) -> list[str]:
        """Load scenario files for the admin API: each path (and each file of a directory)
        must be one of ``roots`` or inside a root directory (``ScenarioSourceError`` 403)."""
        checked: list[Path] = []
        for raw in paths:
            p = Path(raw)
            if not allowed(p, self.roots):
                started = ", ".join(str(r) for r in self.roots) or "none"
                raise ScenarioSourceError(
                    f"path {raw!r} is not one of the scenario files or directories this server was started with "
                    f"({started}): start it with that path, or post the YAML itself as {{\"yaml\": ...}}", 403)
            for f in scenario_file_paths(p):
                if not allowed(f, self.roots):
                    raise ScenarioSourceError(f"{str(f)!r} in {raw!r} leads outside the scenario files and "
                                              "directories this server was started with", 403)
            checked.append(p)
        return self.add(checked)

    def add_yaml(self, text: str, name: str) -> list[str]:
        """Load a posted scenario from its YAML text (kept in memory; no file is written)."""
        return self.add(load_text(text, f"<posted>/{name}.yaml"))

    def scenarios(self) -> list[dict[str, Any]]:
        return [
            {"name": p.name, "source": p.source, "replies": p.total, "first_prompt": p.first_prompt,
             "tools": p.tool_names, "warnings": p.warnings}
            for p in list(self.playables.values())
        ]

    def open_run(self, name: str, script: Script, *, label: str | None = None, tool_hint: str | None = None,
                 profile: str | None = None, match: str | None = None) -> RunHandle:
        """Register ``script`` for one caller's run under ``name`` (``name--2``, ... while that name is
        taken) with the session key ``run-NAME``; with ``profile`` the run's session maps tool calls
        through that tool profile from its first request. ``RunHandle.close()`` forgets both."""
        with self._lock:
            run_name = name
            n = 1
            while run_name in self.playables:
                n += 1
                run_name = f"{name}--{n}"
            playable = Playable(script, name=run_name, label=label, tool_hint=tool_hint, match=match)
            self.playables[run_name] = playable
        handle = RunHandle(self, run_name, f"run-{run_name}", playable)
        if profile is not None:
            session = Session(handle.session_id, handle.key, playable, "launch profile",
                              journal_size=self.options.journal_size)
            session.profile = get_profile(profile)
            session.profile_source, session.profile_resolved = "launch profile", True
            session.last_used = time.monotonic()  # fresh: the server expires sessions idle past its TTL
            with self._lock:
                self.sessions[session.id] = session
        return handle

    # ------------------------------------------------------------------ sessions
    def session_status(self, sid: str | None = None) -> list[dict[str, Any]]:
        with self._lock:
            self._expire(time.monotonic())
            sessions = list(self.sessions.values()) if sid is None else [s for s in self.sessions.values()
                                                                          if sid in (s.id, s.key)]
            pinned = [self._is_pinned(s) for s in sessions]
        return [{**s.status(), "pinned": p} for s, p in zip(sessions, pinned, strict=True)]

    def session_requests(self, sid: str) -> list[dict[str, Any]]:
        """The request journal (with bodies) of the sessions named ``sid`` (id or key)."""
        with self._lock:
            self._expire(time.monotonic())
            sessions = [s for s in self.sessions.values() if sid in (s.id, s.key)]
        return [s.requests_json() for s in sessions]

    def no_session(self, sid: str) -> str:
        """What to say when no session is named ``sid``."""
        known = [s["session"] for s in self.session_status()]
        return f"no session {sid!r} (sessions: {', '.join(known) or 'none'})"

    def reset(self, sid: str | None = None) -> int:
        """Forget a session (or all): its next request starts the scenario again."""
        with self._lock:
            if sid is None:
                n = len(self.sessions)
                self.sessions.clear()
                return n
            doomed = [k for k, s in self.sessions.items() if sid in (s.id, s.key)]
            for k in doomed:
                del self.sessions[k]
            return len(doomed)

    def pin(self, sid: str, pinned: bool = True) -> int:
        """Keep the sessions named ``sid`` (id or key, present or future) past the TTL and the
        size bound; ``pinned=False`` lets them expire again. Returns how many exist now."""
        with self._lock:
            if pinned:
                if sid not in self.pinned and len(self.pinned) >= MAX_PINS:
                    raise PinLimitError(f"cannot pin {sid!r}: {MAX_PINS} sessions are pinned already, the most "
                                        "the server keeps; unpin one first (DELETE /_autocue/sessions/<id>/pin)")
                self.pinned.add(sid)
            else:
                self.pinned.discard(sid)
            return sum(1 for s in self.sessions.values() if sid in (s.id, s.key))

    def _is_pinned(self, s: Session) -> bool:
        return bool(self.pinned) and (s.id in self.pinned or s.key in self.pinned)

    def _expire(self, now: float) -> None:
        """Forget unpinned sessions idle past the TTL, and the least recently used ones past
        the size bound (pinned sessions do not count; callers hold ``_lock``)."""
        sessions = self.sessions
        ttl, cap = self.options.session_ttl, self.options.max_sessions
        if not self.pinned:  # the usual case: the oldest sessions are at the front
            while sessions:
                sid, s = next(iter(sessions.items()))
                if not ((cap > 0 and len(sessions) > cap) or (ttl > 0 and now - s.last_used > ttl)):
                    return
                del sessions[sid]
                self.expired += 1
            return
        pinned = {sid for sid, s in sessions.items() if self._is_pinned(s)}
        excess = len(sessions) - len(pinned) - cap if cap > 0 else 0
        for sid, s in list(sessions.items()):
            if sid in pinned:
                continue
            if excess <= 0 and not (ttl > 0 and now - s.last_used > ttl):
                return
            del sessions[sid]
            self.expired += 1
            excess -= 1

    def _session(self, req: Incoming) -> Session | Outcome:
        sid = req.session_key if req.scenario is None else f"{req.session_key}@{req.scenario}"
        now = time.monotonic()
        with self._lock:
            s = self.sessions.get(sid)
            if s is not None:
                ttl = self.options.session_ttl
                if ttl > 0 and now - s.last_used > ttl and not self._is_pinned(s):
                    del self.sessions[sid]  # expired: this request starts the scenario again
                    self.expired += 1
                else:
                    s.last_used = now
                    self.sessions.move_to_end(sid)
                    return s
        chosen = self._choose(req)
        if isinstance(chosen, Outcome):
            return chosen
        playable, how = chosen
        with self._lock:
            s = self.sessions.get(sid)
            if s is None:
                s = Session(sid, req.session_key, playable, how, journal_size=self.options.journal_size)
                s.last_used = now
                self.sessions[sid] = s
                self._expire(now)
        return s

    def _choose(self, req: Incoming) -> tuple[Playable, str] | Outcome:
        pls = self.playables
        if req.scenario is not None:
            p = pls.get(req.scenario)
            if p is None:
                self.record(req, f"no scenario named {req.scenario!r}")
                return error_outcome(req, 404, f"autocue mock LLM: no scenario named {req.scenario!r} is loaded "
                                     f"(loaded: {', '.join(pls) or 'none'}). Check x-scenario-name or the "
                                     "/scenario/{name}/ prefix, or load it with POST /_autocue/scenarios.",
                                     "unknown-scenario")
            return p, "name"
        if not pls:
            self.record(req, "no scenario loaded")
            return error_outcome(req, 404, "autocue mock LLM: no scenario is loaded. Start the server with a "
                                 "scenario path or load one with POST /_autocue/scenarios.", "no-scenario")
        items = list(pls.values())
        if len(items) == 1:
            return items[0], "only scenario"
        chosen = choose(items, req, self.options.session_key)
        if isinstance(chosen, Ambiguous):
            self.record(req, "several scenarios match equally")
            return error_outcome(req, 400, ambiguous_message(chosen), "ambiguous")
        if chosen is not None:
            return chosen
        prompt = " ".join(req.first_user_text().split())
        self.record(req, "no scenario matches the first user prompt")
        return error_outcome(req, 404, f"autocue mock LLM: no scenario matches the first user prompt {prompt[:120]!r} "
                             f"(loaded: {', '.join(pls)}). Name one with the x-scenario-name header or a "
                             "/scenario/{name}/ path prefix.", "no-match")

    # ------------------------------------------------------------------ the decision
    def embedding_session(self, req: Incoming) -> Session | Outcome | None:
        """The session an embeddings request belongs to: the request's session when it has one, else
        the one a model call would start when the scenario is named or the only one loaded (an unknown
        name is the same error); None when the scenario would be chosen by a prompt (an embeddings
        request has none): its texts get their hash vectors."""
        sid = req.session_key if req.scenario is None else f"{req.session_key}@{req.scenario}"
        with self._lock:
            s = self.sessions.get(sid)
        if s is None and req.scenario is None and len(self.playables) != 1:
            return None
        return s if s is not None else self._session(req)

    def respond(self, req: Incoming) -> Outcome:
        got = self._session(req)
        if isinstance(got, Outcome):
            return got
        diverged = len(got.divergences)
        out = self._answer(got, req)
        reason = out.headers.get("x-autocue-error")
        if reason is None and len(got.divergences) > diverged:
            reason = "reply (diverged from the recorded request)"
        got.note(req, out.status, reason or ("reply" if out.taken is not None else "side-call"),
                 None if out.taken is None else out.taken + 1)
        if got.coverage is not None:
            calls = [b.name for b in out.reply.blocks if b.kind == "call"] if out.reply is not None else []
            got.coverage.request(req.declared_tools(), out.taken, calls,
                                 got.profile.name if got.profile is not None else None)
        return out

    def _answer(self, s: Session, req: Incoming) -> Outcome:
        pl = s.playable
        seed = f"{pl.name}:{s.id}"
        side = side_call(req, pl.name)
        if side is not None:
            with s.lock:
                s.side_calls += 1
                n = s.side_calls
            return Outcome(reply=build_reply(side[1], api=req.api, seed=f"{seed}:side{n}",
                                             input_tokens=req.raw_size // 4, tool_id_prefix=req.wire.tool_id_prefix))
        if not s.profile_resolved:
            self._resolve_profile(s, req)
        if self.options.strict_tools:
            bad = self._strict(s, req)
            if bad is not None:
                return bad
        taken = s.take(req, self.options.workspace)
        if isinstance(taken, Exhausted):
            msg = (f"autocue mock LLM: scenario {pl.label} has no more scripted responses: all "
                   f"{taken.consumed} were consumed by session {s.id!r} (request {s.requests}). Last reply: "
                   f"{pl.describe_at(taken.consumed - 1) or 'none'}. The agent asked the model again: add the "
                   "reply it needs to the scenario, or find out why it called the model again.")
            return session_error(s, req, 400, msg, "exhausted")
        if isinstance(taken, ChecksFailed):
            where = taken.results[0]
            expected = next((r for r in taken.results if r.diff is not None), None)
            if expected is not None:
                msg = (f"autocue mock LLM: request {expected.request} of session {s.id!r} ({req.path}) does not "
                       f"match the expectRequest before reply {expected.position + 1} (turn {expected.turn + 1}, "
                       f"step {expected.step + 1}) of scenario {pl.label}"
                       f"{' at ' + expected.source if expected.source else ''}: {expected.message}. The whole "
                       f"request is in GET /_autocue/sessions/{s.key}/requests.")
                return session_error(s, req, 422, msg, "expectation")
            lines = "; ".join(f"{r.description}: {r.message}" for r in taken.results)
            msg = (f"autocue mock LLM: assertion failed before reply {where.position + 1} (turn {where.turn + 1}, "
                   f"step {where.step + 1}) of scenario {pl.label}"
                   f"{' at ' + where.source if where.source else ''}: {lines}")
            return session_error(s, req, 422, msg, "assertion")
        step = taken.position.step
        if isinstance(step, ScriptedResponse) and step.fingerprint is not None:
            mode = self.options.match or pl.match or "off"
            if mode != "off":
                differs = self._match(s, req, taken.index, mode)
                if differs is not None:
                    return differs
        if not isinstance(step, ScriptedResponse):
            from autocue.mockllm.factory import call_factory

            try:
                step = call_factory(step, req)
            except Exception as e:
                msg = (f"autocue mock LLM: scripted step {taken.index + 1} of scenario {pl.label} (a response "
                       f"factory) raised {type(e).__name__}: {e}")
                return session_error(s, req, 500, msg, "factory")
            if step.again:  # the factory answers the next request too
                s.give_back(taken.index)
        err = step.error
        if err is not None:
            status = err.http_status()
            headers = error_headers(req.api, status)
            if err.retry_after is not None:
                ra = max(0.0, float(err.retry_after))
                headers["retry-after"] = str(math.ceil(ra))
                headers["retry-after-ms"] = str(int(ra * 1000))
            body = err.body if err.body is not None else error_body(req.api, status, err.message, kind=err.kind)
            headers["x-autocue-error"] = "scripted"
            return Outcome(status, body=body, headers=headers, taken=taken.index)
        mapper = s.profile.map_call if s.profile is not None else declared_spelling(req.declared_tools())
        reply = build_reply(step, api=req.api, seed=f"{seed}:{taken.index}", input_tokens=req.raw_size // 4,
                            mapper=mapper, speed=self.options.speed, tool_id_prefix=req.wire.tool_id_prefix)
        if reply.has_calls:
            self._warn_undeclared(s, req, taken.index, reply)
        return Outcome(reply=reply, taken=taken.index, chaos=step.chaos, undo=partial(s.give_back, taken.index))

    def _match(self, s: Session, req: Incoming, index: int, mode: str) -> Outcome | None:
        """``--match strict|loose``: compare ``req`` with the request recorded for reply ``index``.
        Strict: an API-shaped 400 naming every differing field (the reply stays unplayed); loose:
        the reply is served and the difference kept among the session's warnings (its report)."""
        recorded = s.playable.fingerprints()
        fp = recorded[index] if index < len(recorded) else None
        if fp is None:
            return None
        if s.conversation is None:
            s.conversation = Conversation()
        live = fingerprint(req, s.conversation)
        diff = compare(fp, live)
        if not diff:
            return None
        pl = s.playable
        step = pl.positions[index].step
        source = step.source if isinstance(step, ScriptedResponse) else None
        msg = (f"request {s.requests} of session {s.id!r} ({req.path}) differs from the request recorded for "
               f"{pl.where(index)} of scenario {pl.label}{' at ' + source if source else ''}: " + "; ".join(diff))
        near, near_diff = nearest(recorded, live, index)
        if near not in (-1, index) and len(near_diff) < len(diff):
            msg += (f". Nearest recorded request: {pl.where(near)}"
                    + (f" ({'; '.join(near_diff)})" if near_diff else " (identical)"))
        if mode == "strict":
            s.give_back(index)
            with s.lock:
                s.mismatch = s.mismatch or msg
            return session_error(s, req, 400, f"autocue mock LLM (--match strict): {msg}. Replay with --match loose "
                                 "to serve it anyway, or record the scenario again.", "match")
        with s.lock:
            s.warnings.append(f"--match loose: {msg}")
            s.divergences.append(msg)
        return None

    def _warn_undeclared(self, s: Session, req: Incoming, index: int, reply: Reply) -> None:
        """A scripted call of a tool the request does not declare: a session warning and a log
        line (``--strict-tools`` answers 400 before getting here)."""
        declared = req.declared_tools()
        absent = [b.name for b in reply.blocks if b.kind == "call" and b.name not in declared]
        if not absent:
            return
        absent = list(dict.fromkeys(absent))
        shown = ", ".join(declared[:15]) + (f", ... ({len(declared)} in all)" if len(declared) > 15 else "")
        hint = s.playable.tool_hint or ("map the scenario's tool with a profile (--profile, x-autocue-profile) "
                                        "or fix its name (--strict-tools makes this a 400)")
        msg = (f"reply {index + 1} of scenario {s.playable.label} calls {', '.join(absent)}, which this "
               f"{req.wire.label} request does not declare (declared: {shown or 'no tools'}); the agent will "
               f"probably reject the call: {hint}")
        with s.lock:
            s.warnings.append(msg)
        if s.playable.tool_hint is None:  # a caller with its own advice reports the warnings itself
            red = Redactor()  # the session's id may be the client's API key: no secret in a log
            red.learn_headers(req.headers, req.query)
            log.warning("%s", red.text(f"autocue mock LLM: warning: session {s.id!r}: {msg}"))

    def _resolve_profile(self, s: Session, req: Incoming) -> None:
        if self._forced is not None:
            s.profile, s.profile_source, s.profile_resolved = self._forced, "--profile", True
            return
        if req.profile:
            try:
                s.profile = get_profile(req.profile)
            except ValueError as e:
                s.warnings.append(f"x-autocue-profile: {e}; tool calls pass through unchanged")
            s.profile_source, s.profile_resolved = "x-autocue-profile", True
            return
        declared = req.declared_function_tools()
        if not declared:
            return  # decide on the first request that declares tools
        s.profile_resolved = True
        found = get_profile("codex") if req.codex_lite else detect_profile(declared)
        if found is None:
            s.profile_source = "none (no profile matches the declared tools)"
            self.record(req, "no tool profile matches the declared tools")
        else:
            s.profile, s.profile_source = found, "detected (Codex lite request)" if req.codex_lite else "detected"

    def _strict(self, s: Session, req: Incoming) -> Outcome | None:
        """``--strict-tools``: the request must declare every tool the scenario calls (after the
        profile maps it), and a request that declares tools must match a profile."""
        declared = req.declared_function_tools()
        if not declared and not s.playable.tool_names:
            return None
        problems: list[str] = []
        detail = ""
        if s.profile is not None:
            mapped = [_mapped_name(s.profile, n, s.playable.tool_examples[n]) for n in s.playable.tool_names]
            diff = tool_difference(s.profile, declared)
            if diff is not None and not diff.ok:
                detail = f" Profile {s.profile.name!r} differs: {diff.describe()}."
        else:
            mapped = list(s.playable.tool_names)
            if declared:
                problems.append("no tool profile matches the declared tools (name one with --profile or the "
                                "x-autocue-profile header)")
        absent = [n for n in dict.fromkeys(mapped) if n not in declared]
        if absent:
            problems.append("the scenario calls tools the request does not declare: " + ", ".join(absent))
        if not problems:
            return None
        path = self.record(req, "strict tools: " + "; ".join(problems))
        msg = (f"autocue mock LLM (--strict-tools): the tools declared by this {req.wire.label} request do "
               f"not match scenario {s.playable.label}: {'; '.join(problems)}. Declared: "
               f"{', '.join(declared) or 'none'}.{detail}" + (f" Request saved to {path}." if path else ""))
        return session_error(s, req, 400, msg, "strict-tools")

    # ------------------------------------------------------------------ recording
    def record(self, req: Incoming, reason: str) -> str | None:
        """Save ``req`` under ``record_dir`` (when set); returns the file path."""
        root = self.options.record_dir
        if root is None:
            return None
        folder = Path(root) / req.api
        folder.mkdir(parents=True, exist_ok=True)
        headers = {k: ("<redacted>" if k in ("authorization", "x-api-key", "api-key", "x-goog-api-key") else v)
                   for k, v in req.headers.items()}
        red = Redactor()  # the session key is often the client's API key: neither the file nor its name shows it
        red.learn_headers(req.headers, req.query)
        key = red.text(req.session_key)
        data = red.value({"reason": reason, "api": req.api, "path": req.path, "session": key,
                          "scenario": req.scenario, "declared_tools": req.declared_tools(), "headers": headers,
                          "body": req.body})
        # a new file only (O_EXCL | O_NOFOLLOW): a name taken by an earlier run, or a link planted
        # there, is never written through; the next number is tried (a bounded number of times)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        for _ in range(1000):
            with self._lock:
                self._record_n += 1
                n = self._record_n
            path = folder / f"{n:04d}-{_UNSAFE.sub('_', key).strip('_')[:40] or 'session'}.json"
            try:
                fd = os.open(path, flags, 0o644)
            except FileExistsError:
                continue
            with os.fdopen(fd, "wb") as f:
                f.write(orjson.dumps(data, option=orjson.OPT_INDENT_2))
            break
        else:
            return None
        self.recorded.append(str(path))
        return str(path)


class RunHandle:
    """One caller's run of a script on a ``MockState`` (``open_run``): what it was served, read from
    the run's session directly (no admin JSON), and ``close()``. Thread-safe."""

    __slots__ = ("key", "name", "playable", "state")

    def __init__(self, state: MockState, name: str, key: str, playable: Playable) -> None:
        self.state = state
        self.name = name
        """The playable's name (the scenario part of the run's URL)."""
        self.key = key
        """The session key (the API key and ``/s/KEY`` prefix of the run's URL)."""
        self.playable = playable

    @property
    def session_id(self) -> str:
        return f"{self.key}@{self.name}"

    def _session(self) -> Session | None:
        state = self.state
        with state._lock:
            state._expire(time.monotonic())  # as the admin API does: a session idle past the TTL is gone
            return state.sessions.get(self.session_id)

    @property
    def started(self) -> bool:
        """Whether the program has called the server for this run (its session exists)."""
        return self._session() is not None

    @property
    def served(self) -> int:
        """How many scripted replies the program has been sent so far."""
        s = self._session()
        if s is None:
            return 0
        with s.lock:
            return s.pos

    @property
    def mismatch(self) -> str:
        """The first request ``--match strict`` refused in this run (empty: none)."""
        s = self._session()
        return s.mismatch if s is not None else ""

    @property
    def last_served_at(self) -> float | None:
        """When the latest scripted reply was answered, on the ``time.monotonic()`` clock (None: none yet)."""
        s = self._session()
        return s.last_reply_at if s is not None else None

    @property
    def total(self) -> int:
        return self.playable.total

    @property
    def remaining(self) -> int:
        return self.playable.total - self.served

    @property
    def next_step(self) -> str | None:
        """The next unplayed reply in DSL form (None: every reply was played)."""
        return self.playable.describe_at(self.served) or None

    @property
    def errors(self) -> list[str]:
        s = self._session()
        if s is None:
            return []
        with s.lock:
            return list(s.errors)

    def status(self) -> dict[str, Any] | None:
        """The session's status as the admin API shows it (for diagnostics), or None before the first call."""
        s = self._session()
        return s.status() if s is not None else None

    def trace(self) -> dict[str, Any]:
        """The run's requests for a trace (a run folder's ``requests.json``): each one's number, time,
        API, model, status, outcome and reply, and the body of the last answered one only (it holds the
        whole history); no other body is parsed."""
        s = self._session()
        if s is None:
            return {"requests": [], "dropped": 0}
        with s.lock:
            entries = list(s.journal.entries)
            dropped = s.journal.dropped
        last = next((e for e in reversed(entries) if e.outcome == "reply"), None)
        rows: list[dict[str, Any]] = []
        for e in entries:
            row: dict[str, Any] = {"n": e.n, "time": round(e.at, 3), "api": e.req.api, "model": e.req.model,
                                   "status": e.status, "outcome": e.outcome, "reply": e.reply}
            if e is last:
                row["body"] = e.request().body
            rows.append(row)
        return {"requests": rows, "dropped": dropped}

    def close(self) -> None:
        """Forget the run's session and its script."""
        self.state.reset(self.key)
        with self.state._lock:
            self.state.playables.pop(self.name, None)
