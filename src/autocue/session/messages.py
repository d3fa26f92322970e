"""The agent-message roles a session adds to the LLM roles (``bashExecution``, ``custom``,
``branchSummary``, ``compactionSummary``; ``UnknownMessage`` keeps another role verbatim, never
sent to the model), their parsing, and pi's ``convertToLlm`` (``convert_message``: failed and
aborted assistant replies are dropped, like ``autocue.agent.loop.default_convert_message``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, TypeAlias

from autocue.casing import CamelJson
from autocue.llm.types import (
    JSON,
    AssistantMessage,
    ImageContent,
    Message,
    TextContent,
    ToolResultMessage,
    UserContent,
    UserMessage,
    content_from_json,
    message_from_json,
    now_ms,
)

COMPACTION_SUMMARY_PREFIX = (
    "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
)
COMPACTION_SUMMARY_SUFFIX = "\n</summary>"
BRANCH_SUMMARY_PREFIX = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
BRANCH_SUMMARY_SUFFIX = "</summary>"


@dataclass(slots=True)
class BashExecutionMessage(CamelJson):
    """A shell command the user ran directly (pi's ``!cmd``); ``!!`` sets ``exclude_from_context``."""

    command: str
    output: str
    exit_code: int | None
    cancelled: bool
    truncated: bool
    full_output_path: str | None = None
    exclude_from_context: bool = False
    timestamp: int = field(default_factory=now_ms)
    role: ClassVar[Literal["bashExecution"]] = "bashExecution"
    HEAD = "role"
    KEYS = ("command", "output", "exitCode?", "cancelled", "truncated", "fullOutputPath?", "timestamp")

    def to_json(self) -> JSON:
        d = CamelJson.to_json(self)
        if self.exclude_from_context:  # written only when set
            d["excludeFromContext"] = True
        return d


@dataclass(slots=True)
class CustomMessage(CamelJson):
    """A message an extension injects; it reaches the model as a user message."""

    custom_type: str
    content: str | list[UserContent]
    display: bool
    details: Any = None
    timestamp: int = field(default_factory=now_ms)
    role: ClassVar[Literal["custom"]] = "custom"
    HEAD = "role"
    KEYS = ("customType", "content", "display", "details?", "timestamp")


@dataclass(slots=True)
class BranchSummaryMessage(CamelJson):
    """The summary of a branch the conversation came back from (built from a ``branch_summary`` entry)."""

    summary: str
    from_id: str
    timestamp: int = field(default_factory=now_ms)
    role: ClassVar[Literal["branchSummary"]] = "branchSummary"
    HEAD = "role"
    KEYS = ("summary", "fromId", "timestamp")


@dataclass(slots=True)
class CompactionSummaryMessage(CamelJson):
    """The summary that replaces compacted history (built from a ``compaction`` entry)."""

    summary: str
    tokens_before: int
    timestamp: int = field(default_factory=now_ms)
    role: ClassVar[Literal["compactionSummary"]] = "compactionSummary"
    HEAD = "role"
    KEYS = ("summary", "tokensBefore", "timestamp")


@dataclass(slots=True)
class UnknownMessage:
    """A message whose role this version does not know (another tool's extension): kept
    verbatim in the session, never sent to the model."""

    role: str
    data: JSON = field(repr=False)

    def to_json(self) -> JSON:
        return self.data


SessionMessage: TypeAlias = (
    BashExecutionMessage | CustomMessage | BranchSummaryMessage | CompactionSummaryMessage | UnknownMessage
)
AgentMessage: TypeAlias = Message | SessionMessage

AGENT_ROLES = frozenset({"user", "assistant", "toolResult", "bashExecution", "custom", "branchSummary",
                         "compactionSummary", "hookMessage"})


def content_list_from_json(raw: Any, where: str) -> str | list[UserContent]:
    """Parse ``string | (text | image)[]`` content (custom messages, custom_message entries)."""
    if isinstance(raw, str):
        return raw
    if not isinstance(raw, list):
        raise ValueError(f"{where}: content must be a string or a list of text/image blocks")
    out: list[UserContent] = []
    for i, b in enumerate(raw):
        check_block_json(b, f"{where}: content[{i}]")
        block = content_from_json(b)
        if not isinstance(block, (TextContent, ImageContent)):
            raise ValueError(f"{where}: content block of type {block.type!r} is not allowed here")
        out.append(block)
    return out


# What each field of a stored message may hold (the JSON types pi writes, as exact Python
# types: ``True`` is not a number). A file that holds anything else is reported as malformed
# here, so a typed message never carries a wrong type.
_Fields = tuple[tuple[str, frozenset[Any]], ...]
_STR = frozenset({str})
_OPT_STR = frozenset({str, type(None)})
_NUMBER = frozenset({int, float})
_BLOCK_FIELDS: dict[str, _Fields] = {
    "text": (("text", _STR), ("textSignature", _OPT_STR)),
    "thinking": (("thinking", _STR), ("thinkingSignature", _OPT_STR)),
    "image": (("data", _STR), ("mimeType", _STR)),
    "toolCall": (("id", _STR), ("name", _STR), ("arguments", frozenset({dict, type(None)})),
                 ("thoughtSignature", _OPT_STR)),
}
_MESSAGE_FIELDS: dict[str, _Fields] = {
    "user": (("content", frozenset({str, list})), ("timestamp", _NUMBER)),
    "assistant": (("content", frozenset({list, type(None)})), ("api", _STR), ("provider", _STR), ("model", _STR),
                  ("usage", frozenset({dict, type(None)})), ("stopReason", _STR), ("errorMessage", _OPT_STR),
                  ("timestamp", _NUMBER), ("responseId", _OPT_STR)),
    "toolResult": (("toolCallId", _STR), ("toolName", _STR), ("content", frozenset({list, type(None)})),
                   ("timestamp", _NUMBER)),
    "bashExecution": (("command", _STR), ("output", _STR), ("exitCode", frozenset({int, type(None)})),
                      ("fullOutputPath", _OPT_STR), ("timestamp", _NUMBER)),
    "custom": (("customType", _STR), ("timestamp", _NUMBER)),
    "hookMessage": (("customType", _STR), ("timestamp", _NUMBER)),
    "branchSummary": (("summary", _STR), ("fromId", _STR), ("timestamp", _NUMBER)),
    "compactionSummary": (("summary", _STR), ("tokensBefore", _NUMBER), ("timestamp", _NUMBER)),
}
_USAGE_FIELDS: _Fields = tuple((k, _NUMBER) for k in ("input", "output", "cacheRead", "cacheWrite", "totalTokens"))
_COST_FIELDS: _Fields = tuple((k, _NUMBER) for k in ("input", "output", "cacheRead", "cacheWrite", "total"))
_ABSENT = object()
_TYPE_NAMES = {str: "a string", int: "an integer", float: "a number", list: "a list", dict: "an object",
               type(None): "null"}


def _place(where: str | Callable[[], str]) -> str:
    """The place an error names (made only once there is an error)."""
    return where if isinstance(where, str) else where()


def _check_fields(d: JSON, fields: _Fields, where: str | Callable[[], str]) -> None:
    get = d.get
    for key, allowed in fields:
        v = get(key, _ABSENT)
        if type(v) not in allowed and v is not _ABSENT:
            names = " or ".join(name for t, name in _TYPE_NAMES.items() if t in allowed)
            raise ValueError(f"{_place(where)}: \"{key}\" must be {names}, got {type(v).__name__}")


def check_block_json(b: Any, where: str | Callable[[], str]) -> None:
    """Raise ``ValueError`` unless ``b`` is a content block object whose known fields have pi's types."""
    if type(b) is not dict:
        raise ValueError(f"{_place(where)}: a content block must be an object, got {type(b).__name__}")
    t = b.get("type")
    fields = _BLOCK_FIELDS.get(t) if type(t) is str else None
    if fields is not None:
        _check_fields(b, fields, lambda: f"{_place(where)} ({t})")


def check_message_json(d: JSON) -> None:
    """Raise ``ValueError`` naming the field when a stored message holds a JSON type pi never
    writes there (a string timestamp, a number as text, a block that is not an object, ...)."""
    role = d.get("role")
    fields = _MESSAGE_FIELDS.get(role) if type(role) is str else None
    if fields is None:
        return
    _check_fields(d, fields, lambda: f"{role} message")
    content = d.get("content")
    if type(content) is list:
        for i, b in enumerate(content):
            check_block_json(b, lambda i=i: f"{role} message: content[{i}]")  # type: ignore[misc]
    usage = d.get("usage")
    if type(usage) is dict:
        _check_fields(usage, _USAGE_FIELDS, lambda: f"{role} message: usage")
        cost = usage.get("cost")
        if type(cost) is dict:
            _check_fields(cost, _COST_FIELDS, lambda: f"{role} message: usage.cost")


def agent_message_from_json(d: JSON, *, strict: bool = True) -> AgentMessage:
    """Parse an agent message of any role from its JSON form (v2's ``hookMessage`` reads as ``custom``).

    Raises ``ValueError`` naming the role and field for malformed messages, and for unknown
    roles unless ``strict=False`` (then an unknown role gives an ``UnknownMessage``).
    """
    role = d.get("role")
    check_message_json(d)
    if role == "user" or role == "assistant" or role == "toolResult":
        return message_from_json(d)
    try:
        if role == "bashExecution":
            return BashExecutionMessage(
                d["command"],
                d.get("output", ""),
                d.get("exitCode"),
                bool(d.get("cancelled", False)),
                bool(d.get("truncated", False)),
                d.get("fullOutputPath"),
                bool(d.get("excludeFromContext", False)),
                d.get("timestamp", 0),
            )
        if role == "custom" or role == "hookMessage":
            return CustomMessage(
                d["customType"],
                content_list_from_json(d.get("content", ""), "custom message"),
                bool(d.get("display", True)),
                d.get("details"),
                d.get("timestamp", 0),
            )
        if role == "branchSummary":
            return BranchSummaryMessage(d["summary"], d.get("fromId", ""), d.get("timestamp", 0))
        if role == "compactionSummary":
            return CompactionSummaryMessage(d["summary"], d.get("tokensBefore", 0), d.get("timestamp", 0))
    except KeyError as e:
        raise ValueError(f"{role} message is missing field {e.args[0]!r}") from None
    if not strict and isinstance(role, str):
        return UnknownMessage(role, d)
    raise ValueError(
        f"unknown message role {role!r} (expected user, assistant, toolResult, bashExecution, custom, "
        "branchSummary or compactionSummary)"
    )


def bash_execution_to_text(m: BashExecutionMessage) -> str:
    """The user-message text pi sends for a bash execution."""
    text = f"Ran `{m.command}`\n"
    text += f"```\n{m.output}\n```" if m.output else "(no output)"
    if m.cancelled:
        text += "\n\n(command cancelled)"
    elif m.exit_code is not None and m.exit_code != 0:
        text += f"\n\nCommand exited with code {m.exit_code}"
    if m.truncated and m.full_output_path:
        text += f"\n\n[Output truncated. Full output: {m.full_output_path}]"
    return text


def convert_message(m: Any) -> Message | None:
    """One agent message to what the model sees (pi's ``convertToLlm``), or ``None`` to drop it
    (usable as ``Agent(convert_message=...)``)."""
    role = m.role
    if role == "assistant":
        return None if m.stop_reason == "error" or m.stop_reason == "aborted" else m  # type: ignore[no-any-return]
    if role == "user" or role == "toolResult":
        return m  # type: ignore[no-any-return]
    if role == "bashExecution":
        if m.exclude_from_context:
            return None
        return UserMessage([TextContent(bash_execution_to_text(m))], m.timestamp)
    if role == "custom":
        c = m.content
        return UserMessage([TextContent(c)] if isinstance(c, str) else list(c), m.timestamp)
    if role == "branchSummary":
        return UserMessage([TextContent(BRANCH_SUMMARY_PREFIX + m.summary + BRANCH_SUMMARY_SUFFIX)], m.timestamp)
    if role == "compactionSummary":
        text = COMPACTION_SUMMARY_PREFIX + m.summary + COMPACTION_SUMMARY_SUFFIX
        return UserMessage([TextContent(text)], m.timestamp)
    return None


def convert_to_llm(messages: list[Any]) -> list[Message]:
    """``convert_message`` over a list, dropping the ``None`` results."""
    return [c for m in messages if (c := convert_message(m)) is not None]


__all__ = [
    "AGENT_ROLES", "BRANCH_SUMMARY_PREFIX", "BRANCH_SUMMARY_SUFFIX", "COMPACTION_SUMMARY_PREFIX",
    "COMPACTION_SUMMARY_SUFFIX", "AgentMessage", "AssistantMessage", "BashExecutionMessage",
    "BranchSummaryMessage", "CompactionSummaryMessage", "CustomMessage", "SessionMessage",
    "ToolResultMessage", "UnknownMessage", "agent_message_from_json", "bash_execution_to_text",
    "check_block_json", "check_message_json", "content_list_from_json",
    "convert_message", "convert_to_llm",
]
