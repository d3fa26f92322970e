"""The playbook DSL: ``when``, ``call``, ``say``, ``think``, ``parallel``, ``fail``, ``subagent``.

Each action but ``think`` is one whole model reply; ``think`` adds a thinking block to the
next reply. Every builder compiles to the Script model (``autocue.script``), so the same
turns can be played in-process or over HTTP.

    when("Propose a plan", [
        call("plan_propose", {"title": "Cook"}).then(lambda r: ids.append(r.text)),
        say("Plan created."),
    ])

``subagent(TASK_ID, [...])`` placed after the ``call("task", ...)`` that starts it scripts that
child's replies (it is not a reply of the parent).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from autocue.extensions.ui import CANCELLED
from autocue.llm.types import StopReason, TextContent, ThinkingContent, Usage
from autocue.script.model import Block, ErrorKind, ScriptedError, ScriptedResponse, ScriptedToolCall, Step, Turn

Params: TypeAlias = dict[str, Any] | Callable[[], dict[str, Any]] | None
ThenCallback: TypeAlias = Callable[[Any], Any]
FailKind: TypeAlias = Literal["error", "overloaded", "rate_limit", "length", "aborted", "context_overflow"]


CANCEL = CANCELLED
"""The user cancelled a UI dialog (a ``mock_ui`` value or return value); the same object as
``autocue.extensions.ui.CANCELLED``."""


def _usage(usage: Usage | dict[str, int] | None) -> Usage | None:
    if usage is None or isinstance(usage, Usage):
        return usage
    allowed = {"input", "output", "cache_read", "cache_write"}
    unknown = set(usage) - allowed - {"total_tokens"}
    if unknown:
        raise TypeError(f"usage= got unknown keys {sorted(unknown)}; use {sorted(allowed)}")
    u = Usage.of(*(int(usage.get(k, 0)) for k in ("input", "output", "cache_read", "cache_write")))
    if "total_tokens" in usage:
        u.total_tokens = int(usage["total_tokens"])
    return u


class Action:
    """Base class of playbook actions."""

    usage: Usage | None = None

    def describe(self) -> str:
        raise NotImplementedError

    def __repr__(self) -> str:
        return self.describe()


class CallAction(Action):
    """The model calls a tool. ``params`` may be a dict or a zero-argument callable (late-bound)."""

    def __init__(self, tool: str, params: Params = None, *, id: str | None = None, usage: Any = None) -> None:
        if not isinstance(tool, str) or not tool:
            raise TypeError(f"call() needs a tool name, got {tool!r}")
        if params is not None and not isinstance(params, dict) and not callable(params):
            raise TypeError(f"call({tool!r}, ...): params must be a dict or a zero-argument callable, got {params!r}")
        self.tool = tool
        self.params: dict[str, Any] | Callable[[], dict[str, Any]] = params if params is not None else {}
        self.id = id
        self.usage = _usage(usage)
        self.callback: ThenCallback | None = None

    def then(self, callback: ThenCallback) -> CallAction:
        """Run ``callback(ToolResultRecord)`` once the tool has finished (sync or async)."""
        self.callback = callback
        return self

    def to_block(self) -> ScriptedToolCall:
        return ScriptedToolCall(self.tool, self.params, self.id, self.callback)

    def describe(self) -> str:
        return self.to_block().describe()


class SayAction(Action):
    def __init__(self, text: str, *, usage: Any = None, stop_reason: StopReason = "stop") -> None:
        self.text = text
        self.usage = _usage(usage)
        self.stop_reason: StopReason = stop_reason

    def describe(self) -> str:
        return f"say({_short(self.text)})"


class ThinkAction(Action):
    def __init__(self, text: str, *, signature: str | None = None) -> None:
        self.text = text
        self.signature = signature

    def describe(self) -> str:
        return f"think({_short(self.text)})"


class ParallelAction(Action):
    """One reply holding several blocks: tool calls (run concurrently), and optionally text."""

    def __init__(self, items: Sequence[CallAction | SayAction | ThinkAction], *, usage: Any = None) -> None:
        if not items:
            raise TypeError("parallel() needs at least one call()")
        for it in items:
            if not isinstance(it, (CallAction, SayAction, ThinkAction)):
                raise TypeError(f"parallel() takes call(), say() and think() items, got {it!r}")
        self.items = list(items)
        self.usage = _usage(usage)

    def describe(self) -> str:
        return "parallel(" + ", ".join(i.describe() for i in self.items) + ")"


class FailAction(Action):
    """A failed model call (``kind`` ``error``, ``overloaded``, ``rate_limit``, ``aborted``,
    ``context_overflow``), or a reply cut short (``length``)."""

    def __init__(
        self,
        message: str,
        kind: FailKind = "error",
        *,
        status: int | None = None,
        retry_after: float | None = None,
        usage: Any = None,
    ) -> None:
        kinds = ("error", "overloaded", "rate_limit", "length", "aborted", "context_overflow")
        if kind not in kinds:
            raise ValueError(f"fail(kind={kind!r}): kind must be one of {', '.join(kinds)}")
        self.message = message
        self.kind: FailKind = kind
        self.status = status
        self.retry_after = retry_after
        self.usage = _usage(usage)

    def describe(self) -> str:
        return f"fail({_short(self.message)}, kind={json.dumps(self.kind)})"


class SubagentAction(Action):
    """The replies of the subagent that runs task ``task_id`` (not a reply of the parent)."""

    def __init__(self, task_id: str, actions: Sequence[Action]) -> None:
        if not isinstance(task_id, str) or not task_id:
            raise TypeError(f"subagent() needs the task id first, got {task_id!r}")
        if isinstance(actions, Action):
            actions = [actions]
        for i, a in enumerate(actions):
            if not isinstance(a, Action) or isinstance(a, SubagentAction):
                raise TypeError(f"subagent({task_id!r}): action {i + 1} is {a!r}; use call(), say(), think(), "
                                "parallel() or fail()")
        self.task_id = task_id
        self.actions = list(actions)

    def describe(self) -> str:
        return f"subagent({json.dumps(self.task_id)}, [{', '.join(a.describe() for a in self.actions)}])"


def subagent(task_id: str, actions: Sequence[Action]) -> SubagentAction:
    """Script the replies of the subagent running task ``task_id``; place it after the ``call("task", ...)``."""
    return SubagentAction(task_id, actions)


def call(tool: str, params: Params = None, *, id: str | None = None, usage: Any = None) -> CallAction:
    """The model calls ``tool`` with ``params`` (a dict, or a callable resolved when played)."""
    return CallAction(tool, params, id=id, usage=usage)


def say(text: str, *, usage: Any = None) -> SayAction:
    """The model answers with ``text`` and stops (stop reason ``stop``)."""
    return SayAction(text, usage=usage)


def think(text: str, *, signature: str | None = None) -> ThinkAction:
    """Add a thinking block to the next reply."""
    return ThinkAction(text, signature=signature)


def parallel(*items: CallAction | SayAction | ThinkAction, usage: Any = None) -> ParallelAction:
    """One reply with several tool calls (and optionally text/thinking), in this order."""
    return ParallelAction(items, usage=usage)


def fail(
    message: str,
    kind: FailKind = "error",
    *,
    status: int | None = None,
    retry_after: float | None = None,
    usage: Any = None,
) -> FailAction:
    """A failed model call, so retry and compaction paths are testable."""
    return FailAction(message, kind, status=status, retry_after=retry_after, usage=usage)


@dataclass
class TurnSpec:
    """One ``when()``: the prompt and the model's replies for that turn only."""

    prompt: str
    actions: list[Action] = field(default_factory=list)

    def compile(self) -> Turn:
        steps: list[Step] = [*compile_actions(self.actions)]
        return Turn(self.prompt, steps)

    def subagent_scripts(self) -> dict[str, list[Step]]:
        """The replies of each subagent scripted in this turn, by task id."""
        out: dict[str, list[Step]] = {}
        for a in self.actions:
            if isinstance(a, SubagentAction):
                out.setdefault(a.task_id, []).extend(compile_actions(a.actions))
        return out


def when(prompt: str, actions: Sequence[Action]) -> TurnSpec:
    """Send ``prompt`` as the user prompt and feed ``actions`` as the model's replies for this turn."""
    if not isinstance(prompt, str):
        raise TypeError(f"when() needs the prompt text first, got {prompt!r}")
    if isinstance(actions, Action):
        actions = [actions]
    task_started = False
    for i, a in enumerate(actions):
        if not isinstance(a, Action):
            raise TypeError(f"when({_short(prompt)}): action {i + 1} is {a!r}; use call(), say(), think(), "
                            "parallel(), fail() or subagent()")
        if isinstance(a, SubagentAction) and not task_started:
            raise TypeError(f"when({_short(prompt)}): action {i + 1} {a.describe()[:60]} comes before any "
                            'call("task", ...); place it after the call that starts the subagent')
        task_started = task_started or _starts_task(a)
    return TurnSpec(prompt, list(actions))


def _starts_task(a: Action) -> bool:
    if isinstance(a, CallAction):
        return a.tool == "task"
    if isinstance(a, ParallelAction):
        return any(isinstance(it, CallAction) and it.tool == "task" for it in a.items)
    return False


def compile_actions(actions: Sequence[Action]) -> list[ScriptedResponse]:
    """Turn actions into scripted replies (``think`` joins the next reply)."""
    out: list[ScriptedResponse] = []
    thinking: list[Block] | None = None
    for a in actions:
        if isinstance(a, SubagentAction):  # the child's replies, played by its own provider
            continue
        if isinstance(a, ThinkAction):
            if thinking is None:
                thinking = []
            thinking.append(ThinkingContent(a.text, a.signature))
            continue
        blocks: list[Block] = thinking if thinking is not None else []
        thinking = None
        # Labels are derived from the blocks on demand (ScriptedResponse.describe), except where
        # the DSL form differs from what the blocks show.
        resp = ScriptedResponse(blocks, None, a.usage)
        if isinstance(a, CallAction):
            blocks.append(a.to_block())
        elif isinstance(a, SayAction):
            blocks.append(TextContent(a.text))
            resp.stop_reason = a.stop_reason
        elif isinstance(a, ParallelAction):
            for it in a.items:
                if isinstance(it, CallAction):
                    blocks.append(it.to_block())
                elif isinstance(it, SayAction):
                    blocks.append(TextContent(it.text))
                else:
                    blocks.append(ThinkingContent(it.text, it.signature))
        elif isinstance(a, FailAction):
            if a.kind == "length":
                blocks.append(TextContent(a.message))
                resp.stop_reason = "length"
                resp.label = a.describe()
            else:
                kind: ErrorKind = a.kind
                resp.error = ScriptedError(a.message, kind, a.status, a.retry_after)
        out.append(resp)
    if thinking:
        out.append(ScriptedResponse(thinking))
    return out


def _short(text: str, limit: int = 60) -> str:
    if len(text) > limit:
        text = text[:limit] + "..."
    return json.dumps(text, ensure_ascii=False)
