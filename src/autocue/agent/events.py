"""The ``AgentEvent`` union: what the agent loop reports while it runs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, Protocol, TypeAlias

from autocue.casing import CamelJson
from autocue.llm.events import AssistantMessageEvent
from autocue.llm.types import JSON, AssistantMessage, ToolResultMessage, Usage


class AgentMessageLike(Protocol):
    """Any message the agent keeps: LLM messages plus custom roles a session adds."""

    @property
    def role(self) -> str: ...

    def to_json(self) -> JSON: ...


AgentMessage: TypeAlias = AgentMessageLike


@dataclass(slots=True)
class ToolTiming(CamelJson):
    tool_call_id: str
    tool_name: str
    ms: float
    is_error: bool
    HEAD = None


@dataclass(slots=True)
class TurnMetrics(CamelJson):
    """Measured per turn: model latency, tool time, per-tool timings, messages and usage."""

    model_latency_ms: float = 0.0
    tool_time_ms: float = 0.0
    tool_timings: list[ToolTiming] = field(default_factory=list)
    message_count: int = 0
    usage: Usage = field(default_factory=Usage)
    HEAD = None


@dataclass(slots=True)
class AgentStartEvent(CamelJson):
    type: ClassVar[Literal["agent_start"]] = "agent_start"


@dataclass(slots=True)
class AgentEndEvent(CamelJson):
    messages: list[AgentMessage]
    """The messages this run added."""
    type: ClassVar[Literal["agent_end"]] = "agent_end"


@dataclass(slots=True)
class TurnStartEvent(CamelJson):
    turn_index: int
    timestamp: int
    type: ClassVar[Literal["turn_start"]] = "turn_start"


@dataclass(slots=True)
class TurnEndEvent(CamelJson):
    turn_index: int
    message: AgentMessage
    tool_results: list[ToolResultMessage]
    metrics: TurnMetrics
    type: ClassVar[Literal["turn_end"]] = "turn_end"


@dataclass(slots=True)
class MessageStartEvent(CamelJson):
    message: AgentMessage
    type: ClassVar[Literal["message_start"]] = "message_start"


@dataclass(slots=True)
class MessageUpdateEvent(CamelJson):
    message: AssistantMessage
    assistant_message_event: AssistantMessageEvent
    type: ClassVar[Literal["message_update"]] = "message_update"


@dataclass(slots=True)
class MessageEndEvent(CamelJson):
    message: AgentMessage
    type: ClassVar[Literal["message_end"]] = "message_end"


@dataclass(slots=True)
class ToolExecutionStartEvent(CamelJson):
    tool_call_id: str
    tool_name: str
    args: Any
    type: ClassVar[Literal["tool_execution_start"]] = "tool_execution_start"


@dataclass(slots=True)
class ToolExecutionUpdateEvent(CamelJson):
    tool_call_id: str
    tool_name: str
    args: Any
    partial_result: Any
    type: ClassVar[Literal["tool_execution_update"]] = "tool_execution_update"


@dataclass(slots=True)
class ToolExecutionEndEvent(CamelJson):
    tool_call_id: str
    tool_name: str
    result: Any
    """A ``ToolResult`` (content and details)."""
    is_error: bool
    blocked: bool = False
    """True when a ``before_tool_call`` seam blocked the call (structural, never read from text)."""
    error: BaseException | None = None
    """The exception a tool raised, when it raised (not part of the JSON form)."""
    type: ClassVar[Literal["tool_execution_end"]] = "tool_execution_end"
    not_json: ClassVar[frozenset[str]] = frozenset({"blocked", "error"})


AgentEvent: TypeAlias = (
    AgentStartEvent
    | AgentEndEvent
    | TurnStartEvent
    | TurnEndEvent
    | MessageStartEvent
    | MessageUpdateEvent
    | MessageEndEvent
    | ToolExecutionStartEvent
    | ToolExecutionUpdateEvent
    | ToolExecutionEndEvent
)
