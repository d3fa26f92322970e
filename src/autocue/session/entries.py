"""Session file entries (pi v3 JSONL): one dataclass per entry type.

Every entry has ``id`` (8 hex chars), ``parent_id`` (``None`` for a root) and ``timestamp``
(ISO string with milliseconds and ``Z``); ``type`` is a class attribute. ``to_json()`` gives
pi's camelCase dict with pi's key order (JavaScript ``JSON.stringify`` order of pi's object
literals; absent optional fields are left out). Unknown keys are kept in ``extra``, and an
entry read from a file keeps the dict it was read from in ``raw`` (a message entry keeps the
line's bytes and decodes them on first access): ``to_json()`` returns that dict, so a loaded
line re-serializes byte for byte. Entries are append-only records: do not mutate a loaded entry.

Public surface:

- ``SessionHeader`` (line 1, not part of the tree), ``MessageEntry``,
  ``ThinkingLevelChangeEntry``, ``ModelChangeEntry``, ``CompactionEntry``,
  ``BranchSummaryEntry``, ``CustomEntry``, ``CustomMessageEntry``, ``LabelEntry``,
  ``SessionInfoEntry``, ``UnknownEntry`` (a type this version does not know, kept verbatim).
- ``SessionEntry`` (the union), ``FileEntry`` (header or entry).
- ``entry_from_json(d)`` (any line, header included), ``header_from_json(d)``.
- ``loads_line(raw)``: decode one line (orjson, the standard library for lone surrogates).
- ``dumps_line(d)``: the JSONL line for a dict (compact, non-ASCII kept, like ``JSON.stringify``).
- ``iso_now()``, ``iso_to_ms(s)``: the timestamp forms pi uses.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ClassVar, Literal, TypeAlias

import orjson

from autocue.errors import AutocueError
from autocue.llm.types import JSON, UserContent
from autocue.session.messages import (
    AgentMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    agent_message_from_json,
    content_list_from_json,
)

CURRENT_SESSION_VERSION = 3


class EntryParseError(AutocueError, ValueError):
    """A loaded entry whose message turned out malformed when it was first read."""

    def __init__(self, message: str, entry_id: str, line: int | None) -> None:
        super().__init__(message)
        self.entry_id = entry_id
        self.line = line


_new = object.__new__


def iso_now() -> str:
    """Now as pi writes entry timestamps: ``2026-11-22T02:49:17.428Z``."""
    t = time.time()
    sec = int(t)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(sec)) + f".{int((t - sec) * 1000):03d}Z"


def iso_to_ms(s: str) -> int:
    """Epoch milliseconds of an ISO timestamp (JavaScript ``new Date(s).getTime()``); 0 if unparsable."""
    try:
        return round(datetime.fromisoformat(s).timestamp() * 1000)
    except (ValueError, TypeError):
        return 0


def dumps_line(d: Any) -> bytes:
    """One JSONL line (with the newline) in ``JSON.stringify`` form: compact, UTF-8, keys in order.

    Values orjson refuses (a lone surrogate from undecodable tool output, an int beyond 64
    bits, non-string keys) go through the standard library instead; lone surrogates are
    written as ``\\udXXX`` escapes, as JavaScript's well-formed ``JSON.stringify`` does.
    """
    try:
        return orjson.dumps(d) + b"\n"
    except orjson.JSONEncodeError:
        try:
            text = json.dumps(d, ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=str)
        except RecursionError:
            raise ValueError("JSON nested too deeply to write") from None
        return text.encode("utf-8", "backslashreplace") + b"\n"


def loads_line(raw: bytes) -> Any:
    """Decode one JSONL line (``orjson``; the standard library for what orjson refuses).

    orjson refuses ``\\udXXX`` escapes of lone surrogates, which ``JSON.stringify`` (and
    ``dumps_line``) write for undecodable text; the standard library reads them.
    """
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        try:
            return json.loads(raw)
        except RecursionError:
            raise ValueError("JSON nested too deeply") from None


def _shown(value: Any) -> str:
    """A JSON value as it is written in the file, cut to 40 characters (for error messages)."""
    try:
        text = orjson.dumps(value).decode()
    except orjson.JSONEncodeError:
        text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _content_json(c: str | list[UserContent]) -> Any:
    return c if isinstance(c, str) else [b.to_json() for b in c]


def _extra(d: JSON, known: frozenset[str]) -> JSON | None:
    if d.keys() <= known:
        return None
    return {k: v for k, v in d.items() if k not in known}


def _with_extra(d: JSON, extra: JSON | None) -> JSON:
    if extra:
        for k, v in extra.items():
            d.setdefault(k, v)
    return d


# ---------------------------------------------------------------------------- header


@dataclass(slots=True)
class SessionHeader:
    """Line 1 of a session file: ``{"type":"session","version":3,"id",...,"cwd",...}``."""

    id: str
    timestamp: str
    cwd: str
    version: int | None = CURRENT_SESSION_VERSION
    parent_session: str | None = None
    extra: JSON | None = field(default=None, repr=False)
    raw: JSON | None = field(default=None, repr=False, compare=False)
    type: ClassVar[Literal["session"]] = "session"

    def to_json(self) -> JSON:
        if self.raw is not None:
            return self.raw
        d: JSON = {"type": "session"}
        if self.version is not None:
            d["version"] = self.version
        d["id"] = self.id
        d["timestamp"] = self.timestamp
        d["cwd"] = self.cwd
        if self.parent_session is not None:
            d["parentSession"] = self.parent_session
        return _with_extra(d, self.extra)


_HEADER_KEYS = frozenset({"type", "version", "id", "timestamp", "cwd", "parentSession"})


def header_from_json(d: JSON, *, keep_raw: bool = True) -> SessionHeader:
    """Parse a header line; raises ``ValueError`` when it is not one."""
    if d.get("type") != "session":
        raise ValueError(f"expected a session header ({{\"type\":\"session\",...}}), got type {d.get('type')!r}")
    if not isinstance(d.get("id"), str):
        raise ValueError("session header has no string \"id\"")
    version = d.get("version")
    if "version" in d and (type(version) is not int or version < 1):  # absent: a v1 file, like pi
        raise ValueError(f"session header \"version\" must be a JSON integer (1, 2 or 3), got {_shown(version)}")
    for key in ("timestamp", "cwd"):
        if key in d and not isinstance(d[key], str):
            raise ValueError(f"session header \"{key}\" must be a string, got {_shown(d[key])}")
    if d.get("parentSession") is not None and not isinstance(d["parentSession"], str):
        raise ValueError(f"session header \"parentSession\" must be a string, got {_shown(d['parentSession'])}")
    return SessionHeader(
        d["id"],
        d.get("timestamp", ""),
        d.get("cwd", ""),
        d.get("version"),
        d.get("parentSession"),
        _extra(d, _HEADER_KEYS),
        d if keep_raw else None,
    )


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

    @classmethod
    def loaded(cls, d: JSON, message_json: JSON, line: int | None) -> MessageEntry:
        """A message entry read from a file line ``d`` that has exactly pi's five keys (fast path)."""
        return _new(cls)._fill(d["id"], d["parentId"], d["timestamp"], message_json["role"], None, message_json, d,
                               None, line)

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


def _js_number(v: Any) -> Any:
    return int(v) if isinstance(v, float) and v.is_integer() and abs(v) < 2**53 else v


def _message_to_json(m: AgentMessage) -> JSON:
    d = m.to_json()
    if m.role == "assistant":
        # JSON.stringify writes 0 for 0.0: keep computed costs byte-compatible with pi's files.
        usage = d.get("usage")
        if isinstance(usage, dict):
            cost = usage.get("cost")
            if isinstance(cost, dict):
                for k, v in cost.items():
                    if isinstance(v, float):
                        cost[k] = _js_number(v)
    return d


@dataclass(slots=True)
class ThinkingLevelChangeEntry:
    id: str
    parent_id: str | None
    timestamp: str
    thinking_level: str
    extra: JSON | None = field(default=None, repr=False)
    raw: JSON | None = field(default=None, repr=False, compare=False)
    type: ClassVar[Literal["thinking_level_change"]] = "thinking_level_change"

    def to_json(self) -> JSON:
        if self.raw is not None:
            return self.raw
        d: JSON = {"type": "thinking_level_change", "id": self.id, "parentId": self.parent_id,
                   "timestamp": self.timestamp, "thinkingLevel": self.thinking_level}
        return _with_extra(d, self.extra)


@dataclass(slots=True)
class ModelChangeEntry:
    id: str
    parent_id: str | None
    timestamp: str
    provider: str
    model_id: str
    extra: JSON | None = field(default=None, repr=False)
    raw: JSON | None = field(default=None, repr=False, compare=False)
    type: ClassVar[Literal["model_change"]] = "model_change"

    def to_json(self) -> JSON:
        if self.raw is not None:
            return self.raw
        d: JSON = {"type": "model_change", "id": self.id, "parentId": self.parent_id,
                   "timestamp": self.timestamp, "provider": self.provider, "modelId": self.model_id}
        return _with_extra(d, self.extra)


@dataclass(slots=True)
class CompactionEntry:
    """History before ``first_kept_entry_id`` was replaced by ``summary``."""

    id: str
    parent_id: str | None
    timestamp: str
    summary: str
    first_kept_entry_id: str
    tokens_before: int
    details: Any = None
    """pi's default: ``{"readFiles": [...], "modifiedFiles": [...]}``."""
    from_hook: bool | None = None
    """True when an extension supplied the summary."""
    extra: JSON | None = field(default=None, repr=False)
    raw: JSON | None = field(default=None, repr=False, compare=False)
    type: ClassVar[Literal["compaction"]] = "compaction"

    def to_json(self) -> JSON:
        if self.raw is not None:
            return self.raw
        d: JSON = {"type": "compaction", "id": self.id, "parentId": self.parent_id, "timestamp": self.timestamp,
                   "summary": self.summary, "firstKeptEntryId": self.first_kept_entry_id,
                   "tokensBefore": self.tokens_before}
        if self.details is not None:
            d["details"] = self.details
        if self.from_hook is not None:
            d["fromHook"] = self.from_hook
        return _with_extra(d, self.extra)

    def to_message(self) -> CompactionSummaryMessage:
        return CompactionSummaryMessage(self.summary, self.tokens_before, iso_to_ms(self.timestamp))


@dataclass(slots=True)
class BranchSummaryEntry:
    """The summary of the branch the conversation left when it moved to ``from_id``."""

    id: str
    parent_id: str | None
    timestamp: str
    from_id: str
    summary: str
    details: Any = None
    from_hook: bool | None = None
    extra: JSON | None = field(default=None, repr=False)
    raw: JSON | None = field(default=None, repr=False, compare=False)
    type: ClassVar[Literal["branch_summary"]] = "branch_summary"

    def to_json(self) -> JSON:
        if self.raw is not None:
            return self.raw
        d: JSON = {"type": "branch_summary", "id": self.id, "parentId": self.parent_id,
                   "timestamp": self.timestamp, "fromId": self.from_id, "summary": self.summary}
        if self.details is not None:
            d["details"] = self.details
        if self.from_hook is not None:
            d["fromHook"] = self.from_hook
        return _with_extra(d, self.extra)

    def to_message(self) -> BranchSummaryMessage:
        return BranchSummaryMessage(self.summary, self.from_id, iso_to_ms(self.timestamp))


@dataclass(slots=True)
class CustomEntry:
    """Extension state (``custom_type`` names the extension); never part of the LLM context."""

    id: str
    parent_id: str | None
    timestamp: str
    custom_type: str
    data: Any = None
    extra: JSON | None = field(default=None, repr=False)
    raw: JSON | None = field(default=None, repr=False, compare=False)
    type: ClassVar[Literal["custom"]] = "custom"

    def to_json(self) -> JSON:
        if self.raw is not None:
            return self.raw
        d: JSON = {"type": "custom", "customType": self.custom_type}
        if self.data is not None:
            d["data"] = self.data
        d["id"] = self.id
        d["parentId"] = self.parent_id
        d["timestamp"] = self.timestamp
        return _with_extra(d, self.extra)


@dataclass(slots=True)
class CustomMessageEntry:
    """An extension's message that is part of the LLM context (as a user message)."""

    id: str
    parent_id: str | None
    timestamp: str
    custom_type: str
    content: str | list[UserContent]
    display: bool
    details: Any = None
    extra: JSON | None = field(default=None, repr=False)
    raw: JSON | None = field(default=None, repr=False, compare=False)
    type: ClassVar[Literal["custom_message"]] = "custom_message"

    def to_json(self) -> JSON:
        if self.raw is not None:
            return self.raw
        d: JSON = {"type": "custom_message", "customType": self.custom_type,
                   "content": _content_json(self.content), "display": self.display}
        if self.details is not None:
            d["details"] = self.details
        d["id"] = self.id
        d["parentId"] = self.parent_id
        d["timestamp"] = self.timestamp
        return _with_extra(d, self.extra)

    def to_message(self) -> CustomMessage:
        return CustomMessage(self.custom_type, self.content, self.display, self.details, iso_to_ms(self.timestamp))


@dataclass(slots=True)
class LabelEntry:
    """Sets (or, with ``label=None``, clears) the label of ``target_id``."""

    id: str
    parent_id: str | None
    timestamp: str
    target_id: str
    label: str | None = None
    extra: JSON | None = field(default=None, repr=False)
    raw: JSON | None = field(default=None, repr=False, compare=False)
    type: ClassVar[Literal["label"]] = "label"

    def to_json(self) -> JSON:
        if self.raw is not None:
            return self.raw
        d: JSON = {"type": "label", "id": self.id, "parentId": self.parent_id, "timestamp": self.timestamp,
                   "targetId": self.target_id}
        if self.label is not None:
            d["label"] = self.label
        return _with_extra(d, self.extra)


@dataclass(slots=True)
class SessionInfoEntry:
    """Session metadata (the display name)."""

    id: str
    parent_id: str | None
    timestamp: str
    name: str | None = None
    extra: JSON | None = field(default=None, repr=False)
    raw: JSON | None = field(default=None, repr=False, compare=False)
    type: ClassVar[Literal["session_info"]] = "session_info"

    def to_json(self) -> JSON:
        if self.raw is not None:
            return self.raw
        d: JSON = {"type": "session_info", "id": self.id, "parentId": self.parent_id, "timestamp": self.timestamp}
        if self.name is not None:
            d["name"] = self.name
        return _with_extra(d, self.extra)


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

_BASE = ("type", "id", "parentId", "timestamp")
_KNOWN: dict[str, frozenset[str]] = {
    "message": frozenset({*_BASE, "message"}),
    "thinking_level_change": frozenset({*_BASE, "thinkingLevel"}),
    "model_change": frozenset({*_BASE, "provider", "modelId"}),
    "compaction": frozenset({*_BASE, "summary", "firstKeptEntryId", "tokensBefore", "details", "fromHook"}),
    "branch_summary": frozenset({*_BASE, "fromId", "summary", "details", "fromHook"}),
    "custom": frozenset({*_BASE, "customType", "data"}),
    "custom_message": frozenset({*_BASE, "customType", "content", "display", "details"}),
    "label": frozenset({*_BASE, "targetId", "label"}),
    "session_info": frozenset({*_BASE, "name"}),
}
_MESSAGE_KEYS = _KNOWN["message"]


def entry_from_json(d: JSON, *, keep_raw: bool = True, line: int | None = None) -> FileEntry:
    """Parse one session-file line (already JSON-decoded): the header or any entry.

    With ``keep_raw`` (the default) the entry keeps ``d`` so ``to_json()`` returns it
    unchanged. Raises ``ValueError`` naming the missing or wrong field. A message entry's
    message is parsed lazily (its ``role`` is checked now).
    """
    t = d.get("type")
    if t == "session":
        return header_from_json(d, keep_raw=keep_raw)
    eid = d.get("id")
    if not isinstance(eid, str):
        raise ValueError(f"{t or 'entry'} entry has no string \"id\"")
    pid = d.get("parentId")
    if pid is not None and not isinstance(pid, str):
        raise ValueError(f"entry {eid}: \"parentId\" must be a string or null")
    ts = d.get("timestamp", "")
    if not isinstance(ts, str):
        raise ValueError(f"entry {eid}: \"timestamp\" must be a string, got {_shown(ts)}")
    raw = d if keep_raw else None
    if t == "message":
        msg = d.get("message")
        if not isinstance(msg, dict) or not isinstance(msg.get("role"), str):
            raise ValueError(f"entry {eid}: \"message\" must be an object with a \"role\"")
        extra = None if d.keys() <= _MESSAGE_KEYS else _extra(d, _MESSAGE_KEYS)
        return MessageEntry(eid, pid, ts, message_json=msg, extra=extra, raw=raw, line=line)
    known = _KNOWN.get(t) if isinstance(t, str) else None
    if known is None:
        return UnknownEntry(eid, pid, ts, str(t), d)
    f = _Fields(d, f"{t} entry {eid}")
    extra = _extra(d, known)
    if t == "thinking_level_change":
        return ThinkingLevelChangeEntry(eid, pid, ts, f.text("thinkingLevel"), extra, raw)
    if t == "model_change":
        return ModelChangeEntry(eid, pid, ts, f.text("provider"), f.text("modelId"), extra, raw)
    if t == "compaction":
        return CompactionEntry(eid, pid, ts, f.text("summary"), f.text("firstKeptEntryId"), f.number("tokensBefore"),
                               d.get("details"), f.opt_bool("fromHook"), extra, raw)
    if t == "branch_summary":
        return BranchSummaryEntry(eid, pid, ts, f.text("fromId"), f.text("summary"), d.get("details"),
                                  f.opt_bool("fromHook"), extra, raw)
    if t == "custom":
        return CustomEntry(eid, pid, ts, f.text("customType"), d.get("data"), extra, raw)
    if t == "custom_message":
        custom_type = f.text("customType")
        content = content_list_from_json(d.get("content", ""), f"custom_message entry {eid}")
        return CustomMessageEntry(eid, pid, ts, custom_type, content, bool(d.get("display", True)),
                                  d.get("details"), extra, raw)
    if t == "label":
        return LabelEntry(eid, pid, ts, f.text("targetId"), f.opt_text("label"), extra, raw)
    return SessionInfoEntry(eid, pid, ts, f.opt_text("name"), extra, raw)


class _Fields:
    """Typed reads of an entry's fields, raising ``ValueError`` that names the entry and the field."""

    __slots__ = ("d", "where")

    def __init__(self, d: JSON, where: str) -> None:
        self.d = d
        self.where = where

    def _wrong(self, key: str, expected: str) -> ValueError:
        return ValueError(f"{self.where}: \"{key}\" must be {expected}, got {_shown(self.d[key])}")

    def text(self, key: str) -> str:
        if key not in self.d:
            raise ValueError(f"{self.where} is missing field {key!r}")
        v = self.d[key]
        if not isinstance(v, str):
            raise self._wrong(key, "a string")
        return v

    def opt_text(self, key: str) -> str | None:
        v = self.d.get(key)
        if v is not None and not isinstance(v, str):
            raise self._wrong(key, "a string or null")
        return v

    def opt_bool(self, key: str) -> bool | None:
        v = self.d.get(key)
        if v is not None and not isinstance(v, bool):
            raise self._wrong(key, "true, false or null")
        return v

    def number(self, key: str) -> int:
        v = self.d.get(key, 0)
        if type(v) is not int and type(v) is not float:
            raise self._wrong(key, "a number")
        return v  # type: ignore[return-value]


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
    "SessionInfoEntry", "ThinkingLevelChangeEntry", "UnknownEntry", "dumps_line", "entry_from_json",
    "header_from_json", "iso_now", "iso_to_ms", "loads_line", "message_of",
]
