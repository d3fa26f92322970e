"""TTSR, time-traveling streamed rules (seed 002): a rule whose trigger shows up in a streaming
reply cuts the reply there and asks again with the rule injected.

While a reply streams, ``TtsrManager`` checks the buffer of each rule's ``scope`` (``text``,
``thinking`` or ``tool_args``) on every delta. On a match it aborts the stream; the session's
run loop then drops the partial reply from the context (it stays in the session file as a
``custom`` entry ``ttsr_triggered`` with the rule and the cut text, never as a message),
injects the rule text as a system reminder (a ``custom`` message ``ttsr_reminder``, in the
model's context), fires ``ttsr_triggered`` to extensions and listeners, and continues.

``repeat_mode="once"`` fires a rule at most once per session; ``"repeat-after-gap"`` lets it
fire again once ``repeat_gap`` messages were added since it last fired. Rules come from
settings (``ttsrRules``), rule files (``.autocue/rules/*.md`` and ``$AUTOCUE_DIR/rules/*.md``:
front matter ``name``, ``trigger``, ``repeatMode``, ``repeatGap``, ``scope``; the body is the
text), ``AgentSession(ttsr_rules=...)`` and ``ExtensionAPI.add_ttsr_rule``.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal

from autocue.agent.agent import Agent
from autocue.casing import snake_keys
from autocue.extensions.runner import ExtensionRunner
from autocue.llm.types import AssistantMessage, TextContent, ThinkingContent
from autocue.session.errors import SettingsError
from autocue.session.event_dispatch import EventDispatch
from autocue.session.manager import SessionManager
from autocue.session.messages import CustomMessage
from autocue.session.resources import load_markdown_files, parse_front_matter

RepeatMode = Literal["once", "repeat-after-gap"]
Scope = Literal["text", "thinking", "tool_args"]
TTSR_ENTRY = "ttsr_triggered"
REMINDER_TYPE = "ttsr_reminder"
MAX_TRIGGERS_PER_PROMPT = 8
"""A reply that keeps matching is not asked again forever: after this many cuts it stands."""

_DELTA_SCOPE: dict[str, Scope] = {"text_delta": "text", "thinking_delta": "thinking", "toolcall_delta": "tool_args"}


@dataclass(slots=True)
class TtsrRule:
    """A rule: when ``trigger`` (a regex, or a compiled pattern) matches the streaming ``scope``,
    the reply is cut and ``text`` is injected before asking again."""

    name: str
    trigger: str | re.Pattern[str]
    text: str
    repeat_mode: RepeatMode = "once"
    repeat_gap: int = 0
    scope: Scope = "text"
    pattern: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        where = f"TTSR rule {self.name!r}"
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"TTSR rule: name must be a non-empty string, got {self.name!r}")
        if not isinstance(self.text, str) or not self.text.strip():
            raise ValueError(f"{where}: text must be a non-empty string")
        if self.repeat_mode not in ("once", "repeat-after-gap"):
            raise ValueError(f"{where}: repeat_mode must be 'once' or 'repeat-after-gap', got {self.repeat_mode!r}")
        if isinstance(self.repeat_gap, bool) or not isinstance(self.repeat_gap, int) or self.repeat_gap < 0:
            raise ValueError(f"{where}: repeat_gap must be a whole number >= 0, got {self.repeat_gap!r}")
        if self.scope not in ("text", "thinking", "tool_args"):
            raise ValueError(f"{where}: scope must be 'text', 'thinking' or 'tool_args', got {self.scope!r}")
        try:
            self.pattern = re.compile(self.trigger)  # a compiled pattern is returned as it is
        except (re.error, TypeError) as e:
            raise ValueError(f"{where}: trigger {self.trigger!r} is not a regular expression ({e})") from None

    @staticmethod
    def from_dict(d: Any, where: str) -> TtsrRule:
        """A rule from ``{name, trigger, text, repeatMode?, repeatGap?, scope?}`` (snake_case works too)."""
        if isinstance(d, TtsrRule):
            return d
        if not isinstance(d, dict):
            raise ValueError(f"{where}: a TTSR rule must be an object {{name, trigger, text}}, got {json.dumps(d)}")
        d = snake_keys(d, ("repeat_mode", "repeat_gap"))
        unknown = set(d) - {"name", "trigger", "text", "repeat_mode", "repeat_gap", "scope"}
        if unknown:
            raise ValueError(f"{where}: unknown key(s) {sorted(unknown)}; use name, trigger, text, repeatMode, "
                             "repeatGap, scope")
        for k in ("name", "trigger", "text"):
            if not isinstance(d.get(k), str):
                raise ValueError(f"{where}: {k} must be a string, got {json.dumps(d.get(k))}")
        try:
            return TtsrRule(
                d["name"], d["trigger"], d["text"], d.get("repeat_mode", "once"),  # type: ignore[arg-type]
                d.get("repeat_gap", 0), d.get("scope", "text"),  # type: ignore[arg-type]
            )
        except ValueError as e:
            raise ValueError(f"{where}: {e}") from None


@dataclass(slots=True)
class TtsrTriggeredEvent:
    """A rule cut a streaming reply (to extensions as ``ttsr_triggered``, and to listeners)."""

    rule: TtsrRule
    cut_text: str
    """What had streamed in the rule's scope, up to the end of the match (the same for any chunk size)."""
    match: str
    entry_id: str | None = None
    type: ClassVar[Literal["ttsr_triggered"]] = "ttsr_triggered"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "rule": self.rule.name, "scope": self.rule.scope, "match": self.match,
                "cutText": self.cut_text}


def rules_from_settings(raw: Any, source: str) -> list[TtsrRule]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise SettingsError(f"{source}: ttsrRules must be a list of rules, got {json.dumps(raw)}")
    try:
        return as_rules(raw, f"{source}: ttsrRules")
    except ValueError as e:
        raise SettingsError(str(e)) from None


def load_rule_file(path: Path) -> TtsrRule:
    meta, body = parse_front_matter(path.read_text(encoding="utf-8"), str(path))
    meta.setdefault("name", path.stem)
    meta["text"] = body.strip()
    return TtsrRule.from_dict(meta, str(path))


def load_rule_files(cwd: str, agent_dir: str | os.PathLike[str] | None = None) -> tuple[list[TtsrRule], list[str]]:
    """Rules of ``$AUTOCUE_DIR/rules/*.md`` then ``<cwd>/.autocue/rules/*.md``; broken files are reported."""
    return load_markdown_files(cwd, agent_dir, "rules", load_rule_file)


class TtsrManager:
    """The rules of one session and the cut-and-retry of a matching reply (built with the
    session's agent, extension runner, session manager and events)."""

    def __init__(
        self, rules: Iterable[TtsrRule] = (), *, agent: Agent, runner: ExtensionRunner,
        session_manager: SessionManager, events: EventDispatch,
    ) -> None:
        self._agent = agent  # (the agent holds on_agent_event: the session's dispose unsubscribes it)
        self._runner = runner
        self._sm = session_manager
        self._events = events
        self.own: list[TtsrRule] = list(rules)
        self.rules: list[TtsrRule] = list(self.own)
        self.diagnostics: list[str] = []
        self.pending: TtsrTriggeredEvent | None = None
        """The trigger that cut the streaming reply, until ``retry`` records it (its ``entry_id`` then)."""
        self._fired_at: dict[str, int] = {}
        self._triggers_this_prompt = 0
        self.triggered: list[TtsrTriggeredEvent] = []
        self._raw_args = ""
        """The streamed JSON of the reply's tool-call arguments so far (``tool_args`` scope)."""

    def add_rule(self, rule: TtsrRule | dict[str, Any]) -> TtsrRule:
        r = TtsrRule.from_dict(rule, "add_ttsr_rule")
        self.own.append(r)
        self.refresh()
        return r

    def refresh(self) -> None:
        ext: list[TtsrRule] = []
        for i, raw in enumerate(self._runner.ttsr_rules()):
            try:
                ext.append(TtsrRule.from_dict(raw, f"extension TTSR rule [{i}]"))
            except ValueError as e:
                if str(e) not in self.diagnostics:
                    self.diagnostics.append(str(e))
        self.rules = [*self.own, *ext]

    def begin_prompt(self) -> None:
        self._triggers_this_prompt = 0

    # ------------------------------------------------------------------ streaming check (sync, per delta)
    def observes(self, event_type: str) -> bool:
        """What ``on_agent_event`` reads: the streamed deltas, while there are rules (a session without
        rules gets its replies whole)."""
        return event_type == "message_update" and bool(self.rules)

    def on_agent_event(self, ev: Any) -> None:
        if not self.rules or ev.type != "message_update" or self.pending is not None:
            if ev.type == "message_start":
                self._raw_args = ""
            return
        ame = ev.assistant_message_event
        scope = _DELTA_SCOPE.get(ame.type)
        if scope is None:
            return
        if scope == "tool_args":
            self._raw_args += ame.delta
        if self._triggers_this_prompt >= MAX_TRIGGERS_PER_PROMPT:
            return
        buffer: str | None = None
        for rule in self.rules:
            if rule.scope != scope or not self._eligible(rule):
                continue
            if buffer is None:
                buffer = self._raw_args if scope == "tool_args" else _buffer(ev.message, scope)
            m = rule.pattern.search(buffer)
            if m is not None:
                self.pending = TtsrTriggeredEvent(rule, buffer[: m.end()], m.group(0))
                self._agent.abort(f"TTSR rule {rule.name} matched")
                return

    def _eligible(self, rule: TtsrRule) -> bool:
        at = self._fired_at.get(rule.name)
        return at is None or (
            rule.repeat_mode != "once" and len(self._agent.state.messages) - at >= rule.repeat_gap)

    def is_cut(self, message: Any) -> bool:
        """The aborted partial reply of a pending trigger (not persisted as a message)."""
        aborted_reply = getattr(message, "role", None) == "assistant" and message.stop_reason == "aborted"
        return self.pending is not None and aborted_reply

    # ------------------------------------------------------------------ after the cut (in the run loop)
    async def retry(self) -> bool:
        """Drop the cut reply, record it, inject the rule and continue; False when nothing is pending."""
        p = self.pending
        if p is None:
            return False
        self.pending = None
        agent, sm = self._agent, self._sm
        msgs = agent.state.messages
        last: Any = msgs[-1] if msgs else None
        if last is not None and last.role == "assistant" and last.stop_reason == "aborted":
            msgs.pop()
        self._triggers_this_prompt += 1
        rule = p.rule
        p.entry_id = sm.append_custom_entry(
            TTSR_ENTRY, {"rule": rule.name, "scope": rule.scope, "trigger": rule.pattern.pattern, "match": p.match,
                         "cutText": p.cut_text, "text": rule.text},
        )
        self.triggered.append(p)
        await self._runner.emit_async(p)
        await self._events.emit_session_event(p)
        reminder = CustomMessage(REMINDER_TYPE, f"<system-reminder>\n{rule.text}\n</system-reminder>", False,
                                 {"rule": rule.name})
        agent.append_message(reminder)
        sm.append_custom_message_entry(REMINDER_TYPE, reminder.content, False, reminder.details)
        self._fired_at[rule.name] = len(msgs)
        await agent.continue_()
        return True


def _buffer(message: AssistantMessage, scope: Scope) -> str:
    """What streamed in the ``text`` or ``thinking`` scope (``tool_args`` is buffered as it streams)."""
    if scope == "text":
        return "".join(b.text for b in message.content if isinstance(b, TextContent))
    return "".join(b.thinking for b in message.content if isinstance(b, ThinkingContent))


def as_rules(rules: Sequence[TtsrRule | dict[str, Any]], where: str) -> list[TtsrRule]:
    return [TtsrRule.from_dict(r, f"{where}[{i}]") for i, r in enumerate(rules)]


__all__ = [
    "MAX_TRIGGERS_PER_PROMPT", "REMINDER_TYPE", "TTSR_ENTRY", "TtsrManager", "TtsrRule", "TtsrTriggeredEvent",
    "as_rules", "load_rule_file", "load_rule_files", "rules_from_settings",
]
