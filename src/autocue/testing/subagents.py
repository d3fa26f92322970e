"""The harness's side of subagents: each task id's scripted replies, events and checks.

Per turn, ``subagent(TASK_ID, [...])`` actions give each task id a ``Playbook`` of its own
(the session's ``Subagents.provider_for`` seam hands the child its provider), and a child's
events go to ``t.events.subagent(TASK_ID)``. After the turn, exhaustion, leftovers, a script
whose subagent never started, and real tool failures in a child are reported naming the
subagent and its step.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from autocue.script.model import Step, Turn
from autocue.script.provider import ScriptedProvider
from autocue.session.subagent_types import AgentType
from autocue.testing.errors import HarnessError, PlaybookError, PlaybookNotConsumedError, ToolExecutionError
from autocue.testing.events import EventCollector, TestEvents
from autocue.testing.playbook import Playbook


@dataclass
class _Play:
    task_id: str
    playbook: Playbook
    collector: EventCollector
    scripted: bool
    started: int = 0


class SubagentScripts:
    """Plays ``subagent(...)`` scripts for one ``TestSession``."""

    def __init__(self, events: TestEvents, is_mocked: Callable[[str], bool], known_tools: Callable[[], list[str]]):
        self._events = events
        self._is_mocked = is_mocked
        self._known_tools = known_tools
        self._plays: dict[str, _Play] = {}
        self._prompt: str | None = None

    def begin_turn(self, prompt: str | None, scripts: dict[str, list[Step]]) -> None:
        self._prompt = prompt
        self._plays = {tid: self._play(tid, steps, True) for tid, steps in scripts.items()}

    def _play(self, tid: str, steps: list[Step], scripted: bool) -> _Play:
        events = self._events.subagents.setdefault(tid, TestEvents())
        pb = Playbook(ScriptedProvider(id_prefix=f"{tid}_call_"))
        pb.begin_turn(Turn(self._prompt, list(steps)))
        collector = EventCollector(events, pb, is_mocked=self._is_mocked, known_tools=self._known_tools)
        return _Play(tid, pb, collector, scripted)

    def detach(self) -> None:
        """Forget the owning ``TestSession``'s callbacks (no cycle keeps it alive after dispose)."""
        self._is_mocked = _never
        self._known_tools = list
        for play in self._plays.values():
            play.collector.detach()

    # ------------------------------------------------------------------ seams of Subagents
    def provider_for(self, task_id: str, agent_type: AgentType) -> ScriptedProvider:
        play = self._plays.get(task_id)
        if play is None:  # not scripted: its first model call is reported as exhaustion
            play = self._plays[task_id] = self._play(task_id, [], False)
        play.started += 1
        return play.playbook.provider

    def on_child(self, task_id: str, child: Any) -> None:
        session = getattr(child, "session", None)
        play = self._plays.get(task_id)
        if session is not None and play is not None:
            session.subscribe(play.collector)

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
            try:
                play.playbook.end_turn(strict=strict)
            except PlaybookError as e:
                problems.append(type(e)(f"{name}: {e}"))
        return problems


def _never(name: str) -> bool:
    return False


__all__ = ["SubagentScripts"]
