"""The assistant-message stream protocol: the events a provider yields while a reply streams.

Every event carries ``partial``, the assistant message as built so far (one object, mutated
in place as the stream advances, as pi does). ``done`` and ``error`` end a stream.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar, Literal, TypeAlias

from autocue.casing import to_camel
from autocue.llm.types import JSON, AssistantMessage, ToolCall


class FieldsJson:
    """Base of the event dataclasses: ``to_json`` is ``type`` (when the class has one), then each
    field under its camelCase name, written through its ``to_json`` when it has one."""

    __slots__ = ()
    not_json: ClassVar[frozenset[str]] = frozenset()
    """Fields left out of the JSON form."""

    def to_json(self) -> JSON:
        t = getattr(self, "type", None)
        d: JSON = {} if t is None else {"type": t}
        keys = _JSON_KEYS.get(type(self))
        if keys is None:
            keys = _JSON_KEYS[type(self)] = tuple(
                (f.name, to_camel(f.name)) for f in fields(self) if f.name not in self.not_json  # type: ignore[arg-type]
            )
        for name, key in keys:
            d[key] = _json_value(getattr(self, name))
        return d


_JSON_KEYS: dict[type, tuple[tuple[str, str], ...]] = {}


def _json_value(v: Any) -> Any:
    if type(v) is list:
        return [_json_value(x) for x in v]
    to_json = getattr(v, "to_json", None)
    return v if to_json is None else to_json()


@dataclass(slots=True)
class StartEvent(FieldsJson):
    partial: AssistantMessage
    type: ClassVar[Literal["start"]] = "start"


@dataclass(slots=True)
class _BlockStart(FieldsJson):
    """``<kind>_start``: a content block of ``partial`` opens at ``content_index``."""

    content_index: int
    partial: AssistantMessage
    type: ClassVar[str]


@dataclass(slots=True)
class _BlockDelta(FieldsJson):
    """``<kind>_delta``: ``delta`` was appended to the block at ``content_index``."""

    content_index: int
    delta: str
    partial: AssistantMessage
    type: ClassVar[str]


@dataclass(slots=True)
class _BlockEnd(FieldsJson):
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
class ToolCallEndEvent(FieldsJson):
    content_index: int
    tool_call: ToolCall
    partial: AssistantMessage
    type: ClassVar[Literal["toolcall_end"]] = "toolcall_end"


@dataclass(slots=True)
class DoneEvent(FieldsJson):
    reason: Literal["stop", "length", "toolUse"]
    message: AssistantMessage
    type: ClassVar[Literal["done"]] = "done"

    @property
    def partial(self) -> AssistantMessage:
        return self.message


@dataclass(slots=True)
class ErrorEvent(FieldsJson):
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
