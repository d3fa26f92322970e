"""Timeline events of a scenario: text steps, tool uses, model responses, user actions, checks.

``TimelineEvent`` is the union the loader produces for each ``timeline`` entry; legacy top-level
``think``/``assistant``/tool events are single-part ``LlmResponse``s with ``grouped=False``.
Every object carries the ``pos`` it was read from. ``autocue.scenario.model`` re-exports them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from autocue.scenario.errors import Pos
from autocue.scenario.expect import RequestExpectation

if TYPE_CHECKING:  # loaded by a scenario that has assert steps or chaos
    from autocue.scenario.assertions import AssertSpec
    from autocue.script.chaos import ChaosSpec

# ---------------------------------------------------------------------------- text steps


@dataclass(slots=True)
class TimedText:
    """A ``[ms, text]`` pair or ``{relativeTime, content}`` object: wait ``ms``, then emit ``text``.

    ``block`` keeps a rich content block (``{type: text|image|diff|...}``) as written.
    """

    ms: int
    text: str
    pos: Pos
    block: dict[str, Any] | None = None


@dataclass(slots=True)
class ThinkPart:
    steps: list[TimedText]
    pos: Pos


@dataclass(slots=True)
class AssistantPart:
    steps: list[TimedText]
    pos: Pos


# ---------------------------------------------------------------------------- tools


@dataclass(slots=True)
class ToolExecEvent:
    type: Literal["stdout", "stderr", "progress", "completion"]
    time_ms: int
    content: str | None = None
    exit_code: int | None = None


@dataclass(slots=True)
class ToolExecution:
    """Timed tool output for simulation runners (``agentToolUse.toolExecution``)."""

    start_time_ms: int
    events: list[ToolExecEvent]


@dataclass(slots=True)
class ToolUse:
    """A tool call the model makes: ``agentToolUse`` or a tool-named event (``runCmd: {...}``).

    ``tool_name`` and ``args`` use the scenario's canonical names (``runCmd {cmd, cwd}``,
    ``writeFile {path, content}``...); a profile maps them onto an agent's tools.
    """

    tool_name: str
    args: dict[str, Any]
    pos: Pos
    tool_call_id: str | None = None
    progress: list[TimedText] = field(default_factory=list)
    result: Any = None
    status: str | None = None
    tool_execution: ToolExecution | None = None
    meta: dict[str, Any] | None = None
    written_as: str = "agentToolUse"
    """``agentToolUse`` or the tool-named key the event was written with."""


@dataclass(slots=True)
class AgentEdits:
    """A file-change record (path and line counts) for UI/simulation runners; not a model call."""

    path: str
    lines_added: int
    lines_removed: int
    pos: Pos


@dataclass(slots=True)
class ToolResultPart:
    tool_call_id: str | None
    content: Any
    is_error: bool
    pos: Pos


@dataclass(slots=True)
class ErrorStep:
    """A failed model call: the HTTP status, the API error type, message and body, retry-after."""

    status: int
    message: str
    pos: Pos
    error_type: str | None = None
    body: dict[str, Any] | None = None
    retry_after: float | None = None
    details: Any = None


@dataclass(slots=True)
class AgentPlan:
    entries: list[dict[str, Any]]
    pos: Pos


ResponsePart: TypeAlias = ThinkPart | AssistantPart | ToolUse | AgentEdits | ToolResultPart | ErrorStep | AgentPlan


@dataclass(slots=True)
class LlmResponse:
    """One model reply. ``grouped`` is False for a legacy top-level event (a one-part group)."""

    parts: list[ResponsePart]
    pos: Pos
    grouped: bool = True
    meta: dict[str, Any] | None = None
    chaos: ChaosSpec | None = None
    """The step's ``chaos:`` key: faults and latency the mock server adds to this reply."""


# ---------------------------------------------------------------------------- user and control


@dataclass(slots=True)
class UserInput:
    ms: int
    text: str
    pos: Pos
    target: str | None = None
    rich: list[Any] | None = None
    """Rich input blocks as written (``input: [{type: text, ...}]``); ``text`` joins their text."""
    expected_response: dict[str, Any] | None = None


@dataclass(slots=True)
class UserInputs:
    inputs: list[UserInput]
    pos: Pos
    target: str | None = None

    @property
    def text(self) -> str:
        return "\n".join(i.text for i in self.inputs)


@dataclass(slots=True)
class UserEdits:
    patch: str
    pos: Pos


@dataclass(slots=True)
class UserCommand:
    cmd: str
    pos: Pos
    cwd: str | None = None


@dataclass(slots=True)
class AdvanceMs:
    """``advanceMs`` / ``baseTimeDelta``: logical time for the runner."""

    ms: int
    pos: Pos


@dataclass(slots=True)
class Screenshot:
    label: str
    pos: Pos


@dataclass(slots=True)
class AssertStep:
    spec: AssertSpec
    pos: Pos


@dataclass(slots=True)
class ExpectRequestStep:
    """``expectRequest``: what the request for the next reply must carry (checked by the mock server)."""

    spec: RequestExpectation
    pos: Pos


@dataclass(slots=True)
class CallEveryTool:
    """``callEveryTool``: the model calls every tool the request declares, once, with arguments drawn
    from each tool's JSON Schema with ``seed`` (all in one reply, or one reply per tool when not
    ``parallel``), then answers after the results: a call of ``output_tool``, ``then``, a value of the
    request's response schema, or a line naming the tools."""

    pos: Pos
    seed: int | str = 0
    then: str | None = None
    parallel: bool = True
    output_tool: str | None = None
    """``outputTool``: the tool the answer calls instead of text (an agent's output tool)."""
    tools: list[str] | None = None
    """The tools to call (default: every declared one but ``output_tool``)."""


@dataclass(slots=True)
class StructuredOutput:
    """``structuredOutput``: a reply whose text is JSON satisfying the response schema the request
    declares: ``value`` (checked against it) when ``has_value``, else a value drawn with ``seed``."""

    pos: Pos
    seed: int | str = 0
    value: Any = None
    has_value: bool = False


@dataclass(slots=True)
class Complete:
    value: bool
    pos: Pos


@dataclass(slots=True)
class Merge:
    value: bool
    pos: Pos


@dataclass(slots=True)
class RunnerEvent:
    """A known event for other runners (``status``, ``log``, ``sessionStart``, ``agentPlan``,
    ``setMode``, ``assertVm``, ``applyPatch``, ...), kept as written; it does not compile to a step."""

    kind: str
    data: Any
    pos: Pos


TimelineEvent: TypeAlias = (
    LlmResponse | UserInputs | UserEdits | UserCommand | AdvanceMs | Screenshot | AssertStep | Complete | Merge
    | RunnerEvent | ExpectRequestStep | CallEveryTool | StructuredOutput
)

__all__ = [
    "AdvanceMs", "AgentEdits", "AgentPlan", "AssertStep", "AssistantPart", "CallEveryTool", "Complete", "ErrorStep",
    "ExpectRequestStep", "LlmResponse", "Merge", "ResponsePart", "RunnerEvent", "Screenshot", "StructuredOutput",
    "ThinkPart", "TimedText",
    "TimelineEvent", "ToolExecEvent", "ToolExecution", "ToolResultPart", "ToolUse", "UserCommand",
    "UserEdits", "UserInput", "UserInputs",
]
