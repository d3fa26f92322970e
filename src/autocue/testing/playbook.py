"""``Playbook``: plays ``when()`` turns through a ``ScriptedProvider``, one turn at a time.

Each turn's replies are loaded into the provider just before its prompt is sent, so a turn
can never eat the next turn's replies. After the turn, leftovers and exhaustion are turned
into ``PlaybookError``s that name the turn, the step and the actions in DSL form.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeAlias

from autocue.llm.types import AssistantMessage, ToolCall
from autocue.script.model import Step, Turn, describe_step
from autocue.script.provider import ScriptedProvider
from autocue.testing.dsl import Reply
from autocue.testing.errors import PlaybookExhaustedError, PlaybookNotConsumedError, hide_harness_frame

PlayedCall: TypeAlias = tuple[int, int, Any]
"""Where a tool call was scripted: ``(step, turn, then)``, ``then`` being its ``.then()`` callback or
None. A plain tuple: nearly free to build, and the GC stops tracking it when ``then`` is None."""


@dataclass(slots=True)
class _TurnState:
    index: int
    """1-based turn number."""
    turn: Turn
    first_step: int
    """Global 1-based step number of the turn's first reply."""
    played: int = 0
    exhausted_before: int = 0


@dataclass
class Playbook:
    """Consumption state of the scripted replies (``t.playbook``)."""

    provider: ScriptedProvider
    consumed: int = 0
    """Replies the agent has taken so far, over all turns."""
    skipped: int = 0
    """Replies left over in turns that ended early (only with ``auto_assert=False``)."""
    scripted: int = 0
    calls: dict[str, PlayedCall] = field(default_factory=dict)
    """Tool-call id → where it was scripted."""
    turn_count: int = 0
    _current: _TurnState | None = None
    _last: tuple[int, Step] | None = None

    def __post_init__(self) -> None:
        self.provider.on_played = self._on_played

    @property
    def remaining(self) -> int:
        """Scripted replies not (yet) taken: in the running turn, plus those skipped."""
        return self.skipped + self.provider.remaining

    @property
    def current_turn(self) -> int:
        return self._current.index if self._current else 0

    def step_of_current(self) -> int:
        return self.consumed

    # ------------------------------------------------------------------ turn lifecycle
    def begin_turn(self, turn: Turn) -> None:
        self.turn_count += 1
        left = self.provider.clear()
        self.skipped += len(left)
        self._current = _TurnState(
            self.turn_count, turn, self.consumed + 1, exhausted_before=len(self.provider.exhausted)
        )
        self.scripted += len(turn.steps)
        self.provider.extend(turn.steps)

    def end_turn(self, *, strict: bool) -> None:
        """Check the finished turn; raise on exhaustion (always) or leftovers (when strict)."""
        __tracebackhide__ = hide_harness_frame  # pytest: the message, without this frame and ``self = Playbook(...)``
        st = self._current
        assert st is not None, "end_turn() without begin_turn()"
        if len(self.provider.exhausted) > st.exhausted_before:
            raise PlaybookExhaustedError(self._exhausted_message(st))
        if self.provider.remaining:
            left = self.provider.clear()
            if strict:
                raise PlaybookNotConsumedError(self._leftover_message(st, left))
            self.skipped += len(left)

    def _on_played(self, step: Step, message: AssistantMessage) -> None:
        self.consumed += 1
        st = self._current
        turn = st.index if st else 0
        if st is not None:
            st.played += 1
        self._last = (self.consumed, step)
        # The n-th tool call of the message is the reply's n-th scripted call: its .then() callback
        then_of = step.then_of if isinstance(step, Reply) and step.thens else None
        calls = self.calls
        k = 0
        for b in message.content:
            if isinstance(b, ToolCall):
                calls[b.id] = (self.consumed, turn, then_of(k) if then_of is not None else None)
                k += 1

    # ------------------------------------------------------------------ diagnostics
    def _turn_label(self, st: _TurnState) -> str:
        prompt = st.turn.prompt or ""
        shown = prompt if len(prompt) <= 60 else prompt[:60] + "..."
        return f'turn {st.index} (when("{shown}"))'

    def _exhausted_message(self, st: _TurnState) -> str:
        last = f"\n  Last consumed: {describe_step(self._last[1])} at step {self._last[0]}" if self._last else ""
        return (
            f"Playbook exhausted in {self._turn_label(st)}: the agent asked the model for reply "
            f"{st.played + 1} of this turn, but only {len(st.turn.steps)} "
            f"{'was' if len(st.turn.steps) == 1 else 'were'} scripted.\n"
            f"  Consumed {self.consumed} action(s) in all.{last}\n\n"
            "  The agent called the model again after the turn's last scripted reply. This usually\n"
            "  means a tool call produced an unexpected result (an error, a blocked call, a retry),\n"
            "  or the turn is missing a final say(...)."
        )

    def _leftover_message(self, st: _TurnState, left: list[Step]) -> str:
        lines = [
            f"playbook not fully consumed: {len(left)} action{'s' if len(left) != 1 else ''} remaining",
            f"  In {self._turn_label(st)}: consumed {st.played} of {len(st.turn.steps)} action(s).",
            "  Remaining:",
        ]
        first = st.first_step + st.played
        for i, step in enumerate(left[:5]):
            lines.append(f"    - step {first + i}: {describe_step(step)}")
        if len(left) > 5:
            lines.append(f"    ... +{len(left) - 5} more")
        lines.append("")
        lines.append("  The agent stopped before all of the turn's replies were used. This usually means")
        lines.append("  a tool was blocked by a hook or returned early, or a reply said text too soon.")
        lines.append("  Pass auto_assert=False to skip leftovers (they are counted in t.playbook.remaining).")
        return "\n".join(lines)
