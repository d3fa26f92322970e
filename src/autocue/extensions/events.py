"""Extension event payloads and handler results (pi §4.2, snake_case).

Agent events (``agent_start``, ``turn_start``, ``message_end``, ``tool_execution_*``, ...) reach
extensions as the ``autocue.agent`` event objects themselves. The events defined here are the
ones only extensions see, with the results their handlers may return:

=========================  ==========================================================================
event                      handler result (a dataclass below, or a dict with the same keys)
=========================  ==========================================================================
``tool_call``              ``ToolCallResult(block, reason)`` — first block wins; a raise blocks too
``tool_result``            ``ToolResultPatch(content, details, is_error)`` — patches chain
``input``                  ``InputResult("continue"|"transform"|"handled", text, images)``
``before_agent_start``     ``BeforeAgentStartResult(message, system_prompt)``
``context``                ``ContextResult(messages)`` — chains, this model call only
``session_before_*``       ``SessionBeforeResult(cancel, ...)`` — first ``cancel`` wins
``resources_discover``     ``ResourcesDiscoverResult(skill_paths, prompt_paths)`` — accumulated
others                     ignored
=========================  ==========================================================================

Dict results may use snake_case or pi's camelCase keys (``{"block": True, "reason": "..."}``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from autocue import casing
from autocue.llm.abort import AbortSignal
from autocue.llm.types import ImageContent, Model

EVENT_NAMES: frozenset[str] = frozenset({
    "session_start", "session_shutdown", "resources_discover",
    "session_before_switch", "session_switch", "session_before_fork", "session_fork",
    "session_before_compact", "session_compact", "session_before_tree", "session_tree",
    "input", "before_agent_start", "agent_start", "agent_end", "turn_start", "turn_end",
    "message_start", "message_update", "message_end", "context", "before_provider_request",
    "tool_execution_start", "tool_execution_update", "tool_execution_end", "tool_call", "tool_result",
    "model_select", "user_bash", "ttsr_triggered", "session_directory",
})
"""Every event name ``api.on`` accepts."""

EMITTED_ONLY_BY: dict[str, str] = {
    "session_directory": "the autocue CLI when it starts a new session",
    "user_bash": "RPC mode's bash command",
}
"""Events only one face of autocue emits: a session elsewhere (a test session) never fires them."""


# ---------------------------------------------------------------------------- session lifecycle


@dataclass(slots=True)
class SessionStartEvent:
    reason: Literal["startup", "reload", "new", "resume", "fork"] = "startup"
    previous_session_file: str | None = None
    type: ClassVar[Literal["session_start"]] = "session_start"


@dataclass(slots=True)
class SessionShutdownEvent:
    type: ClassVar[Literal["session_shutdown"]] = "session_shutdown"


@dataclass(slots=True)
class ResourcesDiscoverEvent:
    cwd: str
    reason: Literal["startup", "reload"] = "startup"
    type: ClassVar[Literal["resources_discover"]] = "resources_discover"


@dataclass(slots=True)
class ResourcesDiscoverResult:
    skill_paths: list[str] = field(default_factory=list)
    prompt_paths: list[str] = field(default_factory=list)


@dataclass(slots=True)
class SessionBeforeSwitchEvent:
    reason: Literal["new", "resume"]
    target_session_file: str | None = None
    type: ClassVar[Literal["session_before_switch"]] = "session_before_switch"


@dataclass(slots=True)
class SessionSwitchEvent:
    reason: Literal["new", "resume"]
    previous_session_file: str | None = None
    type: ClassVar[Literal["session_switch"]] = "session_switch"


@dataclass(slots=True)
class SessionBeforeForkEvent:
    entry_id: str
    type: ClassVar[Literal["session_before_fork"]] = "session_before_fork"


@dataclass(slots=True)
class SessionForkEvent:
    previous_session_file: str | None = None
    type: ClassVar[Literal["session_fork"]] = "session_fork"


@dataclass(slots=True)
class SessionDirectoryEvent:
    """CLI startup only (handlers get no ctx); a ``{session_dir}`` result picks where sessions go, last wins."""

    cwd: str
    type: ClassVar[Literal["session_directory"]] = "session_directory"


@dataclass(slots=True)
class UserBashEvent:
    """A command the user runs (RPC ``bash``); ``{result: {output, exit_code, cancelled, truncated}}`` replaces
    running it (the first non-empty result wins)."""

    command: str
    exclude_from_context: bool
    cwd: str
    type: ClassVar[Literal["user_bash"]] = "user_bash"


@dataclass(slots=True)
class SessionBeforeCompactEvent:
    preparation: Any
    """The ``CompactionPreparation`` about to be summarized."""
    branch_entries: list[Any]
    custom_instructions: str | None
    signal: AbortSignal
    type: ClassVar[Literal["session_before_compact"]] = "session_before_compact"


@dataclass(slots=True)
class SessionCompactEvent:
    compaction_entry: Any
    from_extension: bool
    type: ClassVar[Literal["session_compact"]] = "session_compact"


@dataclass(slots=True)
class SessionBeforeTreeEvent:
    target_id: str | None
    old_leaf_id: str | None
    signal: AbortSignal
    type: ClassVar[Literal["session_before_tree"]] = "session_before_tree"


@dataclass(slots=True)
class SessionTreeEvent:
    new_leaf_id: str | None
    old_leaf_id: str | None
    summary_entry: Any = None
    from_extension: bool = False
    type: ClassVar[Literal["session_tree"]] = "session_tree"


@dataclass(slots=True)
class CompactionOverride:
    """A summary an extension supplies instead of the model's (``session_before_compact``)."""

    summary: str
    first_kept_entry_id: str
    tokens_before: int
    details: Any = None


@dataclass(slots=True)
class SessionBeforeResult:
    """Result of ``session_before_*``: ``cancel`` stops the operation; ``compaction`` supplies a
    summary (``session_before_compact``); ``summary`` a branch summary (``session_before_tree``)."""

    cancel: bool = False
    compaction: CompactionOverride | dict[str, Any] | None = None
    summary: str | None = None


# ---------------------------------------------------------------------------- prompting


@dataclass(slots=True)
class InputEvent:
    text: str
    images: list[ImageContent] | None = None
    source: Literal["interactive", "rpc", "extension"] = "interactive"
    type: ClassVar[Literal["input"]] = "input"


@dataclass(slots=True)
class InputResult:
    action: Literal["continue", "transform", "handled"] = "continue"
    text: str | None = None
    images: list[ImageContent] | None = None


@dataclass(slots=True)
class CustomMessageSpec:
    """A message an extension adds to the conversation (a ``custom`` role message)."""

    custom_type: str
    content: Any
    display: bool = True
    details: Any = None

    @classmethod
    def of(cls, value: Any, what: str) -> CustomMessageSpec:
        """A spec from a spec, a dict (snake_case or camelCase keys) or an object with its fields."""
        if isinstance(value, cls):
            return value
        custom_type, content = casing.field(value, "custom_type"), casing.field(value, "content")
        if custom_type is casing.MISSING or content is casing.MISSING:
            raise ValueError(f"{what} needs custom_type and content")
        display, details = casing.field(value, "display"), casing.field(value, "details")
        return cls(str(custom_type), content, True if display is casing.MISSING else bool(display),
                   None if details is casing.MISSING else details)


@dataclass(slots=True)
class BeforeAgentStartEvent:
    prompt: str
    images: list[ImageContent] | None
    system_prompt: str
    type: ClassVar[Literal["before_agent_start"]] = "before_agent_start"


@dataclass(slots=True)
class BeforeAgentStartResult:
    message: CustomMessageSpec | dict[str, Any] | None = None
    system_prompt: str | None = None


@dataclass(slots=True)
class ContextEvent:
    messages: list[Any]
    """A deep copy of the messages about to be sent; change or replace it freely."""
    type: ClassVar[Literal["context"]] = "context"


@dataclass(slots=True)
class ContextResult:
    messages: list[Any] | None = None


@dataclass(slots=True)
class BeforeProviderRequestEvent:
    payload: Any
    type: ClassVar[Literal["before_provider_request"]] = "before_provider_request"


@dataclass(slots=True)
class ModelSelectEvent:
    model: Model
    previous_model: Model | None
    source: Literal["set", "cycle", "restore"] = "set"
    type: ClassVar[Literal["model_select"]] = "model_select"


# ---------------------------------------------------------------------------- tools


@dataclass(slots=True)
class ToolCallEvent:
    tool_call_id: str
    tool_name: str
    input: dict[str, Any]
    """The validated arguments; the very dict the tool receives (patch it in place to change them)."""
    type: ClassVar[Literal["tool_call"]] = "tool_call"


@dataclass(slots=True)
class ToolCallResult:
    block: bool = False
    reason: str | None = None


@dataclass(slots=True)
class ToolResultEvent:
    tool_call_id: str
    tool_name: str
    input: dict[str, Any]
    content: list[Any]
    details: Any
    is_error: bool
    type: ClassVar[Literal["tool_result"]] = "tool_result"


@dataclass(slots=True)
class ToolResultPatch:
    """Field-by-field replacement; ``None`` keeps the current value."""

    content: list[Any] | None = None
    details: Any = None
    is_error: bool | None = None


@dataclass(slots=True)
class ExtensionErrorEvent:
    """A handler, command or deferred load of an extension raised. The session goes on."""

    extension_path: str
    event: str
    error: str
    stack: str | None = None
    exception: BaseException | None = field(default=None, compare=False, repr=False)
    type: ClassVar[Literal["extension_error"]] = "extension_error"

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "type": "extension_error", "extensionPath": self.extension_path, "event": self.event, "error": self.error,
        }
        if self.stack is not None:
            d["stack"] = self.stack
        return d


__all__ = [
    "EMITTED_ONLY_BY", "EVENT_NAMES", "SessionBeforeForkEvent", "SessionDirectoryEvent", "SessionForkEvent",
    "UserBashEvent",
    "BeforeAgentStartEvent", "BeforeAgentStartResult", "BeforeProviderRequestEvent",
    "CompactionOverride", "ContextEvent", "ContextResult", "CustomMessageSpec", "InputEvent", "InputResult",
    "ModelSelectEvent", "ResourcesDiscoverEvent", "ResourcesDiscoverResult", "SessionBeforeCompactEvent",
    "SessionBeforeResult", "SessionBeforeSwitchEvent", "SessionBeforeTreeEvent", "SessionCompactEvent",
    "SessionShutdownEvent", "SessionStartEvent", "SessionSwitchEvent", "SessionTreeEvent", "ToolCallEvent",
    "ToolCallResult", "ToolResultEvent", "ToolResultPatch", "ExtensionErrorEvent",
]
