"""Reading a decoded session-file line into its entry (``entry_from_json``, ``header_from_json``):
every field's JSON type is checked; a ``ValueError`` names the entry and the missing or wrong
field (the file reader adds the file and line).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import orjson

from autocue.llm.types import JSON, UserContent
from autocue.session.entries import (
    BranchSummaryEntry,
    CompactionEntry,
    CustomEntry,
    CustomMessageEntry,
    FileEntry,
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionEntry,
    SessionHeader,
    SessionInfoEntry,
    ThinkingLevelChangeEntry,
    UnknownEntry,
    _Entry,
)
from autocue.session.messages import content_list_from_json


def _shown(value: Any) -> str:
    """A JSON value as it is written in the file, cut to 40 characters (for error messages)."""
    try:
        text = orjson.dumps(value).decode()
    except orjson.JSONEncodeError:
        text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _extra(d: JSON, known: frozenset[str]) -> JSON | None:
    if d.keys() <= known:
        return None
    return {k: v for k, v in d.items() if k not in known}


_HEADER_KEYS = frozenset({"type", *(key for key, _, _ in SessionHeader.json_attrs())})


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
    return SessionHeader(d["id"], d.get("timestamp", ""), d.get("cwd", ""), d.get("version"), d.get("parentSession"),
                         extra=_extra(d, _HEADER_KEYS), raw=d if keep_raw else None)


_BASE_KEYS = frozenset({"type", "id", "parentId", "timestamp"})
_MESSAGE_KEYS = frozenset({*_BASE_KEYS, "message"})
_ENTRY_TYPES: dict[str, type[_Entry]] = {c.type: c for c in (
    ThinkingLevelChangeEntry, ModelChangeEntry, CompactionEntry, BranchSummaryEntry, CustomEntry, CustomMessageEntry,
    LabelEntry, SessionInfoEntry,
)}
_KNOWN = {t: frozenset({"type", *(key for key, _, _ in c.json_attrs())}) for t, c in _ENTRY_TYPES.items()}


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
    cls = _ENTRY_TYPES.get(t) if isinstance(t, str) else None
    if cls is None:
        return UnknownEntry(eid, pid, ts, str(t), d)
    f = _Fields(d, f"{t} entry {eid}")
    fields = {attr: _READ[key](f, key) for key, attr, _ in cls.json_attrs() if key not in _BASE_KEYS}
    return cast(SessionEntry, cls(eid, pid, ts, **fields, extra=_extra(d, _KNOWN[cls.type]), raw=raw))


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

    def any(self, key: str) -> Any:
        return self.d.get(key)

    def content(self, key: str) -> str | list[UserContent]:
        return content_list_from_json(self.d.get(key, ""), self.where)

    def display(self, key: str) -> bool:
        return bool(self.d.get(key, True))


_READ: dict[str, Callable[[_Fields, str], Any]] = {
    **dict.fromkeys(("thinkingLevel", "provider", "modelId", "summary", "firstKeptEntryId", "fromId", "customType",
                     "targetId"), _Fields.text),
    "tokensBefore": _Fields.number, "details": _Fields.any, "fromHook": _Fields.opt_bool, "data": _Fields.any,
    "content": _Fields.content, "display": _Fields.display, "label": _Fields.opt_text, "name": _Fields.opt_text,
}
"""How each field of a non-message entry is read (``KEYS`` of the entry classes)."""


__all__ = ["entry_from_json", "header_from_json"]
