"""The ``AgentEvent`` union: what the agent loop reports while it runs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, Protocol, TypeAlias

from autocue.llm.events import AssistantMessageEvent
from autocue.llm.types import JSON, AssistantMessage, ToolResultMessage, Usage


class AgentMessageLike(Protocol):
    """Any message the agent keeps: LLM messages plus custom roles a session adds."""

    @property
    def role(self) -> str: ...

    def to_json(self) -> JSON: ...


AgentMessage: TypeAlias = AgentMessageLike


@dataclass(slots=True)
class ToolTiming:
    tool_call_id: str
    tool_name: str
    ms: float
    is_error: bool


@dataclass(slots=True)
class TurnMetrics:
    """Measured per turn: model latency, tool time, per-tool timings, messages and usage."""

    model_latency_ms: float = 0.0
    tool_time_ms: float = 0.0
    tool_timings: list[ToolTiming] = field(default_factory=list)
    message_count: int = 0
    usage: Usage = field(default_factory=Usage)

    def to_json(self) -> JSON:
        return {
            "modelLatencyMs": self.model_latency_ms,
            "toolTimeMs": self.tool_time_ms,
            "toolTimings": [
                {"toolCallId": t.tool_call_id, "toolName": t.tool_name, "ms": t.ms, "isError": t.is_error}
                for t in self.tool_timings
            ],
            "messageCount": self.message_count,
            "usage": self.usage.to_json(),
        }


@dataclass(slots=True)
class AgentStartEvent:
    type: ClassVar[Literal["agent_start"]] = "agent_start"

    def to_json(self) -> JSON:
        return {"type": "agent_start"}


@dataclass(slots=True)
class AgentEndEvent:
    messages: list[AgentMessage]
    """The messages this run added."""
    type: ClassVar[Literal["agent_end"]] = "agent_end"

    def to_json(self) -> JSON:
        return {"type": "agent_end", "messages": [m.to_json() for m in self.messages]}


@dataclass(slots=True)
class TurnStartEvent:
    turn_index: int
    timestamp: int
    type: ClassVar[Literal["turn_start"]] = "turn_start"

    def to_json(self) -> JSON:
        return {"type": "turn_start", "turnIndex": self.turn_index, "timestamp": self.timestamp}


@dataclass(slots=True)
class TurnEndEvent:
    turn_index: int
    message: AgentMessage
    tool_results: list[ToolResultMessage]
    metrics: TurnMetrics
    type: ClassVar[Literal["turn_end"]] = "turn_end"

    def to_json(self) -> JSON:
        return {
            "type": "turn_end",
            "turnIndex": self.turn_index,
            "message": self.message.to_json(),
            "toolResults": [r.to_json() for r in self.tool_results],
            "metrics": self.metrics.to_json(),
        }


@dataclass(slots=True)
class MessageStartEvent:
    message: AgentMessage
    type: ClassVar[Literal["message_start"]] = "message_start"

    def to_json(self) -> JSON:
        return {"type": "message_start", "message": self.message.to_json()}


@dataclass(slots=True)
class MessageUpdateEvent:
    message: AssistantMessage
    assistant_message_event: AssistantMessageEvent
    type: ClassVar[Literal["message_update"]] = "message_update"

    def to_json(self) -> JSON:
        return {
            "type": "message_update",
            "message": self.message.to_json(),
            "assistantMessageEvent": self.assistant_message_event.to_json(),
        }


@dataclass(slots=True)
class MessageEndEvent:
    message: AgentMessage
    type: ClassVar[Literal["message_end"]] = "message_end"

    def to_json(self) -> JSON:
        return {"type": "message_end", "message": self.message.to_json()}


@dataclass(slots=True)
class ToolExecutionStartEvent:
    tool_call_id: str
    tool_name: str
    args: Any
    type: ClassVar[Literal["tool_execution_start"]] = "tool_execution_start"

    def to_json(self) -> JSON:
        return {"type": self.type, "toolCallId": self.tool_call_id, "toolName": self.tool_name, "args": self.args}


@dataclass(slots=True)
class ToolExecutionUpdateEvent:
    tool_call_id: str
    tool_name: str
    args: Any
    partial_result: Any
    type: ClassVar[Literal["tool_execution_update"]] = "tool_execution_update"

    def to_json(self) -> JSON:
        pr = self.partial_result
        return {
            "type": self.type,
            "toolCallId": self.tool_call_id,
            "toolName": self.tool_name,
            "args": self.args,
            "partialResult": pr.to_json() if hasattr(pr, "to_json") else pr,
        }


@dataclass(slots=True)
class ToolExecutionEndEvent:
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

    def to_json(self) -> JSON:
        r = self.result
        return {
            "type": self.type,
            "toolCallId": self.tool_call_id,
            "toolName": self.tool_name,
            "result": r.to_json() if hasattr(r, "to_json") else r,
            "isError": self.is_error,
        }


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
