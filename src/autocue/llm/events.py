"""The assistant-message stream protocol: the events a provider yields while a reply streams.

Every event carries ``partial``, the assistant message as built so far (one object, mutated
in place as the stream advances, as pi does). ``done`` and ``error`` end a stream.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal, TypeAlias

from autocue.casing import CamelJson
from autocue.llm.types import AssistantMessage, ToolCall


@dataclass(slots=True)
class StartEvent(CamelJson):
    partial: AssistantMessage
    type: ClassVar[Literal["start"]] = "start"


@dataclass(slots=True)
class _BlockStart(CamelJson):
    """``<kind>_start``: a content block of ``partial`` opens at ``content_index``."""

    content_index: int
    partial: AssistantMessage
    type: ClassVar[str]


@dataclass(slots=True)
class _BlockDelta(CamelJson):
    """``<kind>_delta``: ``delta`` was appended to the block at ``content_index``."""

    content_index: int
    delta: str
    partial: AssistantMessage
    type: ClassVar[str]


@dataclass(slots=True)
class _BlockEnd(CamelJson):
    """``<kind>_end``: the block at ``content_index`` is complete; ``content`` is its text."""

    content_index: int
    content: str
    partial: AssistantMessage
    type: ClassVar[str]


@dataclass(slots=True)
class TextStartEvent(_BlockStart):
    type: ClassVar[Literal["text_start"]] = "text_start"


@dataclass(slots=True)
class TextDeltaEvent(_BlockDelta):
    type: ClassVar[Literal["text_delta"]] = "text_delta"


@dataclass(slots=True)
class TextEndEvent(_BlockEnd):
    type: ClassVar[Literal["text_end"]] = "text_end"


@dataclass(slots=True)
class ThinkingStartEvent(_BlockStart):
    type: ClassVar[Literal["thinking_start"]] = "thinking_start"


@dataclass(slots=True)
class ThinkingDeltaEvent(_BlockDelta):
    type: ClassVar[Literal["thinking_delta"]] = "thinking_delta"


@dataclass(slots=True)
class ThinkingEndEvent(_BlockEnd):
    type: ClassVar[Literal["thinking_end"]] = "thinking_end"


@dataclass(slots=True)
class ToolCallStartEvent(_BlockStart):
    type: ClassVar[Literal["toolcall_start"]] = "toolcall_start"


@dataclass(slots=True)
class ToolCallDeltaEvent(_BlockDelta):
    """``delta`` is a fragment of the tool call's JSON-encoded arguments."""

    type: ClassVar[Literal["toolcall_delta"]] = "toolcall_delta"


@dataclass(slots=True)
class ToolCallEndEvent(CamelJson):
    content_index: int
    tool_call: ToolCall
    partial: AssistantMessage
    type: ClassVar[Literal["toolcall_end"]] = "toolcall_end"


@dataclass(slots=True)
class DoneEvent(CamelJson):
    reason: Literal["stop", "length", "toolUse"]
    message: AssistantMessage
    type: ClassVar[Literal["done"]] = "done"

    @property
    def partial(self) -> AssistantMessage:
        return self.message


@dataclass(slots=True)
class ErrorEvent(CamelJson):
    reason: Literal["error", "aborted"]
    error: AssistantMessage
    type: ClassVar[Literal["error"]] = "error"

    @property
    def partial(self) -> AssistantMessage:
        return self.error


AssistantMessageEvent: TypeAlias = (
    StartEvent
    | TextStartEvent
    | TextDeltaEvent
    | TextEndEvent
    | ThinkingStartEvent
    | ThinkingDeltaEvent
    | ThinkingEndEvent
    | ToolCallStartEvent
    | ToolCallDeltaEvent
    | ToolCallEndEvent
    | DoneEvent
    | ErrorEvent
)

__all__ = [
    "AssistantMessageEvent",
    "DoneEvent",
    "ErrorEvent",
    "StartEvent",
    "TextDeltaEvent",
    "TextEndEvent",
    "TextStartEvent",
    "ThinkingDeltaEvent",
    "ThinkingEndEvent",
    "ThinkingStartEvent",
    "ToolCallDeltaEvent",
    "ToolCallEndEvent",
    "ToolCallStartEvent",
]
