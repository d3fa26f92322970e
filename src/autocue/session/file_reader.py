"""Reading a session file: ``load_file(path)`` → ``LoadedFile`` (every line decoded and checked, a
torn last line forgiven, v1/v2 migrated like pi does), and what it checks beyond each line
(``check_tree``: unique ids, no ``parentId`` cycle); ``new_entry_id(taken)``."""

from __future__ import annotations

import operator
import os
import stat
import uuid
from collections.abc import Container, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from autocue.session.entries import CURRENT_SESSION_VERSION, MessageEntry, SessionEntry, SessionHeader
from autocue.session.entry_parsing import entry_from_json, header_from_json
from autocue.session.errors import SessionFileError, SessionFileNotFoundError
from autocue.session.file_format import loads_line, no_gc
from autocue.session.messages import AgentMessage, agent_message_from_json

_id_pool: list[str] = []


def new_entry_id(taken: Container[str]) -> str:
    """A fresh 8-hex-digit entry id not in ``taken`` (random bytes are drawn 128 ids at a time).

    The pool is shared by every session of the process: ``list.pop``/``extend`` are atomic, so
    sessions in several threads may draw at once (an empty pool raises, and is refilled)."""
    try:  # the common case, without the loop (an append's hot path; suppress() costs 2×)
        if (eid := _id_pool.pop()) not in taken:
            return eid
    except IndexError:
        pass
    for _ in range(100):
        try:
            eid = _id_pool.pop()
        except IndexError:
            raw = os.urandom(4 * 128).hex()
            _id_pool.extend([raw[i : i + 8] for i in range(0, 8 * 128, 8)])
        else:
            if eid not in taken:
                return eid
    return str(uuid.uuid4())  # like pi: a full UUID if the short ids keep colliding


@dataclass(slots=True)
class LoadedFile:
    header: SessionHeader | None
    entries: list[SessionEntry]
    warnings: list[str]
    truncate_at: int | None
    needs_newline: bool
    migrated_from: int | None
    """The version a v1/v2 file was migrated from (the file must then be rewritten), else None."""
    original: bytes | None = None
    """The file's bytes when it was migrated (kept as a backup before the rewrite)."""


_get_id = operator.attrgetter("id")
_get_parent_id = operator.attrgetter("parent_id")
_HEADER_HINT = 'A session file starts with {"type":"session","version":3,"id":"<uuid>","timestamp":...,"cwd":...}.'


MAX_SESSION_FILE_BYTES = 1 << 30
"""The largest session file autocue reads (1 GiB; loading one takes several times that in memory)."""


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory")):
        if test(mode):
            return name
    return "not a regular file"


def read_session_bytes(path: str, limit: int | None = None) -> bytes:
    """The bytes of the session file ``path`` (at most ``limit`` of them when given): the one place
    session files are opened. Only a regular file is read, opened with ``O_NONBLOCK`` so a FIFO
    cannot block and checked with ``fstat`` before any read; a file over ``MAX_SESSION_FILE_BYTES``
    is refused. Anything else raises ``SessionFileError`` at once (``SessionFileNotFoundError``
    when missing)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    except FileNotFoundError:
        raise SessionFileNotFoundError(path) from None
    except OSError as e:
        raise SessionFileError(path, None, f"cannot read the file ({e.strerror or e})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = _kind(st.st_mode)
            raise SessionFileError(path, None, f"is {kind}, not a session file",
                                   "A session file is a regular .jsonl file; give its path." if kind != "a directory"
                                   else None)
        if st.st_size > MAX_SESSION_FILE_BYTES:
            raise SessionFileError(path, None, f"is {st.st_size} bytes, larger than the limit of "
                                   f"{MAX_SESSION_FILE_BYTES} bytes for a session file",
                                   "Split the session or start a new one (autocue does not load a file this large).")
        os.set_blocking(fd, True)
        want = MAX_SESSION_FILE_BYTES + 1 if limit is None else limit
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(want)
    except OSError as e:
        raise SessionFileError(path, None, f"cannot read the file ({e.strerror or e})") from None
    finally:
        os.close(fd)
    if limit is None and len(data) > MAX_SESSION_FILE_BYTES:
        raise SessionFileError(path, None, f"grew past the limit of {MAX_SESSION_FILE_BYTES} bytes while read")
    return data


def load_file(path: str, decoded: bool = False) -> LoadedFile:
    """Read and check a whole session file. Raises ``SessionFileError`` (with the line) for
    anything malformed except a torn last line, which is reported in ``warnings``. ``decoded``:
    message entries keep their decoded dicts (see ``SessionManager.open``)."""
    data = read_session_bytes(path)
    lines = data.split(b"\n")
    last = len(lines) - 1
    while last >= 0 and not lines[last].strip():
        last -= 1
    if last < 0:
        return LoadedFile(None, [], [], 0 if data else None, False, None)
    torn: list[Any] = []  # [warning, truncate_at] once the last line turned out torn
    with no_gc():
        h = next(i for i, line in enumerate(lines) if line.strip())  # the first line that is not blank
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
        warnings: list[str] = []
        version = header.version if header.version is not None else 1  # no version: a v1 file, like pi
        migrated_from: int | None = None
        line_nos: list[int] = []
        if version < CURRENT_SESSION_VERSION:
            dicts: list[Any] = [first]
            for i in range(h + 1, last + 1):
                d = _loads_or_report(path, lines, i, last, torn)
                if d is not None:
                    dicts.append(d)
                    line_nos.append(i + 1)
            _migrate(dicts, version)
            migrated_from = version
            header = header_from_json(first)
            entries = [_entry(path, d, n) for d, n in zip(dicts[1:], line_nos, strict=True)]
        else:
            if version > CURRENT_SESSION_VERSION:
                warnings.append(f"{path}:{first_line}: session version {version} is newer than "
                                f"{CURRENT_SESSION_VERSION}; unknown entry types are kept but ignored")
            entries = _entries_from_lines(path, lines, h + 1, last, torn, line_nos, decoded)
        check_tree(path, entries, line_nos)
    warnings += torn[:1]
    truncate_at: int | None = torn[1] if torn else None
    needs_newline = truncate_at is None and not data.endswith(b"\n")
    return LoadedFile(header, entries, warnings, truncate_at, needs_newline, migrated_from,
                   data if migrated_from is not None else None)


def _loads_or_report(path: str, lines: list[bytes], i: int, last: int, torn: list[Any]) -> Any:
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
    path: str, lines: list[bytes], start: int, last: int, torn: list[Any], line_nos: list[int],
    decoded: bool = False,
) -> list[SessionEntry]:
    """Entries of ``lines[start:last + 1]`` (a v3 file); their line numbers go to ``line_nos``.
    Every line is decoded and checked, but a plain message entry keeps only its line's bytes, its ids and its typed
    message: no decoded dict stays alive, so the cyclic GC has far fewer objects to scan. With ``decoded`` it keeps
    the decoded dict instead, and its message is typed on first access (for a reader of every entry's JSON)."""
    entries: list[SessionEntry] = []
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
        append(_entry(path, d, i + 1))
        add_line(i + 1)
    return entries


def _entry(path: str, d: Any, line_no: int) -> SessionEntry:
    """The entry of a decoded line other than line 1 (``SessionFileError`` naming the line if it is not one)."""
    if type(d) is not dict:
        raise SessionFileError(path, line_no, f"expected a JSON object, got {type(d).__name__}")
    try:
        entry = entry_from_json(d, line=line_no)
    except ValueError as err:
        raise SessionFileError(path, line_no, str(err)) from None
    if isinstance(entry, SessionHeader):
        raise SessionFileError(path, line_no, "a second session header inside the file")
    return entry


def check_tree(path: str, entries: Sequence[SessionEntry], line_nos: Sequence[int]) -> None:
    """Raise ``SessionFileError`` for a duplicate entry id or a ``parentId`` cycle.

    ``line_nos[i]`` is the file line of ``entries[i]``. O(entries): a never-branched file
    (each entry the child of the one before it) needs no walk at all.
    """
    line_of: dict[str, int] = {}
    for e, line in zip(entries, line_nos, strict=True):
        first = line_of.setdefault(e.id, line)
        if first != line:
            raise SessionFileError(
                path, line, f"entry id {e.id} appears twice (first on line {first})",
                "Entry ids must be unique in a session file; repair or remove one of the two lines.",
            )
    if is_chain(entries, line_of):
        return
    by_id = {e.id: e for e in entries}
    done: set[str] = set()
    for e in entries:
        walk: dict[str, None] = {}  # this walk's ids, in order
        cur: SessionEntry | None = e
        while cur is not None and cur.id not in done:
            if cur.id in walk:
                loop = [*walk][[*walk].index(cur.id):]
                raise SessionFileError(
                    path, line_of[cur.id],
                    f"parentId cycle: entry {cur.id} is its own ancestor ({' → '.join([*loop, cur.id])})",
                    "Every parentId chain must end at a root (parentId null); repair the parentId of one of them.",
                )
            walk[cur.id] = None
            pid = cur.parent_id
            cur = by_id.get(pid) if pid is not None else None
        done.update(walk)


def is_chain(entries: Sequence[SessionEntry], ids: Container[str]) -> bool:
    """Each entry is the child of the one before it, and the first one's parent is not among ``ids``
    (the ids of ``entries``)."""
    if not entries:
        return True
    parents = list(map(_get_parent_id, entries))
    return (parents[0] is None or parents[0] not in ids) and parents[1:] == list(map(_get_id, entries[:-1]))


def _migrate(dicts: list[Any], version: int) -> None:
    """pi's v1 → v2 (ids, parentIds, firstKeptEntryIndex → Id) and v2 → v3 (hookMessage → custom)."""
    header = dicts[0]
    if version < 2:
        taken: dict[str, Any] = {}
        prev: str | None = None
        for d in dicts[1:]:
            if not isinstance(d, dict):
                continue
            eid = new_entry_id(taken)
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


__all__ = ["MAX_SESSION_FILE_BYTES", "LoadedFile", "check_tree", "is_chain", "load_file", "new_entry_id",
           "read_session_bytes"]
