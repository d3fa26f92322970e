"""The playbook DSL: ``when``, ``call``, ``say``, ``think``, ``parallel``, ``fail``, ``subagent``.

``call``, ``say``, ``parallel`` and ``fail`` each build one whole model reply: a ``Reply``, which
is the Script model's own ``ScriptedResponse`` (played as it is, in-process or over HTTP) plus
how it was written and its ``.then`` callbacks, which only the harness reads. ``think`` is a
prefix: its thinking block joins the next reply of the turn. ``when`` builds the turn, a ``Turn``
of the Script model that also carries the scripts of the subagents it starts.

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
from dataclasses import dataclass, replace
from typing import Any, Literal, TypeAlias, get_args

from autocue.extensions.ui import CANCELLED
from autocue.llm.types import TextContent, ThinkingContent, Usage
from autocue.script.model import (
    FailKind,
    ResponseFactory,
    ScriptedError,
    ScriptedResponse,
    ScriptedToolCall,
    Step,
    Turn,
    describe_step,
)

Params: TypeAlias = dict[str, Any] | Callable[[], dict[str, Any]] | None
ThenCallback: TypeAlias = Callable[[Any], Any]
ReplyKind: TypeAlias = Literal["call", "say", "think", "parallel", "fail"]

FAIL_KINDS: tuple[FailKind, ...] = get_args(FailKind)

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


@dataclass(slots=True, repr=False)
class Reply(ScriptedResponse):
    """A reply written with the DSL: a ``ScriptedResponse`` that remembers the builder that made it
    (``kind``) and its ``.then()`` callbacks (the script layer never sees them)."""

    kind: ReplyKind = "say"
    thens: dict[int, ThenCallback] | None = None
    """``.then()`` callbacks by the position of their call among the reply's tool calls (0: the first)."""

    def then(self, callback: ThenCallback) -> Reply:
        """Run ``callback(ToolResultRecord)`` once the tool has finished (sync or async)."""
        if self.kind != "call":
            raise TypeError(f"{self.describe()}.then(...): only a call() has a result to pass on")
        self.thens = {0: callback}
        return self

    def then_of(self, k: int) -> ThenCallback | None:
        """The callback of the reply's ``k``-th tool call (0-based), or None."""
        return self.thens.get(k) if self.thens else None

    def parts(self) -> list[Reply]:
        """Each block as the ``call``/``say``/``think`` it was written as (the items of a ``parallel``)."""
        out: list[Reply] = []
        calls = 0
        for b in self.content:
            if isinstance(b, ScriptedToolCall):
                out.append(Reply([b], kind="call", thens={0: cb} if (cb := self.then_of(calls)) else None))
                calls += 1
            elif isinstance(b, TextContent):
                out.append(Reply([b], "stop", kind="say"))
            else:
                out.append(Reply([b], kind="think"))
        return out

    def __repr__(self) -> str:
        return self.describe()


@dataclass(slots=True, repr=False)
class SubagentAction:
    """The replies of the subagent that runs task ``task_id`` (not a reply of the parent)."""

    task_id: str
    steps: list[Step]

    def describe(self) -> str:
        return f"subagent({json.dumps(self.task_id)}, [{', '.join(describe_step(s) for s in self.steps)}])"

    def __repr__(self) -> str:
        return self.describe()


Action: TypeAlias = Reply | SubagentAction | ResponseFactory
"""What ``when`` takes: replies, the scripts of the subagents they start, and response factories
(replies built from the live context, such as ``call_every_tool(...)``'s two steps)."""


def subagent(task_id: str, actions: Sequence[Reply]) -> SubagentAction:
    """Script the replies of the subagent running task ``task_id``; place it after the ``call("task", ...)``."""
    if not isinstance(task_id, str) or not task_id:
        raise TypeError(f"subagent() needs the task id first, got {task_id!r}")
    if isinstance(actions, (Reply, SubagentAction)):
        actions = [actions]  # type: ignore[list-item]
    for i, a in enumerate(actions):
        if not isinstance(a, Reply):
            raise TypeError(f"subagent({task_id!r}): action {i + 1} is {a!r}; use call(), say(), think(), "
                            "parallel() or fail()")
    return SubagentAction(task_id, compile_actions(actions))


def call(tool: str, params: Params = None, *, id: str | None = None, usage: Any = None) -> Reply:
    """The model calls ``tool`` with ``params`` (a dict, or a callable resolved when played)."""
    if not isinstance(tool, str) or not tool:
        raise TypeError(f"call() needs a tool name, got {tool!r}")
    if params is not None and not isinstance(params, dict) and not callable(params):
        raise TypeError(f"call({tool!r}, ...): params must be a dict or a zero-argument callable, got {params!r}")
    return Reply([ScriptedToolCall(tool, params if params is not None else {}, id)], usage=_usage(usage), kind="call")


def say(text: str, *, usage: Any = None) -> Reply:
    """The model answers with ``text`` and stops (stop reason ``stop``)."""
    return Reply([TextContent(text)], "stop", _usage(usage), kind="say")


def think(text: str, *, signature: str | None = None) -> Reply:
    """Add a thinking block to the next reply (alone at the end of a turn, it is a reply of its own)."""
    return Reply([ThinkingContent(text, signature)], kind="think")


def parallel(*items: Reply, usage: Any = None) -> Reply:
    """One reply with several tool calls (and optionally text/thinking), in this order."""
    if not items:
        raise TypeError("parallel() needs at least one call()")
    blocks: list[Any] = []
    thens: dict[int, ThenCallback] = {}
    calls = 0
    for it in items:
        if not isinstance(it, Reply) or it.kind not in ("call", "say", "think"):
            raise TypeError(f"parallel() takes call(), say() and think() items, got {it!r}")
        if it.kind == "call":
            if (cb := it.then_of(0)) is not None:
                thens[calls] = cb
            calls += 1
        blocks.extend(it.content)
    r = Reply(blocks, None, _usage(usage), kind="parallel", thens=thens or None)
    if calls < 2:  # the blocks alone would not describe it as parallel(...)
        r.label = "parallel(" + ", ".join(i.describe() for i in items) + ")"
    return r


def fail(
    message: str,
    kind: FailKind = "error",
    *,
    status: int | None = None,
    retry_after: float | None = None,
    usage: Any = None,
) -> Reply:
    """A failed model call (``kind`` ``error``, ``overloaded``, ``rate_limit``, ``aborted``,
    ``context_overflow``), or a reply cut short at the token limit (``length``): retry and
    compaction paths are testable."""
    if kind not in FAIL_KINDS:
        raise ValueError(f"fail(kind={kind!r}): kind must be one of {', '.join(FAIL_KINDS)}")
    if kind == "length":
        label = f"fail({_short(message)}, kind=\"length\")"
        return Reply([TextContent(message)], "length", _usage(usage), label=label, kind="fail")
    return Reply([], None, _usage(usage), ScriptedError(message, kind, status, retry_after), kind="fail")


class TurnSpec(Turn):
    """One ``when()``: a ``Turn`` of the Script model (the prompt and the model's replies for that
    turn only) that also carries the replies of the subagents it starts, by task id, and the
    actions as they were written (``actions``: a ``think`` is one of its own there)."""

    __slots__ = ("actions", "subagents")

    def __init__(self, prompt: str, actions: Sequence[Action] = ()) -> None:
        self.actions: list[Action] = list(actions)
        self.subagents: dict[str, list[Step]] = {}
        for a in self.actions:
            if isinstance(a, SubagentAction):
                self.subagents.setdefault(a.task_id, []).extend(a.steps)
        Turn.__init__(self, prompt, compile_actions([a for a in self.actions if not isinstance(a, SubagentAction)]))

    def compile(self) -> Turn:
        """The turn itself (it is the Script model's ``Turn``; kept for callers of the earlier API)."""
        return self

    def subagent_scripts(self) -> dict[str, list[Step]]:
        """The replies of each subagent scripted in this turn, by task id."""
        return self.subagents


def when(prompt: str, actions: Sequence[Action]) -> TurnSpec:
    """Send ``prompt`` as the user prompt and feed ``actions`` as the model's replies for this turn."""
    if not isinstance(prompt, str):
        raise TypeError(f"when() needs the prompt text first, got {prompt!r}")
    if isinstance(actions, (Reply, SubagentAction)):
        actions = [actions]
    task_started = False
    for i, a in enumerate(actions):
        if isinstance(a, SubagentAction):
            if not task_started:
                raise TypeError(f"when({_short(prompt)}): action {i + 1} {a.describe()[:60]} comes before any "
                                'call("task", ...); place it after the call that starts the subagent')
        elif isinstance(a, Reply):
            task_started = task_started or _calls_task(a)
        elif not callable(a) or isinstance(a, ScriptedResponse):
            raise TypeError(f"when({_short(prompt)}): action {i + 1} is {a!r}; use call(), say(), think(), "
                            "parallel(), fail(), subagent() or a response factory (*call_every_tool(...))")
    return TurnSpec(prompt, actions)


def _calls_task(r: Reply) -> bool:
    return any(isinstance(b, ScriptedToolCall) and b.name == "task" for b in r.content)


def compile_actions(actions: Sequence[Reply | ResponseFactory]) -> list[Step]:
    """The turn's replies: each ``think`` joins the next reply (a copy: a ``Reply`` may be reused); a
    response factory is a reply of its own (a ``think`` before it is a reply of its own too)."""
    out: list[Step] = []
    thinking: list[Any] = []
    for a in actions:
        if not isinstance(a, Reply):
            if thinking:
                out.append(Reply(thinking, kind="think"))
                thinking = []
            out.append(a)
            continue
        if a.kind == "think":
            thinking.extend(a.content)
            continue
        if thinking:
            a = replace(a, content=[*thinking, *a.content])
            thinking = []
        out.append(a)
    if thinking:
        out.append(Reply(thinking, kind="think"))
    return out


def _short(text: str, limit: int = 60) -> str:
    if len(text) > limit:
        text = text[:limit] + "..."
    return json.dumps(text, ensure_ascii=False)
