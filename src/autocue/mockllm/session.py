"""Playable scripts and per-session cursors.

``Playable`` flattens a ``Script`` once (shared, never mutated): the replies in order, the
checks to run before each, and the first prompt used to choose a scenario. ``Session`` is
one client's run through a playable: a cursor, the assertion results, counters. ``take``
runs the pending checks and advances the cursor under the session's lock, so concurrent
requests of one session get consecutive replies, and sessions never share a cursor.
Scripted errors advance the cursor like any reply ("429 then success" is two steps).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from autocue import suite_coverage
from autocue.mockllm.fingerprint import Conversation, Fingerprint, expand
from autocue.mockllm.incoming import Incoming
from autocue.mockllm.journal import JOURNAL_CAP, Journal
from autocue.mockllm.profiles import Profile
from autocue.script.model import Check, Script, ScriptedResponse, Step, describe_step

if TYPE_CHECKING:
    from autocue.mockllm.checks import CheckResult
    from autocue.scenario.model import EmbeddingsSpec


@dataclass(frozen=True, slots=True)
class Position:
    step: Step
    turn: int
    prompt: str | None
    """The turn's user prompt when this is the first reply of a later turn (checked loosely)."""


class Playable:
    """A script ready to be played by many sessions."""

    __slots__ = ("_fingerprints", "checks_at", "embeddings", "first_prompt", "label", "match", "name", "positions",
                 "recording", "script",
                 "source", "tool_examples", "tool_hint", "tool_names", "warnings")

    def __init__(self, script: Script, *, name: str | None = None, warnings: list[str] | None = None,
                 recording: dict[str, Any] | None = None, label: str | None = None,
                 tool_hint: str | None = None, embeddings: EmbeddingsSpec | None = None,
                 match: str | None = None) -> None:
        self.script = script
        self.match = match
        """The scenario's ``server.match`` (None: not given)."""
        self._fingerprints: list[Fingerprint | None] | None = None
        self.name = name or script.name or (Path(script.source).stem if script.source else "script")
        self.label = label or repr(self.name)
        """How messages name it: its quoted ``name``, or what an embedding caller gives (the runner
        registers a run under an internal name and shows the scenario's own name and file)."""
        self.tool_hint = tool_hint
        """How to map a scripted tool the agent does not declare, for a caller that reports the
        session's warnings itself (the runner): said instead of the server's options, and the
        warning is not logged (None: the server's ``--profile`` / ``--strict-tools`` advice, logged)."""
        self.source = script.source
        self.warnings = list(warnings or [])
        self.recording = recording
        self.embeddings = embeddings
        """The scenario's ``server.embeddings`` (scripted vectors per input text), or None."""
        """What ``autocue record`` kept of the recorded session's first request (``server.recording``:
        api, model, system hash, tools, client key hash), or None; ``autocue.mockllm.choice`` reads it."""
        self.positions: list[Position] = []
        self.checks_at: dict[int, list[tuple[Check, int, int]]] = {}
        self.first_prompt: str | None = None
        names: dict[str, dict[str, Any]] = {}
        for t, turn in enumerate(script.turns):
            base = len(self.positions)
            if self.first_prompt is None and turn.prompt:
                self.first_prompt = turn.prompt
            for k, step in enumerate(turn.steps):
                self.positions.append(Position(step, t, turn.prompt if (k == 0 and t > 0) else None))
                if isinstance(step, ScriptedResponse):
                    for tc in step.tool_calls:
                        if tc.name not in names:
                            names[tc.name] = {} if callable(tc.arguments) else tc.arguments
            for c in turn.checks:
                at = base + min(max(c.before_step, 0), len(turn.steps))
                self.checks_at.setdefault(at, []).append((c, t, c.before_step))
        self.tool_names: list[str] = list(names)
        """Scenario tool names the script calls, in first-use order."""
        self.tool_examples = names
        """The arguments of each tool's first call (for mapping names through a profile)."""

    @property
    def total(self) -> int:
        return len(self.positions)

    def fingerprints(self) -> list[Fingerprint | None]:
        """The request recorded for each reply (None: none recorded), expanded once."""
        fps = self._fingerprints
        if fps is None:
            fps = self._fingerprints = expand(
                p.step.fingerprint if isinstance(p.step, ScriptedResponse) else None for p in self.positions)
        return fps

    def where(self, index: int) -> str:
        """``reply 3 (turn 1, step 3)`` for the reply at ``index``."""
        turn = self.positions[index].turn
        first = next(i for i, p in enumerate(self.positions) if p.turn == turn)
        return f"reply {index + 1} (turn {turn + 1}, step {index - first + 1})"

    def describe_at(self, index: int) -> str:
        return describe_step(self.positions[index].step) if 0 <= index < len(self.positions) else ""

    def coverage_steps(self) -> list[dict[str, Any]]:
        """Each scripted reply's ``file:line`` (None: not known) and DSL form, for suite coverage."""
        return [{"at": p.step.source if isinstance(p.step, ScriptedResponse) else None,
                 "step": describe_step(p.step)} for p in self.positions]


@dataclass(slots=True)
class Taken:
    """The reply at ``index`` was taken (the cursor has moved past it)."""

    index: int
    position: Position


@dataclass(slots=True)
class ChecksFailed:
    results: list[CheckResult]


@dataclass(slots=True)
class Exhausted:
    consumed: int


class Session:
    """One client's cursor through a playable (keyed by API key / path prefix + scenario)."""

    def __init__(self, sid: str, key: str, playable: Playable, selected_by: str, *,
                 journal_size: int = JOURNAL_CAP) -> None:
        self.id = sid
        self.key = key
        self.playable = playable
        self.selected_by = selected_by
        self.profile: Profile | None = None
        self.profile_source = ""
        self.profile_resolved = False
        self.lock = threading.Lock()
        self.pos = 0
        self.requests = 0
        self.side_calls = 0
        self.exhausted = 0
        self.assertions: list[CheckResult] = []
        self.errors: list[str] = []
        self.warnings: list[str] = []
        self.divergences: list[str] = []
        """``--match loose``: how requests differed from the recorded ones (they were served)."""
        self.mismatch = ""
        """The first request ``--match strict`` refused (its message), else empty: the runner ends the run there."""
        self.conversation: Conversation | None = None
        """The last request compared with its recording (``--match``): the next reads only new messages."""
        self.journal = Journal(journal_size)
        """The session's requests (the last ``journal_size``), with the answer each got."""
        self._checked: set[int] = set()
        self.last_used = 0.0
        """``time.monotonic()`` of the session's last request (``MockState`` expires by it)."""
        self.last_reply_at: float | None = None
        """``time.monotonic()`` when the latest scripted reply was answered (None: none yet)."""
        cov = suite_coverage.COLLECTOR
        pos = playable.script.pos
        self.coverage = None if cov is None else cov.session(sid, playable.script.name or playable.name,
                                                              pos.file if pos else None,
                                                              playable.coverage_steps())
        """What the session served, for ``--autocue-coverage`` (None: coverage is off)."""

    def take(self, req: Incoming, workspace: Path) -> Taken | ChecksFailed | Exhausted:
        pl = self.playable
        with self.lock:
            self.requests += 1
            pos = self.pos
            checks = pl.checks_at.get(pos)
            if checks is not None and pos not in self._checked:
                from autocue.mockllm.checks import run_checks  # loaded by the first script that has checks

                results = run_checks(checks, pos, req, workspace, self.requests)
                self.assertions.extend(results)
                failed = [r for r in results if not r.passed]
                if failed:
                    return ChecksFailed(failed)
                self._checked.add(pos)
            if pos >= pl.total:
                self.exhausted += 1
                return Exhausted(pos)
            self.pos = pos + 1
            position = pl.positions[pos]
        if position.prompt is not None:
            self._check_prompt(req, position)
        return Taken(pos, position)

    def give_back(self, index: int) -> None:
        """Leave reply ``index`` unplayed again (when it is the last one taken)."""
        with self.lock:
            if self.pos == index + 1:
                self.pos = index

    def _check_prompt(self, req: Incoming, position: Position) -> None:
        assert position.prompt is not None
        last = req.last_user_text()
        if " ".join(position.prompt.split()) not in " ".join(last.split()):
            self.warnings.append(
                f"turn {position.turn + 1} expects the user prompt {position.prompt[:80]!r}, but the request's "
                f"last message is {('user text ' + repr(last[:80])) if last else 'not a user prompt'}"
            )

    def note(self, req: Incoming, status: int, outcome: str, reply: int | None) -> None:
        """Journal a request with the answer it got (``reply``: 1-based scripted reply, or None)."""
        with self.lock:
            self.journal.add(req, status, outcome, reply)
            if reply is not None:
                self.last_reply_at = time.monotonic()

    def requests_json(self) -> dict[str, Any]:
        """The journal with request bodies (``GET /_autocue/sessions/{key}/requests``)."""
        with self.lock:
            return {"session": self.id, "key": self.key, "scenario": self.playable.name,
                    "count": self.journal.count, "dropped": self.journal.dropped, "cap": self.journal.cap,
                    "requests": self.journal.to_json(body=True)}

    def status(self) -> dict[str, Any]:
        pl = self.playable
        with self.lock:
            pos = self.pos
            return {
                "session": self.id,
                "key": self.key,
                "scenario": pl.name,
                "idle": round(max(0.0, time.monotonic() - self.last_used), 3),
                "source": pl.source,
                "selected_by": self.selected_by,
                "profile": self.profile.name if self.profile is not None else None,
                "profile_source": self.profile_source or None,
                "consumed": pos,
                "remaining": pl.total - pos,
                "total": pl.total,
                "requests": self.requests,
                "side_calls": self.side_calls,
                "exhausted": self.exhausted,
                "last": pl.describe_at(pos - 1) or None,
                "next": pl.describe_at(pos) or None,
                "assertions": [r.to_json() for r in self.assertions],
                "assertions_failed": sum(1 for r in self.assertions if not r.passed),
                "errors": list(self.errors),
                "warnings": list(self.warnings),
                "divergences": list(self.divergences),
                "journal": self.journal.to_json(body=False),
                "journal_dropped": self.journal.dropped,
            }
