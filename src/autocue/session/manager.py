"""``SessionManager``: the append-only JSONL session tree, byte-compatible with pi v3.

A session file is a header line (``{"type":"session","version":3,"id",...}``) followed by one
entry per line. Every entry has an 8-hex ``id`` and a ``parentId``; the *leaf* is the entry
the next append hangs under, so moving the leaf (``branch``) starts a new branch without
touching history. ``build_session_context()`` walks leaf → root and returns what the model
sees, compaction-aware exactly like pi.

Files:

- location: ``<AUTOCUE_DIR or ~/.autocue>/sessions/--<cwd slug>--/<ISO ts, ":" and "." → "-">_<id>.jsonl``;
- lazy first write: nothing touches the disk (not even the directory) before the first
  assistant message; then everything buffered is written and each later append is written
  and flushed (one ``write`` per entry on an ``O_APPEND`` descriptor);
- loading: ``open`` of a missing path raises ``SessionFileNotFoundError`` (``create_at``
  creates a session at a path, explicitly); a torn (unparsable) *last* line is skipped,
  reported in ``warnings`` as ``file:line``, and cut off the file before the next write; a
  corrupt line anywhere else, a missing or invalid header, a field of the wrong JSON type, a
  duplicate id or a parent cycle raises ``SessionFileError`` naming file and line. v1/v2
  files are migrated to v3 like pi does and rewritten, the original kept as ``<file>.bak``
  (``.bak.1``, ... : never overwritten); nothing else writes to a file that is opened.

Public surface: ``SessionManager`` (constructors ``create``, ``create_at``, ``open``,
``in_memory``, ``continue_recent``, ``fork_from``, ``list``), ``SessionContext``, ``SessionTreeNode``,
``SessionInfo``, ``build_session_context(entries, leaf_id, by_id)``, ``default_session_dir``,
``autocue_dir``, ``session_dir_slug``, ``uuid7``.
"""

from __future__ import annotations

import builtins
import contextlib
import gc
import operator
import os
import time
import uuid
import weakref
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from autocue.llm.types import JSON, UserContent
from autocue.session.entries import (
    CURRENT_SESSION_VERSION,
    BranchSummaryEntry,
    CompactionEntry,
    CustomEntry,
    CustomMessageEntry,
    EntryParseError,
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionEntry,
    SessionHeader,
    SessionInfoEntry,
    ThinkingLevelChangeEntry,
    dumps_line,
    entry_from_json,
    header_from_json,
    iso_now,
    loads_line,
)
from autocue.session.errors import EntryNotFoundError, SessionFileError, SessionFileNotFoundError
from autocue.session.integrity import check_tree, keep_backup, replace_file
from autocue.session.messages import AgentMessage, agent_message_from_json

_List = builtins.list


# ---------------------------------------------------------------------------- ids and paths


def uuid7() -> str:
    """A UUIDv7 string (millisecond timestamp first, so ids sort by creation time)."""
    ms = (time.time_ns() // 1_000_000) & ((1 << 48) - 1)
    rand = int.from_bytes(os.urandom(10), "big")
    value = (ms << 80) | (0x7 << 76) | (((rand >> 62) & 0xFFF) << 64) | (0b10 << 62) | (rand & ((1 << 62) - 1))
    return str(uuid.UUID(int=value))


def _new_entry_id(taken: dict[str, Any]) -> str:
    for _ in range(100):
        eid = os.urandom(4).hex()
        if eid not in taken:
            return eid
    return str(uuid.uuid4())  # like pi: a full UUID if the short ids keep colliding


def autocue_dir() -> Path:
    """autocue's user directory: ``$AUTOCUE_DIR`` or ``~/.autocue``."""
    env = os.environ.get("AUTOCUE_DIR")
    return Path(env).expanduser() if env else Path.home() / ".autocue"


def session_dir_slug(cwd: str) -> str:
    """pi's directory name for a cwd: leading slash dropped, ``/``, ``\\`` and ``:`` → ``-``, wrapped in ``--``."""
    s = cwd[1:] if cwd[:1] in ("/", "\\") else cwd
    return "--" + s.replace("/", "-").replace("\\", "-").replace(":", "-") + "--"


def default_session_dir(cwd: str) -> str:
    """``<autocue_dir>/sessions/--<slug>--`` (not created here: the first write creates it)."""
    return str(autocue_dir() / "sessions" / session_dir_slug(cwd))


def _file_name(timestamp: str, session_id: str) -> str:
    return f"{timestamp.replace(':', '-').replace('.', '-')}_{session_id}.jsonl"


# ---------------------------------------------------------------------------- context


@dataclass(slots=True)
class SessionContext:
    """What the model sees at the leaf: messages, thinking level and ``(provider, model_id)``."""

    messages: _List[AgentMessage]
    thinking_level: str = "off"
    model: tuple[str, str] | None = None


@dataclass(slots=True)
class SessionTreeNode:
    entry: SessionEntry
    children: _List[SessionTreeNode] = field(default_factory=_List)
    label: str | None = None


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


def build_session_context(
    entries: _List[SessionEntry], leaf_id: str | None, by_id: dict[str, SessionEntry] | None = None
) -> SessionContext:
    """pi's ``buildSessionContext``: walk leaf → root; with a compaction on the path the
    messages are its summary, the kept entries from ``firstKeptEntryId`` up to it, then the
    entries after it. ``leaf_id=None`` gives an empty context. Cost: O(path)."""
    if leaf_id is None:
        return SessionContext([], "off", None)
    if by_id is None:
        by_id = {e.id: e for e in entries}
    leaf = by_id.get(leaf_id)
    if leaf is None:
        leaf = entries[-1] if entries else None
    if leaf is None:
        return SessionContext([], "off", None)
    return _context_of_path(_path_to_root(leaf, by_id))


def _context_of_path(path: _List[SessionEntry]) -> SessionContext:
    """The context of a root → leaf path, in one pass when it holds no compaction."""
    thinking_level = "off"
    model_entry: SessionEntry | None = None
    compaction: CompactionEntry | None = None
    deferred: EntryParseError | None = None
    messages: _List[AgentMessage] = []
    append = messages.append
    with _no_gc():
        for e in path:
            t = type(e)
            if t is MessageEntry:
                m = e._message  # type: ignore[union-attr]  # the typed message, when it was built at load
                if m is None:
                    try:
                        m = e.message  # type: ignore[union-attr]
                    except EntryParseError as err:
                        # only an error if the entry is still in the context (not compacted away)
                        deferred = deferred or err
                        continue
                append(m)
                if e.role == "assistant":  # type: ignore[union-attr]
                    model_entry = e
            elif t is ThinkingLevelChangeEntry:
                thinking_level = e.thinking_level  # type: ignore[union-attr]
            elif t is ModelChangeEntry:
                model_entry = e
            elif t is CompactionEntry:
                compaction = e  # type: ignore[assignment]
            elif t is CustomMessageEntry or (t is BranchSummaryEntry and e.summary):  # type: ignore[union-attr]
                append(e.to_message())  # type: ignore[union-attr]
        if compaction is not None:
            idx = next(i for i in range(len(path) - 1, -1, -1) if path[i] is compaction)
            messages = _context_messages(path, idx)
        elif deferred is not None:
            raise deferred
    model: tuple[str, str] | None = None
    if type(model_entry) is MessageEntry:
        model = model_entry.provider_model()
    elif type(model_entry) is ModelChangeEntry:
        model = (model_entry.provider, model_entry.model_id)
    return SessionContext(messages, thinking_level, model)


def _context_messages(path: _List[SessionEntry], compaction_idx: int) -> _List[AgentMessage]:
    messages: _List[AgentMessage] = []
    append = messages.append
    start = 0
    if compaction_idx >= 0:
        comp = path[compaction_idx]
        assert isinstance(comp, CompactionEntry)
        append(comp.to_message())
        first_kept = comp.first_kept_entry_id
        kept = next((i for i in range(compaction_idx) if path[i].id == first_kept), compaction_idx)
        # kept entries up to the compaction, then everything after it
        spans = [(kept, compaction_idx), (compaction_idx + 1, len(path))]
    else:
        spans = [(start, len(path))]
    for lo, hi in spans:
        for i in range(lo, hi):
            e = path[i]
            t = e.type
            if t == "message":
                append(e.message)  # type: ignore[union-attr]
            elif t == "custom_message" or (t == "branch_summary" and e.summary):  # type: ignore[union-attr]
                append(e.to_message())  # type: ignore[union-attr]
    return messages


def _path_to_root(leaf: SessionEntry, by_id: dict[str, SessionEntry]) -> _List[SessionEntry]:
    path = [leaf]
    append = path.append
    get = by_id.get
    pid = leaf.parent_id
    for _ in range(len(by_id)):
        if pid is None:
            break
        cur = get(pid)
        if cur is None:
            break
        append(cur)
        pid = cur.parent_id
    else:
        if pid is not None and pid in by_id:
            raise ValueError(f"parentId cycle through entry {leaf.id}")
    path.reverse()
    return path


# ---------------------------------------------------------------------------- loading


_get_id = operator.attrgetter("id")
_get_parent_id = operator.attrgetter("parent_id")


@contextlib.contextmanager
def _no_gc() -> Iterator[None]:
    # Loading creates many small containers; the cyclic GC would rescan them over and over.
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@dataclass(slots=True)
class _Loaded:
    header: SessionHeader | None
    entries: _List[SessionEntry]
    warnings: _List[str]
    truncate_at: int | None
    needs_newline: bool
    migrated_from: int | None
    """The version a v1/v2 file was migrated from (the file must then be rewritten), else None."""
    original: bytes | None = None
    """The file's bytes when it was migrated (kept as a backup before the rewrite)."""


_HEADER_HINT = 'A session file starts with {"type":"session","version":3,"id":"<uuid>","timestamp":...,"cwd":...}.'


def _read_file(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise SessionFileNotFoundError(path) from None
    except IsADirectoryError:
        raise SessionFileError(path, None, "is a directory, not a session file") from None
    except OSError as e:
        raise SessionFileError(path, None, f"cannot read the file ({e.strerror or e})") from None


def _load_file(path: str, decoded: bool = False) -> _Loaded:
    """Read and check a whole session file. Raises ``SessionFileError`` (with the line) for
    anything malformed except a torn last line, which is reported in ``warnings``. ``decoded``:
    message entries keep their decoded dicts (see ``SessionManager.open``)."""
    data = _read_file(path)
    lines = data.split(b"\n")
    last = len(lines) - 1
    while last >= 0 and not lines[last].strip():
        last -= 1
    if last < 0:
        return _Loaded(None, [], [], 0 if data else None, False, None)
    torn: _List[Any] = []  # [warning, truncate_at] once the last line turned out torn
    with _no_gc():
        h = 0
        while not lines[h].strip():
            h += 1
        first = _loads_or_report(path, lines, h, last, torn)
        if first is None:
            raise SessionFileError(path, 1, "no session header: the only line is torn")
        first_line = h + 1
        if not isinstance(first, dict) or first.get("type") != "session" or not isinstance(first.get("id"), str):
            raise SessionFileError(path, first_line, "missing or invalid session header", _HEADER_HINT)
        try:
            header = header_from_json(first)
        except ValueError as e:
            raise SessionFileError(path, first_line, str(e), _HEADER_HINT) from None
        warnings: _List[str] = []
        version = header.version if header.version is not None else 1  # no version: a v1 file, like pi
        migrated_from: int | None = None
        line_nos: _List[int] = []
        if version < CURRENT_SESSION_VERSION:
            dicts: _List[Any] = [first]
            line_nos = [first_line]
            for i in range(h + 1, last + 1):
                d = _loads_or_report(path, lines, i, last, torn)
                if d is not None:
                    dicts.append(d)
                    line_nos.append(i + 1)
            _migrate(dicts, version)
            migrated_from = version
            header = header_from_json(first)
            entries = _entries_from_dicts(path, dicts, line_nos)
            del line_nos[0]
        else:
            if version > CURRENT_SESSION_VERSION:
                warnings.append(f"{path}:{first_line}: session version {version} is newer than "
                                f"{CURRENT_SESSION_VERSION}; unknown entry types are kept but ignored")
            entries = _entries_from_lines(path, lines, h + 1, last, torn, line_nos, decoded)
        check_tree(path, entries, line_nos)
    truncate_at: int | None = None
    if torn:
        warnings.append(torn[0])
        truncate_at = torn[1]
    needs_newline = truncate_at is None and not data.endswith(b"\n")
    return _Loaded(header, entries, warnings, truncate_at, needs_newline, migrated_from,
                   data if migrated_from is not None else None)


def _loads_or_report(path: str, lines: _List[bytes], i: int, last: int, torn: _List[Any]) -> Any:
    """Decode line ``i``; ``None`` for a blank line or a torn last line (then recorded in
    ``torn``); a corrupt line anywhere else raises ``SessionFileError``."""
    raw = lines[i]
    try:
        return loads_line(raw)
    except ValueError as e:
        if not raw or raw.isspace():
            return None
        if i == last:
            torn[:] = [
                f"{path}:{i + 1}: skipped a torn last line ({len(raw)} bytes, not valid JSON: {e}); "
                "it is cut off the file before the next write",
                sum(len(x) + 1 for x in lines[:i]),
            ]
            return None
        raise SessionFileError(
            path, i + 1, f"corrupt line, not valid JSON ({e})",
            "Only the last line of a session file may be torn; repair or remove this line.",
        ) from None


def _entries_from_lines(
    path: str, lines: _List[bytes], start: int, last: int, torn: _List[Any], line_nos: _List[int],
    decoded: bool = False,
) -> _List[SessionEntry]:
    """Entries of ``lines[start:last + 1]`` (a v3 file); their line numbers go to ``line_nos``.
    Every line is decoded and checked, but a plain message entry keeps only its line's bytes, its ids and its typed
    message: no decoded dict stays alive, so the cyclic GC has far fewer objects to scan. With ``decoded`` it keeps
    the decoded dict instead, and its message is typed on first access (for a reader of every entry's JSON)."""
    entries: _List[SessionEntry] = []
    append = entries.append
    add_line = line_nos.append
    loads = orjson.loads
    convert = agent_message_from_json
    new = object.__new__
    for i in range(start, last + 1):
        raw = lines[i]
        try:
            d = loads(raw)
        except orjson.JSONDecodeError:
            d = _loads_or_report(path, lines, i, last, torn)
            if d is None:
                continue
        # fast path: a plain message entry with exactly pi's keys
        if type(d) is dict and len(d) == 5 and d.get("type") == "message":
            msg = d.get("message")
            eid = d.get("id")
            pid = d.get("parentId", 0)
            ts = d.get("timestamp")
            if (type(msg) is dict and type(role := msg.get("role")) is str and type(eid) is str
                    and (pid is None or type(pid) is str) and type(ts) is str):
                add_line(i + 1)
                if decoded:
                    append(new(MessageEntry)._fill(eid, pid, ts, role, None, msg, d, None, i + 1))
                    continue
                try:
                    m: AgentMessage = convert(msg, strict=False)
                except ValueError:  # malformed: reported on first access (only an error if the context needs it)
                    append(new(MessageEntry)._fill(eid, pid, ts, role, None, msg, d, None, i + 1))
                    continue
                append(new(MessageEntry)._fill(eid, pid, ts, role, m, None, None, raw, i + 1))
                continue
        if type(d) is not dict:
            raise SessionFileError(path, i + 1, f"expected a JSON object, got {type(d).__name__}")
        try:
            entry = entry_from_json(d, line=i + 1)
        except ValueError as err:
            raise SessionFileError(path, i + 1, str(err)) from None
        if isinstance(entry, SessionHeader):
            raise SessionFileError(path, i + 1, "a second session header inside the file")
        append(entry)
        add_line(i + 1)
    return entries


def _entries_from_dicts(path: str, dicts: _List[Any], line_nos: _List[int] | None) -> _List[SessionEntry]:
    entries: _List[SessionEntry] = []
    append = entries.append
    loaded = MessageEntry.loaded
    for idx in range(1, len(dicts)):
        d = dicts[idx]
        line_no = line_nos[idx] if line_nos is not None else idx + 1
        if type(d) is not dict:
            raise SessionFileError(path, line_no, f"expected a JSON object, got {type(d).__name__}")
        # fast path: a plain message entry with exactly pi's keys
        if len(d) == 5 and d.get("type") == "message":
            msg = d.get("message")
            pid = d.get("parentId", 0)
            if (type(msg) is dict and type(msg.get("role")) is str and type(d.get("id")) is str
                    and (pid is None or type(pid) is str) and type(d.get("timestamp")) is str):
                append(loaded(d, msg, line_no))
                continue
        try:
            entry = entry_from_json(d, line=line_no)
        except ValueError as err:
            raise SessionFileError(path, line_no, str(err)) from None
        if isinstance(entry, SessionHeader):
            raise SessionFileError(path, line_no, "a second session header inside the file")
        append(entry)
    return entries



def _migrate(dicts: _List[Any], version: int) -> None:
    """pi's v1 → v2 (ids, parentIds, firstKeptEntryIndex → Id) and v2 → v3 (hookMessage → custom)."""
    header = dicts[0]
    if version < 2:
        taken: dict[str, Any] = {}
        prev: str | None = None
        for d in dicts[1:]:
            if not isinstance(d, dict):
                continue
            eid = _new_entry_id(taken)
            taken[eid] = True
            d["id"] = eid
            d["parentId"] = prev
            prev = eid
        for d in dicts[1:]:
            if (isinstance(d, dict) and d.get("type") == "compaction"
                    and type(d.get("firstKeptEntryIndex")) is int):
                idx = d.pop("firstKeptEntryIndex")
                if 0 < idx < len(dicts) and isinstance(dicts[idx], dict):
                    d["firstKeptEntryId"] = dicts[idx]["id"]
    for d in dicts[1:]:
        if isinstance(d, dict) and d.get("type") == "message":
            msg = d.get("message")
            if isinstance(msg, dict) and msg.get("role") == "hookMessage":
                msg["role"] = "custom"
    header["version"] = CURRENT_SESSION_VERSION


def _entry_lines(entries: _List[SessionEntry]) -> bytes:
    """The JSONL lines of ``entries``. A loaded message entry's line is decoded and encoded
    again without keeping the dict (what ``to_json()`` would keep for good)."""
    parts: _List[bytes] = []
    append = parts.append
    with _no_gc():
        for e in entries:
            if type(e) is MessageEntry and e._raw is None and e._line is not None:
                append(dumps_line(loads_line(e._line)))
            else:
                append(dumps_line(e.to_json()))
    return b"".join(parts)


def _close_fd(fd: int) -> None:
    with contextlib.suppress(OSError):
        os.close(fd)


# ---------------------------------------------------------------------------- the manager


class SessionManager:
    """An append-only session tree, persisted as pi v3 JSONL or kept in memory.

    Every ``append_*`` adds a child of the current leaf, moves the leaf to it and returns
    the new entry's id. ``warnings`` lists what loading skipped (``file:line: ...``).
    """

    def __init__(self, cwd: str, session_dir: str, session_file: str | None, persist: bool, *,
                 decoded: bool = False) -> None:
        """Use the constructors (``create``, ``open``, ``in_memory``, ``continue_recent``)."""
        self._cwd = cwd
        self._session_dir = session_dir
        self._persist = persist
        self._session_file: str | None = None
        self._header: SessionHeader = SessionHeader("", "", cwd)
        self._entries: _List[SessionEntry] = []
        self._by_id: dict[str, SessionEntry] = {}
        self._labels: dict[str, str] = {}
        self._children: dict[str | None, _List[str]] | None = None
        self._linear = True
        """Each entry is the child of the one before it (and ids are unique): see ``_path_to``."""
        self._leaf_id: str | None = None
        self._session_name: str | None = None
        self._has_assistant = False
        self._written = -1
        """Entries on disk: -1 = nothing (not even the header), 0 = header only, n = header + n entries."""
        self._truncate_at: int | None = None
        self._needs_newline = False
        self._fd: int | None = None
        self._fd_finalizer: weakref.finalize[Any, Any] | None = None
        self._ts_sec = -1
        self._ts_prefix = ""
        self._ts_ms = -1
        self._ts_text = ""
        self._id_pool: _List[str] = []
        self.warnings: _List[str] = []
        if session_file is not None:
            self.set_session_file(session_file, decoded=decoded)
        else:
            self.new_session()

    # ------------------------------------------------------------------ constructors
    @staticmethod
    def create(cwd: str | os.PathLike[str], session_dir: str | os.PathLike[str] | None = None) -> SessionManager:
        """A new persisted session for ``cwd`` (in ``session_dir`` or the default directory)."""
        c = os.path.abspath(os.fspath(cwd))
        d = os.fspath(session_dir) if session_dir is not None else default_session_dir(c)
        return SessionManager(c, d, None, True)

    @staticmethod
    def open(path: str | os.PathLike[str], session_dir: str | os.PathLike[str] | None = None, *,
             decoded: bool = False) -> SessionManager:
        """Load an existing session file (an empty one starts a new session in it).

        Raises ``SessionFileNotFoundError`` (a ``FileNotFoundError``) when ``path`` does not
        exist: nothing is created (``create_at`` does that), and ``SessionFileError`` naming
        the line for a malformed file. A v1/v2 file is migrated and rewritten, its original
        kept as ``<path>.bak`` (``.bak.1``, ... when that exists).

        ``decoded=True`` keeps each message entry's decoded dict (``to_json()`` returns it) and
        types its message on first access: a reader of every entry's JSON, like the viewer,
        then decodes each line once (by default a message is typed at once and its dict dropped).
        """
        p = os.path.abspath(os.fspath(path))
        d = os.fspath(session_dir) if session_dir is not None else os.path.dirname(p)
        sm = SessionManager(os.getcwd(), d, p, True, decoded=decoded)
        sm._cwd = sm._header.cwd or sm._cwd  # the cwd the session was recorded in
        return sm

    @staticmethod
    def create_at(path: str | os.PathLike[str], cwd: str | os.PathLike[str] = ".") -> SessionManager:
        """A new persisted session for ``cwd`` whose file is exactly ``path`` (written, like every
        session, with the first assistant message). Raises ``SessionFileError`` if ``path``
        already exists and is not empty: an existing file is opened (``open``), never replaced."""
        p = os.path.abspath(os.fspath(path))
        with contextlib.suppress(FileNotFoundError):
            if os.path.isdir(p) or os.path.getsize(p) > 0:
                raise SessionFileError(p, None, "already exists; open it (SessionManager.open) instead of creating it")
        sm = SessionManager(os.path.abspath(os.fspath(cwd)), os.path.dirname(p), None, True)
        sm._session_file = p
        return sm

    @staticmethod
    def in_memory(cwd: str | os.PathLike[str] = ".") -> SessionManager:
        """A session that is never written to disk."""
        return SessionManager(os.path.abspath(os.fspath(cwd)), "", None, False)

    @staticmethod
    def continue_recent(
        cwd: str | os.PathLike[str], session_dir: str | os.PathLike[str] | None = None
    ) -> SessionManager:
        """Open the most recently modified session of ``cwd``, or create a new one."""
        c = os.path.abspath(os.fspath(cwd))
        d = os.fspath(session_dir) if session_dir is not None else default_session_dir(c)
        recent = find_most_recent_session(d)
        return SessionManager(c, d, recent, True) if recent else SessionManager(c, d, None, True)

    @staticmethod
    def fork_from(
        source_path: str | os.PathLike[str], target_cwd: str | os.PathLike[str],
        session_dir: str | os.PathLike[str] | None = None,
    ) -> SessionManager:
        """A new session for ``target_cwd`` holding the whole history of ``source_path``."""
        src = os.path.abspath(os.fspath(source_path))
        loaded = _load_file(src)
        if loaded.header is None:
            raise SessionFileError(src, None, "cannot fork: the source session file is empty")
        c = os.path.abspath(os.fspath(target_cwd))
        d = os.fspath(session_dir) if session_dir is not None else default_session_dir(c)
        ts = iso_now()
        sid = uuid7()
        header = SessionHeader(sid, ts, c, CURRENT_SESSION_VERSION, src)
        target = os.path.join(d, _file_name(ts, sid))
        os.makedirs(d, exist_ok=True)
        with builtins.open(target, "wb") as f:
            f.write(dumps_line(header.to_json()) + _entry_lines(loaded.entries))
        return SessionManager(c, d, target, True)

    @staticmethod
    def list(cwd: str | os.PathLike[str], session_dir: str | os.PathLike[str] | None = None) -> _List[SessionInfo]:
        """The sessions of ``cwd``, most recently active first (unreadable files are skipped)."""
        c = os.path.abspath(os.fspath(cwd))
        d = os.fspath(session_dir) if session_dir is not None else default_session_dir(c)
        return list_sessions(d)

    # ------------------------------------------------------------------ session lifecycle
    def new_session(self, id: str | None = None, parent_session: str | None = None) -> str | None:
        """Start a fresh session (new header, empty tree); returns its file path (None in memory)."""
        self.close()
        ts = iso_now()
        sid = id or uuid7()
        self._header = SessionHeader(sid, ts, self._cwd, CURRENT_SESSION_VERSION, parent_session)
        self._entries = []
        self._by_id = {}
        self._labels = {}
        self._children = None
        self._linear = True
        self._leaf_id = None
        self._session_name = None
        self._has_assistant = False
        self._written = -1
        self._truncate_at = None
        self._needs_newline = False
        self._session_file = os.path.join(self._session_dir, _file_name(ts, sid)) if self._persist else None
        return self._session_file

    def set_session_dir(self, session_dir: str | os.PathLike[str]) -> None:
        """Keep this new session's file in ``session_dir`` instead (a ``session_directory`` handler's
        pick); raises ``SessionFileError`` once the file was written."""
        if self._written >= 0:
            raise SessionFileError(self._session_file or "", None, "already written; its directory cannot change")
        self._session_dir = os.fspath(session_dir)
        if self._persist and self._session_file is not None:
            self._session_file = os.path.join(self._session_dir, os.path.basename(self._session_file))

    def set_session_file(self, path: str | os.PathLike[str], *, decoded: bool = False) -> None:
        """Switch to another existing session file (resume); an empty file starts a new session
        in it. Raises ``SessionFileNotFoundError`` for a missing path, ``SessionFileError`` for
        a malformed file (this manager is then unchanged). ``decoded``: see ``open``."""
        path = os.path.abspath(os.fspath(path))
        loaded = _load_file(path, decoded)
        if loaded.header is None:
            self.new_session()
            self._session_file = path
            self._truncate_at = loaded.truncate_at  # an empty or blank file: rewrite it from the start
            return
        self.close()
        self.warnings.extend(loaded.warnings)
        self._session_file = path
        self._header = loaded.header
        self._entries = loaded.entries
        self._truncate_at = loaded.truncate_at
        self._needs_newline = loaded.needs_newline
        self._build_index()
        self._written = len(self._entries)
        if loaded.migrated_from is not None and self._persist:
            assert loaded.original is not None
            backup = keep_backup(path, loaded.original)
            self._rewrite_file()
            self.warnings.append(f"{path}: migrated from session version {loaded.migrated_from} to "
                                 f"{CURRENT_SESSION_VERSION}; the original is kept in {backup}")

    def _build_index(self) -> None:
        entries = self._entries
        ids = _List(map(_get_id, entries))
        by_id: dict[str, SessionEntry] = dict(zip(ids, entries, strict=True))  # ids are unique: check_tree
        labels: dict[str, str] = {}
        name: str | None = None
        for e in entries:
            if type(e) is MessageEntry:
                continue
            if isinstance(e, LabelEntry):
                if e.label:
                    labels[e.target_id] = e.label
                else:
                    labels.pop(e.target_id, None)
            elif isinstance(e, SessionInfoEntry) and e.name:
                name = e.name
        self._by_id = by_id
        self._labels = labels
        self._session_name = name
        self._has_assistant = any(type(e) is MessageEntry and e.role == "assistant" for e in entries)
        self._leaf_id = entries[-1].id if entries else None
        self._children = None
        # a never-branched file (each entry the child of the one before it): the path to the
        # last entry is the entry list itself, no walk needed
        parents = _List(map(_get_parent_id, entries))
        self._linear = len(by_id) == len(entries) and (
            not entries or (parents[1:] == ids[:-1] and (parents[0] is None or parents[0] not in by_id)))

    def _now(self) -> str:
        """``iso_now()``, formatted once per millisecond (strftime would dominate an append otherwise)."""
        ms = int(time.time() * 1000)
        if ms == self._ts_ms:
            return self._ts_text
        sec = ms // 1000
        if sec != self._ts_sec:
            self._ts_sec = sec
            self._ts_prefix = time.strftime("%Y-%m-%dT%H:%M:%S.", time.gmtime(sec))
        self._ts_ms = ms
        text = self._ts_text = f"{self._ts_prefix}{ms - sec * 1000:03d}Z"
        return text

    def _new_id(self) -> str:
        """A fresh 8-hex-digit entry id, unique in this session (random bytes drawn 16 ids at a time
        while the session is small, 128 once it has grown)."""
        pool = self._id_pool
        if pool:
            eid = pool.pop()
            if eid not in self._by_id:
                return eid
        return self._new_id_slow()

    def _new_id_slow(self) -> str:
        pool = self._id_pool
        taken = self._by_id
        for _ in range(100):
            if not pool:
                n = 128 if len(taken) >= 128 else 16
                raw = os.urandom(4 * n).hex()
                pool.extend([raw[i : i + 8] for i in range(0, 8 * n, 8)])
            eid = pool.pop()
            if eid not in taken:
                return eid
        return str(uuid.uuid4())  # like pi: a full UUID if the short ids keep colliding

    def _where(self) -> str:
        return self._session_file or "the in-memory session"

    # ------------------------------------------------------------------ disk
    def _rewrite_file(self) -> None:
        assert self._session_file is not None
        self.close()
        replace_file(self._session_file, dumps_line(self._header.to_json()) + _entry_lines(self._entries))
        self._written = len(self._entries)
        self._truncate_at = None
        self._needs_newline = False

    def _write(self, data: bytes) -> None:
        fd = self._fd
        if fd is None:
            assert self._session_file is not None
            os.makedirs(os.path.dirname(self._session_file) or ".", exist_ok=True)
            fd = os.open(self._session_file, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
            self._fd = fd
            self._fd_finalizer = weakref.finalize(self, _close_fd, fd)
            if self._truncate_at is not None:
                os.ftruncate(fd, self._truncate_at)
                self._truncate_at = None
            elif self._needs_newline:
                data = b"\n" + data
            self._needs_newline = False
        view = memoryview(data)
        while view:
            n = os.write(fd, view)
            view = view[n:]

    def _flush_pending(self) -> None:
        start = self._written
        if start < 0:
            parts = [dumps_line(self._header.to_json())]
            start = 0
        else:
            parts = []
        entries = self._entries
        if start == len(entries) - 1:  # one append: the hot path
            parts.append(dumps_line(entries[start].to_json()))
        else:
            parts.append(_entry_lines(entries[start:]))
        self._write(parts[0] if len(parts) == 1 else b"".join(parts))
        self._written = len(entries)

    def close(self) -> None:
        """Close the file descriptor kept for appends (reopened on the next write)."""
        fin = self._fd_finalizer
        if fin is not None:
            fin()
        self._fd = None
        self._fd_finalizer = None

    def __enter__(self) -> SessionManager:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ appends
    def _append(self, entry: SessionEntry) -> str:
        entries = self._entries
        eid = entry.id
        if self._linear and entries and (entry.parent_id != entries[-1].id or eid == entries[0].parent_id):
            self._linear = False
        entries.append(entry)
        self._by_id[eid] = entry
        ch = self._children
        if ch is not None:
            ch.setdefault(entry.parent_id, []).append(eid)
        self._leaf_id = eid
        if self._persist and self._session_file is not None and self._has_assistant:
            self._flush_pending()
        return eid

    def append_message(self, message: AgentMessage) -> str:
        """Append a user, assistant, toolResult, bashExecution or custom message."""
        role = message.role
        if role == "compactionSummary" or role == "branchSummary":
            raise ValueError(
                f"{role} messages are not stored as message entries: use append_compaction() or branch_with_summary()"
            )
        if role == "assistant":
            self._has_assistant = True
        return self._append(MessageEntry.of(self._new_id(), self._leaf_id, self._now(), message))

    def append_thinking_level_change(self, thinking_level: str) -> str:
        return self._append(
            ThinkingLevelChangeEntry(self._new_id(), self._leaf_id, self._now(), thinking_level)
        )

    def append_model_change(self, provider: str, model_id: str) -> str:
        eid = self._new_id()
        return self._append(ModelChangeEntry(eid, self._leaf_id, self._now(), provider, model_id))

    def append_compaction(
        self, summary: str, first_kept_entry_id: str, tokens_before: int, details: Any = None, from_hook: bool = False
    ) -> str:
        """Record a compaction: history before ``first_kept_entry_id`` is replaced by ``summary``."""
        return self._append(CompactionEntry(self._new_id(), self._leaf_id, self._now(), summary,
                                            first_kept_entry_id, tokens_before, details, from_hook))

    def append_custom_entry(self, custom_type: str, data: Any = None) -> str:
        """Extension state; not part of the LLM context."""
        return self._append(CustomEntry(self._new_id(), self._leaf_id, self._now(), custom_type, data))

    def append_custom_message_entry(
        self, custom_type: str, content: str | _List[UserContent], display: bool, details: Any = None
    ) -> str:
        """An extension message that is part of the LLM context (as a user message)."""
        return self._append(CustomMessageEntry(self._new_id(), self._leaf_id, self._now(), custom_type,
                                               content, display, details))

    def append_session_info(self, name: str) -> str:
        """Set the session's display name (trimmed)."""
        name = name.strip()
        eid = self._append(SessionInfoEntry(self._new_id(), self._leaf_id, self._now(), name))
        if name:
            self._session_name = name
        return eid

    def append_label_change(self, target_id: str, label: str | None) -> str:
        """Set (or with ``None``/``""`` clear) the label of an entry; raises for an unknown id."""
        if target_id not in self._by_id:
            raise EntryNotFoundError(target_id, self._where())
        eid = self._append(LabelEntry(self._new_id(), self._leaf_id, self._now(), target_id, label))
        if label:
            self._labels[target_id] = label
        else:
            self._labels.pop(target_id, None)
        return eid

    # ------------------------------------------------------------------ branching
    def branch(self, entry_id: str) -> None:
        """Move the leaf to ``entry_id``: the next append starts a new branch there."""
        if entry_id not in self._by_id:
            raise EntryNotFoundError(entry_id, self._where())
        self._leaf_id = entry_id

    def reset_leaf(self) -> None:
        """Move the leaf before the first entry (the next append is a new root)."""
        self._leaf_id = None

    def branch_with_summary(
        self, entry_id: str | None, summary: str, details: Any = None, from_hook: bool = False
    ) -> str:
        """Branch to ``entry_id`` and append a ``branch_summary`` of the path that was left."""
        if entry_id is not None and entry_id not in self._by_id:
            raise EntryNotFoundError(entry_id, self._where())
        self._leaf_id = entry_id
        return self._append(BranchSummaryEntry(self._new_id(), entry_id, self._now(),
                                               entry_id if entry_id is not None else "root", summary, details,
                                               from_hook))

    def create_branched_session(self, leaf_id: str) -> str | None:
        """Switch to a new session holding only root → ``leaf_id`` (labels re-created at the end).

        Returns the new file path (written at once), or None in memory.
        """
        path = [e for e in self.get_branch(leaf_id) if e.type != "label"]
        ids = {e.id: True for e in path}
        ts = iso_now()
        sid = uuid7()
        header = SessionHeader(sid, ts, self._cwd, CURRENT_SESSION_VERSION,
                               self._session_file if self._persist else None)
        parent: str | None = path[-1].id if path else None
        labels: _List[SessionEntry] = []
        for target, label in self._labels.items():
            if target in ids:
                le = LabelEntry(_new_entry_id(ids), parent, self._now(), target, label)
                ids[le.id] = True
                labels.append(le)
                parent = le.id
        self.close()
        self._header = header
        self._entries = path + labels
        self._build_index()
        self._truncate_at = None
        self._needs_newline = False
        if not self._persist:
            self._session_file = None
            self._written = -1
            return None
        self._session_file = os.path.join(self._session_dir, _file_name(ts, sid))
        os.makedirs(self._session_dir, exist_ok=True)
        self._written = -1
        self._flush_pending()
        return self._session_file

    # ------------------------------------------------------------------ reads
    def get_leaf_id(self) -> str | None:
        return self._leaf_id

    def get_leaf_entry(self) -> SessionEntry | None:
        return self._by_id.get(self._leaf_id) if self._leaf_id is not None else None

    def get_entry(self, entry_id: str) -> SessionEntry | None:
        return self._by_id.get(entry_id)

    def get_children(self, entry_id: str | None) -> _List[SessionEntry]:
        """Direct children of an entry (``None``: the roots), in append order."""
        ch = self._children
        if ch is None:
            ch = {}
            for e in self._entries:
                ch.setdefault(e.parent_id, []).append(e.id)
            self._children = ch
        return [self._by_id[i] for i in ch.get(entry_id, ())]

    def get_label(self, entry_id: str) -> str | None:
        return self._labels.get(entry_id)

    def get_branch(self, from_id: str | None = None) -> _List[SessionEntry]:
        """The entries root → ``from_id`` (default: the leaf), every type included."""
        start = from_id if from_id is not None else self._leaf_id
        if start is None:
            return []
        if start not in self._by_id:
            raise EntryNotFoundError(start, self._where())
        try:
            path = self._path_to(start)
        except ValueError as e:
            raise SessionFileError(self._where(), None, str(e)) from None
        return _List(path) if path is self._entries else path

    def _path_to(self, entry_id: str) -> _List[SessionEntry]:
        """Root → ``entry_id`` (an existing id). For the last entry of a linear session this is
        the entry list itself (not a copy: callers must not mutate it)."""
        entries = self._entries
        if self._linear and entries[-1].id == entry_id:
            return entries
        return _path_to_root(self._by_id[entry_id], self._by_id)

    def get_tree(self) -> _List[SessionTreeNode]:
        """The whole tree: roots (and orphans) with children sorted by timestamp."""
        nodes: dict[str, SessionTreeNode] = {}
        for e in self._entries:
            nodes[e.id] = SessionTreeNode(e, [], self._labels.get(e.id))
        roots: _List[SessionTreeNode] = []
        for e in self._entries:
            node = nodes[e.id]
            pid = e.parent_id
            parent = nodes.get(pid) if pid is not None and pid != e.id else None
            (parent.children if parent is not None else roots).append(node)
        stack = list(roots)
        while stack:
            n = stack.pop()
            n.children.sort(key=lambda c: c.entry.timestamp)
            stack.extend(n.children)
        return roots

    def get_entries(self) -> _List[SessionEntry]:
        """All entries (header excluded), in file order; a shallow copy."""
        return list(self._entries)

    def get_header(self) -> SessionHeader:
        return self._header

    def get_session_name(self) -> str | None:
        return self._session_name

    def get_cwd(self) -> str:
        return self._cwd

    def get_session_dir(self) -> str:
        return self._session_dir

    def get_session_id(self) -> str:
        return self._header.id

    def get_session_file(self) -> str | None:
        return self._session_file

    def is_persisted(self) -> bool:
        return self._persist

    def build_session_context(self) -> SessionContext:
        """What the model sees at the current leaf (compaction-aware); O(path)."""
        if self._leaf_id is None:
            return SessionContext([], "off", None)
        try:
            return _context_of_path(self._path_to(self._leaf_id))
        except ValueError as e:
            # a lazily parsed message that turned out malformed, or a parentId cycle
            raise SessionFileError(self._where(), _line_of(e), str(e)) from None

    def __repr__(self) -> str:
        return f"SessionManager({self._where()!r}, entries={len(self._entries)}, leaf={self._leaf_id!r})"


def _line_of(e: ValueError) -> int | None:
    return e.line if isinstance(e, EntryParseError) else None


# ---------------------------------------------------------------------------- listing


def _is_session_file(path: str) -> bool:
    try:
        with builtins.open(path, "rb") as f:
            first = f.readline(65536)
        h = orjson.loads(first)
    except (OSError, orjson.JSONDecodeError):
        return False
    return isinstance(h, dict) and h.get("type") == "session" and isinstance(h.get("id"), str)


def find_most_recent_session(session_dir: str) -> str | None:
    """The most recently modified valid ``.jsonl`` session file in a directory, or None."""
    try:
        names = os.listdir(session_dir)
    except OSError:
        return None
    files = [os.path.join(session_dir, n) for n in names if n.endswith(".jsonl")]
    valid = [(os.stat(p).st_mtime_ns, p) for p in files if _is_session_file(p)]
    return max(valid)[1] if valid else None


def _text_of(message: JSON) -> str:
    c = message.get("content")
    if isinstance(c, str):
        return c
    if isinstance(c, _List):
        return " ".join(t for b in c if isinstance(b, dict) and b.get("type") == "text"
                        and isinstance(t := b.get("text"), str))
    return ""


def _session_info(path: str) -> SessionInfo | None:
    """What ``list`` shows of one file, read leniently (a line it cannot use is skipped; None
    when the file is unreadable or has no session header)."""
    try:
        data = Path(path).read_bytes()
        mtime = os.stat(path).st_mtime
    except OSError:
        return None
    dicts: _List[Any] = []
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
    texts: _List[str] = []
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
    modified = (datetime.fromtimestamp(last_activity / 1000, UTC) if last_activity
                else _parse_iso(header.get("timestamp")) or datetime.fromtimestamp(mtime, UTC))
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


def list_sessions(session_dir: str) -> _List[SessionInfo]:
    """Every readable session in a directory, most recently active first."""
    try:
        names = os.listdir(session_dir)
    except OSError:
        return []
    infos = [i for n in names if n.endswith(".jsonl") and (i := _session_info(os.path.join(session_dir, n)))]
    infos.sort(key=lambda i: i.modified, reverse=True)
    return infos


__all__ = [
    "SessionContext", "SessionInfo", "SessionManager", "SessionTreeNode", "autocue_dir", "build_session_context",
    "default_session_dir", "find_most_recent_session", "list_sessions", "session_dir_slug", "uuid7",
]
