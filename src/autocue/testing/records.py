"""What the harness records about a run: tool calls, tool results and UI calls."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from autocue.llm.types import TextContent, UserContent


@dataclass(slots=True)
class ToolCallRecord:
    """A tool call the model made. ``blocked`` comes from the hook's own result, never from text."""

    step: int
    """The global playbook action index (1-based) of the reply that made the call."""
    turn: int
    """The ``when()`` turn (1-based)."""
    tool_name: str
    input: dict[str, Any]
    blocked: bool = False
    block_reason: str | None = None
    tool_call_id: str = ""


@dataclass(slots=True)
class ToolResultRecord:
    step: int
    turn: int
    tool_name: str
    tool_call_id: str
    text: str
    """The text blocks joined with newlines."""
    content: list[UserContent]
    is_error: bool
    details: Any = None
    mocked: bool = False
    blocked: bool = False

    @staticmethod
    def text_of(content: list[UserContent]) -> str:
        return "\n".join(b.text for b in content if isinstance(b, TextContent))


@dataclass(slots=True)
class UICallRecord:
    method: str
    args: list[Any] = field(default_factory=list)
    return_value: Any = None

    @property
    def type(self) -> str:
        """UI calls appear in ``t.events.all`` as events of type ``ui_call``."""
        return "ui_call"


@dataclass(slots=True)
class HarnessWarning:
    """A warning the harness recorded into ``t.events.all`` (e.g. a mock shadowed by an extension tool)."""

    message: str
    type: str = "harness_warning"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "message": self.message}
