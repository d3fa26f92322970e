"""The directory of session files: where it is (pi's ``<AUTOCUE_DIR or ~/.autocue>/sessions/--<cwd
slug>--``), what its files are called, and what is in it (read leniently, for
``SessionManager.continue_recent`` and ``SessionManager.list``).
"""

from __future__ import annotations

import contextlib
import os
import time
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from autocue.llm.types import JSON
from autocue.session.errors import SessionFileError
from autocue.session.file_format import loads_line
from autocue.session.file_reader import read_session_bytes


def uuid7() -> str:
    """A UUIDv7 string (millisecond timestamp first, so ids sort by creation time)."""
    ms = (time.time_ns() // 1_000_000) & ((1 << 48) - 1)
    rand = int.from_bytes(os.urandom(10), "big")
    value = (ms << 80) | (0x7 << 76) | (((rand >> 62) & 0xFFF) << 64) | (0b10 << 62) | (rand & ((1 << 62) - 1))
    return str(uuid.UUID(int=value))


def autocue_dir(agent_dir: str | os.PathLike[str] | None = None) -> Path:
    """autocue's user directory: ``agent_dir`` when given, else ``$AUTOCUE_DIR`` or ``~/.autocue``."""
    if agent_dir is not None:
        return Path(agent_dir)
    env = os.environ.get("AUTOCUE_DIR")
    return Path(env).expanduser() if env else Path.home() / ".autocue"


def session_dir_slug(cwd: str) -> str:
    """pi's directory name for a cwd: leading slash dropped, ``/``, ``\\`` and ``:`` → ``-``, wrapped in ``--``."""
    s = cwd[1:] if cwd[:1] in ("/", "\\") else cwd
    return "--" + s.replace("/", "-").replace("\\", "-").replace(":", "-") + "--"


def default_session_dir(cwd: str) -> str:
    """``<autocue_dir>/sessions/--<slug>--`` (not created here: the first write creates it)."""
    return str(autocue_dir() / "sessions" / session_dir_slug(cwd))


def session_file_name(timestamp: str, session_id: str) -> str:
    """``<ISO timestamp, ":" and "." → "-">_<id>.jsonl``."""
    return f"{timestamp.replace(':', '-').replace('.', '-')}_{session_id}.jsonl"


@dataclass(slots=True)
class SessionInfo:
    """One session file as ``SessionManager.list`` reports it."""

    path: str
    id: str
    cwd: str
    name: str | None
    parent_session_path: str | None
    created: datetime
    modified: datetime
    message_count: int
    first_message: str
    all_messages_text: str


def _is_session_file(path: str) -> bool:
    try:
        first = read_session_bytes(path, 65536).split(b"\n", 1)[0]
        h = orjson.loads(first)
    except (SessionFileError, orjson.JSONDecodeError):
        return False
    return isinstance(h, dict) and h.get("type") == "session" and isinstance(h.get("id"), str)


def _jsonl_files(session_dir: str) -> list[str]:
    """The ``.jsonl`` files of a directory (none when it cannot be listed)."""
    try:
        names = os.listdir(session_dir)
    except OSError:
        return []
    return [os.path.join(session_dir, n) for n in names if n.endswith(".jsonl")]


def find_most_recent_session(session_dir: str) -> str | None:
    """The most recently modified valid ``.jsonl`` session file in a directory, or None."""
    valid = [(os.stat(p).st_mtime_ns, p) for p in _jsonl_files(session_dir) if _is_session_file(p)]
    return max(valid)[1] if valid else None


def _text_of(message: JSON) -> str:
    c = message.get("content")
    if isinstance(c, str):
        return c
    if isinstance(c, list):
        return " ".join(t for b in c if isinstance(b, dict) and b.get("type") == "text"
                        and isinstance(t := b.get("text"), str))
    return ""


def _session_info(path: str) -> SessionInfo | None:
    """What ``list`` shows of one file, read leniently (a line it cannot use is skipped; None
    when the file is unreadable or has no session header)."""
    try:
        data = read_session_bytes(path)
        mtime = os.stat(path).st_mtime
    except (OSError, SessionFileError):
        return None
    dicts: list[Any] = []
    for raw in data.split(b"\n"):
        if raw.strip():
            with contextlib.suppress(ValueError):
                dicts.append(loads_line(raw))
    if not dicts or not isinstance(dicts[0], dict) or dicts[0].get("type") != "session":
        return None
    header = dicts[0]
    name: str | None = None
    count = 0
    first = ""
    texts: list[str] = []
    last_activity = 0
    for d in dicts[1:]:
        if not isinstance(d, dict):
            continue
        t = d.get("type")
        if t == "session_info" and isinstance(d.get("name"), str) and d["name"].strip():
            name = d["name"].strip()
        if t != "message" or not isinstance(d.get("message"), dict):
            continue
        count += 1
        m = d["message"]
        if m.get("role") not in ("user", "assistant"):
            continue
        ts = m.get("timestamp")
        if type(ts) is int and 0 < ts < _MAX_MS:
            last_activity = max(last_activity, ts)
        text = _text_of(m)
        if not text:
            continue
        texts.append(text)
        if not first and m.get("role") == "user":
            first = text
    created = _parse_iso(header.get("timestamp")) or datetime.fromtimestamp(mtime, UTC)
    modified = datetime.fromtimestamp(last_activity / 1000, UTC) if last_activity else created
    cwd = header.get("cwd")
    parent = header.get("parentSession")
    return SessionInfo(path, str(header.get("id")), cwd if isinstance(cwd, str) else "", name,
                       parent if isinstance(parent, str) else None, created, modified, count, first or "(no messages)",
                       " ".join(texts))


_MAX_MS = 253402300799999
"""9999-12-31T23:59:59.999Z in epoch milliseconds: the last time a ``datetime`` holds."""


def _parse_iso(s: Any) -> datetime | None:
    if not isinstance(s, str):
        return None
    try:
        d = datetime.fromisoformat(s)
    except ValueError:
        return None
    return d if d.tzinfo is not None else d.replace(tzinfo=UTC)


def list_sessions(session_dir: str) -> list[SessionInfo]:
    """Every readable session in a directory, most recently active first."""
    infos = [i for p in _jsonl_files(session_dir) if (i := _session_info(p))]
    infos.sort(key=lambda i: i.modified, reverse=True)
    return infos


__all__ = [
    "SessionInfo", "autocue_dir", "default_session_dir", "find_most_recent_session", "list_sessions",
    "session_dir_slug", "session_file_name", "uuid7",
]
