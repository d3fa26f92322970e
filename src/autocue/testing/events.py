"""``TestEvents``: every event of a test run, plus records and query helpers for assertions.

The collector listens to the real session's events (it is a ``subscribe()`` listener), so what
it records is what the runtime did: blocked calls come from the hook's structural result,
error flags from the tool-result messages. ``.then()`` callbacks run from here, after the
tool finished and before the model is called again.
"""

from __future__ import annotations

import inspect
import traceback
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from autocue.agent.events import ToolExecutionEndEvent
from autocue.llm.types import TextContent
from autocue.testing.errors import HarnessError
from autocue.testing.playbook import Playbook
from autocue.testing.records import HarnessWarning, ToolCallRecord, ToolResultRecord, UICallRecord


@dataclass
class ToolFailure:
    """A real tool raised during a turn (reported after the turn when ``propagate_errors``)."""

    step: int
    turn: int
    tool_name: str
    error: BaseException

    def describe(self) -> str:
        tb = "".join(traceback.format_exception(self.error)).rstrip()
        return (
            f"Error during tool execution at playbook step {self.step} (turn {self.turn}, "
            f'call "{self.tool_name}"): {type(self.error).__name__}: {self.error}\n\n{tb}\n\n'
            "This error was raised by the real tool, not by the playbook. To let the model see it\n"
            "as an error result instead of failing the test, pass propagate_errors=False."
        )


@dataclass
class TestEvents:
    """What happened in a run. ``all`` holds every session event in order."""

    __test__ = False  # not a pytest test class

    all: list[Any] = field(default_factory=list)
    tool_calls: list[ToolCallRecord] = field(default_factory=list)
    tool_results: list[ToolResultRecord] = field(default_factory=list)
    messages: list[Any] = field(default_factory=list)
    ui: list[UICallRecord] = field(default_factory=list)
    warnings: list[HarnessWarning] = field(default_factory=list)
    subagents: dict[str, TestEvents] = field(default_factory=dict)
    """The events of each subagent, by task id (see ``subagent``)."""
    all_events: bool = False
    """Whether every event type is built and recorded (``create_test_session(all_events=True)``);
    otherwise deltas and turn/run boundaries are there only when something else reads them."""

    def subagent(self, task_id: str) -> TestEvents:
        """The events of the subagent that ran task ``task_id`` (all its runs, in order)."""
        ev = self.subagents.get(task_id)
        if ev is None:
            known = ", ".join(sorted(self.subagents)) or "none"
            raise KeyError(f"no subagent ran task {task_id!r}; subagents seen: {known}")
        return ev

    def tool_calls_for(self, name: str) -> list[ToolCallRecord]:
        return [c for c in self.tool_calls if c.tool_name == name]

    def blocked_calls(self) -> list[ToolCallRecord]:
        return [c for c in self.tool_calls if c.blocked]

    def tool_results_for(self, name: str) -> list[ToolResultRecord]:
        return [r for r in self.tool_results if r.tool_name == name]

    def ui_calls_for(self, method: str) -> list[UICallRecord]:
        return [u for u in self.ui if u.method == method]

    def tool_sequence(self) -> list[str]:
        """Tool names in the order the model called them."""
        return [c.tool_name for c in self.tool_calls]

    def ttsr_triggers(self) -> list[Any]:
        """The ``TtsrTriggeredEvent`` of each reply a TTSR rule cut (``.rule``, ``.cut_text``, ``.match``)."""
        return [e for e in self.all if getattr(e, "type", None) == "ttsr_triggered"]

    def of_type(self, event_type: str) -> list[Any]:
        """The recorded events of ``event_type``. Asking for a type that is built only when read
        (``message_update``, ``turn_*``, ``agent_*``) when none was recorded is an error that says
        how to record them, never a silent empty list."""
        found = [e for e in self.all if getattr(e, "type", None) == event_type]
        if not found and event_type in NOT_READ and not self.all_events:
            raise HarnessError(
                f"no {event_type!r} events were recorded: the agent builds {event_type} events only when "
                "something reads them (a listener, an extension handler, a TTSR rule); pass "
                "create_test_session(all_events=True) to build and record every event type")
        return found

    def warn(self, message: str) -> None:
        w = HarnessWarning(message)
        self.warnings.append(w)
        self.all.append(w)


NOT_READ = frozenset(("message_update", "turn_start", "turn_end", "agent_start", "agent_end"))


class EventCollector:
    """Feeds ``TestEvents`` from session events; call it with each event."""

    def __init__(
        self,
        events: TestEvents,
        playbook: Playbook,
        *,
        is_mocked: Callable[[str], bool],
        known_tools: Callable[[], list[str]],
    ) -> None:
        self.events = events
        self.playbook = playbook
        self.is_mocked = is_mocked
        self.known_tools = known_tools
        self.failures: list[ToolFailure] = []
        self.unknown_tools: list[tuple[int, int, str]] = []
        self._open: dict[str, ToolCallRecord] = {}

    def observes(self, event_type: str) -> bool:
        """What the records are made of: not the streamed deltas (``message_update``) nor the turn and run
        boundaries (``turn_*``, ``agent_*``), so the agent builds those only when a listener or an
        extension reads them (they are recorded in ``all`` then)."""
        return self.events.all_events or event_type not in NOT_READ

    def __call__(self, ev: Any) -> Awaitable[None] | None:
        events = self.events
        events.all.append(ev)
        t = ev.type
        if t == "message_update":  # the most frequent event: nothing more to record
            return None
        if t == "message_end":
            events.messages.append(ev.message)
        elif t == "tool_execution_start":
            played = self.playbook.calls.get(ev.tool_call_id)
            step, turn = (played[0], played[1]) if played else (self.playbook.consumed, self.playbook.current_turn)
            rec = ToolCallRecord(step, turn, ev.tool_name, ev.args, tool_call_id=ev.tool_call_id)
            self._open[ev.tool_call_id] = rec
            events.tool_calls.append(rec)
        elif t == "tool_execution_end":
            return self._end(ev)
        return None

    def _end(self, ev: ToolExecutionEndEvent) -> Awaitable[None] | None:
        rec = self._open.pop(ev.tool_call_id, None)
        played = self.playbook.calls.get(ev.tool_call_id)
        blocked = ev.blocked
        result = ev.result
        content = result.content  # the tool-result message's own list (records mirror the message)
        if len(content) == 1 and type(content[0]) is TextContent:  # the common case, without a generator
            text = content[0].text  # type: ignore[union-attr]
        else:
            text = ToolResultRecord.text_of(content)
        if rec is None:
            step, turn = (played[0], played[1]) if played else (self.playbook.consumed, self.playbook.current_turn)
        else:
            step, turn = rec.step, rec.turn
            if blocked:
                rec.blocked = True
                rec.block_reason = text
        mocked = not blocked and self.is_mocked(ev.tool_name)
        record = ToolResultRecord(
            step, turn, ev.tool_name, ev.tool_call_id, text, content, bool(ev.is_error),
            result.details, mocked, blocked,
        )
        self.events.tool_results.append(record)
        if ev.is_error and not blocked and ev.tool_name not in self.known_tools():
            self.unknown_tools.append((step, turn, ev.tool_name))
        error = ev.error
        if error is not None and not mocked:
            self.failures.append(ToolFailure(step, turn, ev.tool_name, error))
        if played is not None and played[2] is not None:
            out = played[2](record)
            if inspect.isawaitable(out):
                return _await(out)
        return None

    def detach(self) -> None:
        """Forget the owning ``TestSession``'s callbacks once it is disposed (no reference cycle
        keeps the session, and the run it recorded, alive after the test lets go of it)."""
        self.is_mocked = never_mocked
        self.known_tools = list

    def record_ui(self, method: str, args: list[Any], value: Any) -> None:
        rec = UICallRecord(method, args, value)
        self.events.ui.append(rec)
        self.events.all.append(rec)


def never_mocked(name: str) -> bool:
    """The detached predicate: after its session is disposed, no tool counts as mocked."""
    return False


async def _await(aw: Awaitable[Any]) -> None:
    await aw
