"""The Script model: what every front-end compiles to and every back-end plays.

A ``Script`` is a list of ``Turn``s; a turn is an optional user prompt plus the scripted
model replies (``Step``) for that turn, and checks to run between replies. A step is a whole
assistant reply (``ScriptedResponse``: any mix of thinking, text and tool calls, a stop
reason, usage, or a scripted failure) or a ``ResponseFactory`` that builds one from the live
context.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from autocue.llm.types import AssistantMessage, Context, StopReason, TextContent, ThinkingContent, Usage

if TYPE_CHECKING:
    from autocue.script.chaos import ChaosSpec
    from autocue.yamlpos import Pos  # a scenario's position (file, line, col); not imported at run time

FailKind: TypeAlias = Literal["error", "overloaded", "rate_limit", "aborted", "context_overflow", "length"]
"""How a scripted model call fails: an API error (``ScriptedError``) of one of the first five kinds, or
``length``: a reply cut short at the token limit (its text, stop reason ``length``; the harness's
``fail(text, "length")``)."""
ErrorKind: TypeAlias = FailKind
"""The earlier name of ``FailKind``."""

Params: TypeAlias = dict[str, Any]
LateParams: TypeAlias = Callable[[], Params]


@dataclass(slots=True)
class ScriptedToolCall:
    """A tool call in a scripted reply. ``arguments`` may be late-bound (resolved when played)."""

    name: str
    arguments: Params | LateParams = field(default_factory=dict)
    id: str | None = None

    def resolve(self) -> Params:
        args = self.arguments
        return dict(args()) if callable(args) else args

    def describe(self) -> str:
        args = self.arguments
        shown = "<late-bound>" if callable(args) else _short_json(args, 80)
        return f"call({json.dumps(self.name)}, {shown})"


@dataclass(slots=True)
class ScriptedError:
    """A failed model call: what a provider would report (and what an HTTP API would send)."""

    message: str
    kind: FailKind = "error"
    """``length`` is not an error a provider reports (a reply cut short has a stop reason): it counts as ``error``."""
    status: int | None = None
    retry_after: float | None = None
    """Seconds the server asks the client to wait before retrying."""
    body: dict[str, Any] | None = None
    """The API-shaped error body an HTTP back-end sends (built from kind/message when None)."""

    def http_status(self) -> int:
        if self.status is not None:
            return self.status
        return {"overloaded": 529, "rate_limit": 429, "context_overflow": 400, "aborted": 499}.get(self.kind, 500)

    def error_text(self) -> str:
        """The ``errorMessage`` of the failed assistant message (retry/overflow detectors read it)."""
        prefix = {
            "overloaded": "529 overloaded_error: ",
            "rate_limit": "429 rate_limit_error: ",
            "context_overflow": "400 context overflow: prompt is too long: ",
        }.get(self.kind, "")
        if self.kind == "error" and self.status is not None:
            prefix = f"{self.status} "
        return prefix + self.message


Block: TypeAlias = TextContent | ThinkingContent | ScriptedToolCall


@dataclass(slots=True)
class ScriptedResponse:
    """One whole scripted assistant reply."""

    content: list[Block] = field(default_factory=list)
    stop_reason: StopReason | None = None
    """Default: ``toolUse`` when there are tool calls, else ``stop``; ``error``/``aborted`` with ``error``."""
    usage: Usage | None = None
    error: ScriptedError | None = None
    chunk_delays_ms: list[int] | None = None
    """Optional timing (ms before each streamed chunk), honoured by timed back-ends only."""
    label: str | None = None
    """How the step was written (DSL form), for diagnostics."""
    pos: Pos | None = None
    """Where the step was written (a scenario's ``llmResponse``): ``pos.line`` aligns replies with the timeline."""
    chaos: ChaosSpec | None = None
    """Faults and latency a mock server adds to this reply (a scenario step's ``chaos:`` key)."""
    fingerprint: dict[str, Any] | None = None
    """The request ``autocue record`` recorded for this reply (``_meta.request``: see
    ``autocue.mockllm.fingerprint``), which ``--match`` compares a live request with."""
    again: bool = False
    """The step that made this reply (a response factory) plays again for the next request: a step
    that answers several requests (``callEveryTool`` one tool per reply)."""

    @property
    def source(self) -> str | None:
        """``file:line`` of ``pos``, as messages show it (None: not known)."""
        return self.pos.short if self.pos is not None else None

    @property
    def tool_calls(self) -> list[ScriptedToolCall]:
        return [b for b in self.content if isinstance(b, ScriptedToolCall)]

    def effective_stop_reason(self) -> StopReason:
        if self.error is not None:
            return "aborted" if self.error.kind == "aborted" else "error"
        if self.stop_reason is not None:
            return self.stop_reason
        for b in self.content:
            if type(b) is ScriptedToolCall:
                return "toolUse"
        return "stop"

    def describe(self) -> str:
        """The step in DSL form: ``say("...")``, ``call("x", {...})``, ``fail(...)``, ``think(...)``."""
        if self.label is not None:
            return self.label
        if self.error is not None:
            return f"fail({_short_text(self.error.message)}, kind={json.dumps(self.error.kind)})"
        parts: list[str] = []
        for b in self.content:
            if isinstance(b, ScriptedToolCall):
                parts.append(b.describe())
            elif isinstance(b, ThinkingContent):
                parts.append(f"think({_short_text(b.thinking)})")
            else:
                parts.append(f"say({_short_text(b.text)})")
        calls = sum(1 for b in self.content if isinstance(b, ScriptedToolCall))
        if calls > 1:
            return "parallel(" + ", ".join(parts) + ")"
        return " + ".join(parts) if parts else "say(\"\")"


ResponseFactory: TypeAlias = Callable[
    [Context], "ScriptedResponse | AssistantMessage | Awaitable[ScriptedResponse | AssistantMessage]"
]
Step: TypeAlias = ScriptedResponse | ResponseFactory


def describe_step(step: Step) -> str:
    if isinstance(step, ScriptedResponse):
        return step.describe()
    label = getattr(step, "label", None)
    if isinstance(label, str):
        return label
    name = getattr(step, "__name__", type(step).__name__)
    return f"<factory {name}>"


@dataclass(slots=True)
class Check:
    """A check to run before the reply at index ``before_step`` of its turn is played.

    ``spec`` is front-end specific (a scenario ``assert`` block, a callable); the back-end
    that plays the script decides how to evaluate it.
    """

    before_step: int
    spec: Any
    pos: Pos | None = None

    @property
    def source(self) -> str | None:
        """``file:line`` of ``pos``, as messages show it (None: not known)."""
        return self.pos.short if self.pos is not None else None


@dataclass(slots=True)
class Turn:
    """One user turn: the prompt (``None`` when the turn continues without one) and its replies."""

    prompt: str | None
    steps: list[Step] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)
    pos: Pos | None = None

    @property
    def source(self) -> str | None:
        """``file:line`` of ``pos``, as messages show it (None: not known)."""
        return self.pos.short if self.pos is not None else None


@dataclass(slots=True)
class Script:
    turns: list[Turn] = field(default_factory=list)
    name: str = ""
    pos: Pos | None = None

    @property
    def source(self) -> str | None:
        """``file:line`` of ``pos``, as messages show it (None: not known)."""
        return self.pos.short if self.pos is not None else None

    @property
    def step_count(self) -> int:
        return sum(len(t.steps) for t in self.turns)

    def all_steps(self) -> list[Step]:
        return [s for t in self.turns for s in t.steps]


def _short_text(text: str, limit: int = 60) -> str:
    if len(text) > limit:
        text = text[:limit] + "..."
    return json.dumps(text, ensure_ascii=False)


def _short_json(value: Any, limit: int) -> str:
    try:
        s = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    except (TypeError, ValueError):
        s = repr(value)
    return s if len(s) <= limit else s[:limit] + "..."
