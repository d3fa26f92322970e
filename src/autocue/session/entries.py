"""Session file entries (pi v3 JSONL): one class per entry type, ``SessionEntry`` their union,
``message_of(entry)`` the agent message an entry contributes to the context.

Every entry has ``id`` (8 hex chars), ``parent_id`` (``None`` for a root) and ``timestamp``
(ISO string with milliseconds and ``Z``); ``type`` is a class attribute. ``to_json()`` gives
pi's camelCase dict with pi's key order (JavaScript ``JSON.stringify`` order of pi's object
literals; absent optional fields are left out). Unknown keys are kept in ``extra``, and an
entry read from a file keeps the dict it was read from in ``raw`` (a message entry keeps the
line's bytes and decodes them on first access): ``to_json()`` returns that dict, so a loaded
line re-serializes byte for byte. Entries are append-only records: do not mutate a loaded entry.
Reading a line into an entry is ``entry_parsing.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, TypeAlias

from autocue.casing import CamelJson
from autocue.llm.types import JSON, UserContent
from autocue.session.errors import EntryParseError as EntryParseError
from autocue.session.file_format import iso_to_ms, loads_line
from autocue.session.messages import (
    AgentMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    agent_message_from_json,
)

CURRENT_SESSION_VERSION = 3


_new = object.__new__


def _with_extra(d: JSON, extra: JSON | None) -> JSON:
    if extra:
        for k, v in extra.items():
            d.setdefault(k, v)
    return d


# ---------------------------------------------------------------------------- header

@dataclass(slots=True)
class _Record(CamelJson):
    """What the header and every entry but a message share: ``extra`` (unknown keys), ``raw`` (the
    dict the line was read from) and ``to_json()`` from ``KEYS`` (see ``CamelJson``)."""

    extra: JSON | None = field(default=None, repr=False, kw_only=True)
    raw: JSON | None = field(default=None, repr=False, compare=False, kw_only=True)
    type: ClassVar[str]

    def to_json(self) -> JSON:
        if self.raw is not None:
            return self.raw
        return _with_extra(CamelJson.to_json(self), self.extra)


@dataclass(slots=True)
class SessionHeader(_Record):
    """Line 1 of a session file: ``{"type":"session","version":3,"id",...,"cwd",...}``."""

    id: str
    timestamp: str
    cwd: str
    version: int | None = CURRENT_SESSION_VERSION
    parent_session: str | None = None
    KEYS = ("version?", "id", "timestamp", "cwd", "parentSession?")
    type: ClassVar[Literal["session"]] = "session"


# ---------------------------------------------------------------------------- entries


class MessageEntry:
    """``{"type":"message",...,"message":{...}}``: one agent message on the tree.

    A loaded entry keeps the bytes of its file line rather than the decoded dict: ``raw``
    (and ``message_json``) decode them again on first access, so a long file costs no kept
    dicts. ``SessionManager.open`` builds the typed message at once; an entry made by
    ``entry_from_json`` parses it on first access to ``message``.
    """

    __slots__ = ("_json", "_line", "_message", "_raw", "extra", "id", "line", "parent_id", "role", "timestamp")
    type: ClassVar[Literal["message"]] = "message"

    def __init__(
        self,
        id: str,
        parent_id: str | None,
        timestamp: str,
        message: AgentMessage | None = None,
        *,
        message_json: JSON | None = None,
        extra: JSON | None = None,
        raw: JSON | None = None,
        line: int | None = None,
    ) -> None:
        if message is not None:
            role = message.role
        elif message_json is not None:
            role = str(message_json.get("role"))
        else:
            raise ValueError("MessageEntry needs a message or message_json")
        self._fill(id, parent_id, timestamp, role, message, message_json, raw, None, line, extra)

    def _fill(
        self,
        id: str,
        parent_id: str | None,
        timestamp: str,
        role: str,
        message: AgentMessage | None,
        message_json: JSON | None,
        raw: JSON | None,
        line_bytes: bytes | None,
        line: int | None,
        extra: JSON | None = None,
    ) -> MessageEntry:
        """Set every slot: the one place a message entry is built (``__init__``, ``of``, ``loaded``
        and the file loader's fast path all come here)."""
        self.id = id
        self.parent_id = parent_id
        self.timestamp = timestamp
        self.role: str = role
        self._message = message
        self._json = message_json
        self._raw = raw
        self._line: bytes | None = line_bytes
        self.line = line
        """The line the entry was read from (for error messages), or None."""
        self.extra = extra
        return self

    @classmethod
    def of(cls, id: str, parent_id: str | None, timestamp: str, message: AgentMessage) -> MessageEntry:
        """``MessageEntry(id, parent_id, timestamp, message)`` for a new message (the append hot path)."""
        return _new(cls)._fill(id, parent_id, timestamp, message.role, message, None, None, None, None)

    @property
    def raw(self) -> JSON | None:
        """The dict the entry was read from (None for an entry made in this process)."""
        r = self._raw
        if r is None and self._line is not None:
            r = self._raw = loads_line(self._line)
        return r

    @raw.setter
    def raw(self, value: JSON | None) -> None:
        self._raw = value
        self._line = None

    @property
    def message(self) -> AgentMessage:
        m = self._message
        if m is None:
            j = self.message_json
            try:
                m = self._message = agent_message_from_json(j, strict=False)
            except ValueError as e:
                raise EntryParseError(f"message entry {self.id}: {e}", self.id, self.line) from None
        return m

    def provider_model(self) -> tuple[str, str]:
        """``(provider, model)`` of an assistant message, without parsing it (``""`` for a non-string)."""
        m = self._message
        if m is not None:
            return (getattr(m, "provider", ""), getattr(m, "model", ""))
        j = self.message_json
        p, model = j.get("provider", ""), j.get("model", "")
        return (p if isinstance(p, str) else "", model if isinstance(model, str) else "")

    @property
    def message_json(self) -> JSON:
        j = self._json
        if j is None:
            raw = self.raw
            if raw is not None:
                j = self._json = raw["message"]
            else:
                assert self._message is not None
                j = self._json = _message_to_json(self._message)
        return j

    def to_json(self) -> JSON:
        raw = self.raw
        if raw is not None:
            return raw
        d: JSON = {
            "type": "message",
            "id": self.id,
            "parentId": self.parent_id,
            "timestamp": self.timestamp,
            "message": self.message_json,
        }
        return _with_extra(d, self.extra)

    def __repr__(self) -> str:
        return f"MessageEntry(id={self.id!r}, parent_id={self.parent_id!r}, role={self.role!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MessageEntry):
            return NotImplemented
        return (self.id, self.parent_id, self.timestamp, self.message_json) == (
            other.id, other.parent_id, other.timestamp, other.message_json)

    __hash__ = None  # type: ignore[assignment]


def _message_to_json(m: AgentMessage) -> JSON:
    d = m.to_json()
    if m.role == "assistant":
        # JSON.stringify writes 0 for 0.0: keep computed costs byte-compatible with pi's files.
        usage = d.get("usage")
        if isinstance(usage, dict):
            cost = usage.get("cost")
            if isinstance(cost, dict):
                for k, v in cost.items():
                    if isinstance(v, float) and v.is_integer() and abs(v) < 2**53:
                        cost[k] = int(v)
    return d


@dataclass(slots=True)
class _Entry(_Record):
    id: str
    parent_id: str | None
    timestamp: str


@dataclass(slots=True)
class ThinkingLevelChangeEntry(_Entry):
    thinking_level: str
    KEYS = ("id", "parentId", "timestamp", "thinkingLevel")
    type: ClassVar[Literal["thinking_level_change"]] = "thinking_level_change"


@dataclass(slots=True)
class ModelChangeEntry(_Entry):
    provider: str
    model_id: str
    KEYS = ("id", "parentId", "timestamp", "provider", "modelId")
    type: ClassVar[Literal["model_change"]] = "model_change"


@dataclass(slots=True)
class CompactionEntry(_Entry):
    """History before ``first_kept_entry_id`` was replaced by ``summary``."""

    summary: str
    first_kept_entry_id: str
    tokens_before: int
    details: Any = None
    """pi's default: ``{"readFiles": [...], "modifiedFiles": [...]}``."""
    from_hook: bool | None = None
    """True when an extension supplied the summary."""
    KEYS = ("id", "parentId", "timestamp", "summary", "firstKeptEntryId", "tokensBefore", "details?", "fromHook?")
    type: ClassVar[Literal["compaction"]] = "compaction"

    def to_message(self) -> CompactionSummaryMessage:
        return CompactionSummaryMessage(self.summary, self.tokens_before, iso_to_ms(self.timestamp))


@dataclass(slots=True)
class BranchSummaryEntry(_Entry):
    """The summary of the branch the conversation left when it moved to ``from_id``."""

    from_id: str
    summary: str
    details: Any = None
    from_hook: bool | None = None
    KEYS = ("id", "parentId", "timestamp", "fromId", "summary", "details?", "fromHook?")
    type: ClassVar[Literal["branch_summary"]] = "branch_summary"

    def to_message(self) -> BranchSummaryMessage:
        return BranchSummaryMessage(self.summary, self.from_id, iso_to_ms(self.timestamp))


@dataclass(slots=True)
class CustomEntry(_Entry):
    """Extension state (``custom_type`` names the extension); never part of the LLM context."""

    custom_type: str
    data: Any = None
    KEYS = ("customType", "data?", "id", "parentId", "timestamp")
    type: ClassVar[Literal["custom"]] = "custom"


@dataclass(slots=True)
class CustomMessageEntry(_Entry):
    """An extension's message that is part of the LLM context (as a user message)."""

    custom_type: str
    content: str | list[UserContent]
    display: bool
    details: Any = None
    KEYS = ("customType", "content", "display", "details?", "id", "parentId", "timestamp")
    type: ClassVar[Literal["custom_message"]] = "custom_message"

    def to_message(self) -> CustomMessage:
        return CustomMessage(self.custom_type, self.content, self.display, self.details, iso_to_ms(self.timestamp))


@dataclass(slots=True)
class LabelEntry(_Entry):
    """Sets (or, with ``label=None``, clears) the label of ``target_id``."""

    target_id: str
    label: str | None = None
    KEYS = ("id", "parentId", "timestamp", "targetId", "label?")
    type: ClassVar[Literal["label"]] = "label"


@dataclass(slots=True)
class SessionInfoEntry(_Entry):
    """Session metadata (the display name)."""

    name: str | None = None
    KEYS = ("id", "parentId", "timestamp", "name?")
    type: ClassVar[Literal["session_info"]] = "session_info"


@dataclass(slots=True)
class UnknownEntry:
    """An entry type this version does not know: kept verbatim, ignored by the context."""

    id: str
    parent_id: str | None
    timestamp: str
    entry_type: str
    raw: JSON = field(repr=False, compare=False)
    type: ClassVar[str] = "unknown"

    def to_json(self) -> JSON:
        return self.raw


SessionEntry: TypeAlias = (
    MessageEntry | ThinkingLevelChangeEntry | ModelChangeEntry | CompactionEntry | BranchSummaryEntry
    | CustomEntry | CustomMessageEntry | LabelEntry | SessionInfoEntry | UnknownEntry
)
FileEntry: TypeAlias = SessionHeader | SessionEntry


def message_of(entry: SessionEntry) -> AgentMessage | None:
    """The agent message an entry contributes to the context (pi's ``getMessageFromEntry``)."""
    t = entry.type
    if t == "message":
        return entry.message  # type: ignore[union-attr]
    if t == "custom_message" or t == "branch_summary" or t == "compaction":
        return entry.to_message()  # type: ignore[union-attr]
    return None


__all__ = [
    "CURRENT_SESSION_VERSION", "BranchSummaryEntry", "CompactionEntry", "CustomEntry", "CustomMessageEntry",
    "EntryParseError", "FileEntry", "LabelEntry", "MessageEntry", "ModelChangeEntry", "SessionEntry", "SessionHeader",
    "SessionInfoEntry", "ThinkingLevelChangeEntry", "UnknownEntry", "message_of",
]
