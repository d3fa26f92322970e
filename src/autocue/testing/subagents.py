"""The harness's side of subagents: each task id's scripted replies, events and checks.

Per turn, ``subagent(TASK_ID, [...])`` actions give each task id a ``Playbook`` of its own
(the session's ``Subagents.provider_for`` seam hands the child its provider), and a child's
events go to ``t.events.subagent(TASK_ID)``. After the turn, exhaustion, leftovers, a script
whose subagent never started, and real tool failures in a child are reported naming the
subagent and its step. A child process (``task.mode: process``) gets its replies as a
``--playbook`` file; its events arrive as JSON lines in ``t.events.subagent(TASK_ID).all``.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from autocue.llm.types import TextContent, ThinkingContent
from autocue.script.model import ScriptedResponse, ScriptedToolCall, Step, Turn
from autocue.script.provider import ScriptedProvider
from autocue.session.subagent_types import AgentType
from autocue.testing.errors import (
    HarnessError,
    PlaybookError,
    PlaybookExhaustedError,
    PlaybookNotConsumedError,
    ToolExecutionError,
)
from autocue.testing.events import EventCollector, TestEvents, never_mocked
from autocue.testing.playbook import Playbook


@dataclass
class _Play:
    task_id: str
    playbook: Playbook
    collector: EventCollector
    scripted: bool
    started: int = 0
    sent: int | None = None
    """Replies handed to a child process as its ``--playbook`` (None: the child runs in-process)."""
    played: int = 0
    exhausted: str | None = None

    def on_json(self, ev: dict[str, Any]) -> None:
        """An event line of a child process: recorded, and its replies counted."""
        self.collector.events.all.append(ev)
        if ev.get("type") != "message_end":
            return
        m = ev.get("message") or {}
        if m.get("role") != "assistant" or (m.get("stopReason") == "aborted" and not m.get("content")):
            return
        err = str(m.get("errorMessage") or "")
        if err.startswith("No more scripted responses"):
            self.exhausted = err
        else:
            self.played += 1


class SubagentScripts:
    """Plays ``subagent(...)`` scripts for one ``TestSession``."""

    def __init__(self, events: TestEvents, is_mocked: Callable[[str], bool], known_tools: Callable[[], list[str]]):
        self._events = events
        self._is_mocked = is_mocked
        self._known_tools = known_tools
        self._plays: dict[str, _Play] = {}
        self._prompt: str | None = None
        self._dir: Path | None = None
        """Where child processes' playbooks are written (removed by ``detach``)."""

    def begin_turn(self, prompt: str | None, scripts: dict[str, list[Step]]) -> None:
        self._prompt = prompt
        self._plays = {tid: self._play(tid, steps, True) for tid, steps in scripts.items()}

    def _play(self, tid: str, steps: list[Step], scripted: bool) -> _Play:
        events = self._events.subagents.setdefault(tid, TestEvents(all_events=self._events.all_events))
        pb = Playbook(ScriptedProvider(id_prefix=f"{tid}_call_"))
        pb.begin_turn(Turn(self._prompt, list(steps)))
        collector = EventCollector(events, pb, is_mocked=self._is_mocked, known_tools=self._known_tools)
        return _Play(tid, pb, collector, scripted)

    def detach(self) -> None:
        """Forget the owning ``TestSession``'s callbacks (no cycle keeps it alive after dispose)."""
        self._is_mocked = never_mocked
        self._known_tools = list
        for play in self._plays.values():
            play.collector.detach()
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None

    # ------------------------------------------------------------------ seams of Subagents
    def _start(self, task_id: str) -> _Play:
        play = self._plays.get(task_id)
        if play is None:  # not scripted: its first model call is reported as exhaustion
            play = self._plays[task_id] = self._play(task_id, [], False)
        play.started += 1
        return play

    def provider_for(self, task_id: str, agent_type: AgentType) -> ScriptedProvider:
        return self._start(task_id).playbook.provider

    def process_args(self, task_id: str) -> list[str]:
        """A child process plays the task's replies from ``--playbook FILE``."""
        play = self._start(task_id)
        steps = play.playbook.provider.clear()
        play.sent = (play.sent or 0) + len(steps)
        if self._dir is None:
            self._dir = Path(tempfile.mkdtemp(prefix="autocue-subagents-"))
        path = self._dir / f"{task_id}-{play.started}.json"
        path.write_text(json.dumps([_step_json(task_id, s) for s in steps]), encoding="utf-8")
        return ["--playbook", str(path)]

    def on_child(self, task_id: str, child: Any) -> None:
        play = self._plays.get(task_id)
        if play is None:
            return
        session = getattr(child, "session", None)
        if session is not None:
            session.subscribe(play.collector)
        listeners = getattr(child, "listeners", None)
        if listeners is not None:
            listeners.append(play.on_json)

    # ------------------------------------------------------------------ checks
    def end_turn(self, *, strict: bool, propagate_errors: bool) -> list[HarnessError]:
        problems: list[HarnessError] = []
        for tid, play in self._plays.items():
            name = f"Subagent {tid!r}"
            if play.started == 0:
                if strict:
                    steps = play.playbook.provider.clear()
                    problems.append(PlaybookNotConsumedError(
                        f"{name} was scripted with {len(steps)} reply(ies) but never started: no call(\"task\", ...) "
                        f"of this turn has a task with id {tid!r}."
                    ))
                continue
            if propagate_errors:
                problems += [ToolExecutionError(f"{name}: {f.describe()}") for f in play.collector.failures]
            if not play.scripted:
                problems.append(PlaybookError(
                    f"{name} was started by the task tool but this turn has no subagent({tid!r}, [...]) for it; "
                    "add one after the call(\"task\", ...)."
                ))
                continue
            if play.sent is not None:
                problems += _process_problems(name, play, strict)
                continue
            try:
                play.playbook.end_turn(strict=strict)
            except PlaybookError as e:
                problems.append(type(e)(f"{name}: {e}"))
        return problems


def _process_problems(name: str, play: _Play, strict: bool) -> list[HarnessError]:
    if play.exhausted is not None:
        return [PlaybookExhaustedError(
            f"{name} (a child process) asked for reply {play.played + 1}, but only {play.sent} "
            f"{'was' if play.sent == 1 else 'were'} scripted.\n"
            f"  {play.exhausted.splitlines()[0]}"
        )]
    if strict and play.played < (play.sent or 0):
        return [PlaybookNotConsumedError(
            f"{name} (a child process): playbook not fully consumed: it played {play.played} of {play.sent} "
            "scripted replies."
        )]
    return []


def _step_json(task_id: str, step: Step) -> dict[str, Any]:
    """One scripted reply in ``--playbook`` form (``autocue --mode rpc`` plays it in the child)."""
    if not isinstance(step, ScriptedResponse):
        raise HarnessError(
            f"subagent({task_id!r}, ...): a reply factory cannot be played by a child process (task.mode "
            "'process'); use call()/say()/think()/fail(), or run the subagent in-process"
        )
    if step.error is not None:
        e = step.error
        return {"error": e.message, "kind": e.kind, "status": e.status, "retry_after": e.retry_after}
    text = "".join(b.text for b in step.content if isinstance(b, TextContent))
    thinking = "".join(b.thinking for b in step.content if isinstance(b, ThinkingContent))
    calls = [{"name": b.name, "arguments": b.resolve(), **({"id": b.id} if b.id else {})}
             for b in step.content if isinstance(b, ScriptedToolCall)]
    return {k: v for k, v in (("text", text), ("thinking", thinking), ("tool_calls", calls)) if v}


__all__ = ["SubagentScripts"]
