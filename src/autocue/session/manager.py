"""``SessionManager``: the append-only JSONL session tree, byte-compatible with pi v3.

A session file is a header line (``{"type":"session","version":3,"id",...}``) followed by one
entry per line. Every entry has an 8-hex ``id`` and a ``parentId``; the *leaf* is the entry
the next append hangs under, so moving the leaf (``branch``) starts a new branch without
touching history. ``build_session_context()`` walks leaf → root and returns what the model
sees, compaction-aware exactly like pi.

Files (the collaborators):

- location and listing (``session_dir.py``): ``<AUTOCUE_DIR or ~/.autocue>/sessions/--<cwd
  slug>--/<ISO ts, ":" and "." → "-">_<id>.jsonl``; ``list`` and ``continue_recent`` read it;
- writing (``file_writer.py``): nothing touches the disk (not even the directory) before the
  first assistant message; then everything buffered is written and each later append is written
  and flushed (one ``write`` per entry on an ``O_APPEND`` descriptor);
- loading (``file_reader.py``): ``open`` of a missing path raises ``SessionFileNotFoundError``
  (``create_at`` creates a session at a path, explicitly); a torn last line is skipped and
  reported in ``warnings``, anything else malformed raises ``SessionFileError`` naming file and
  line. v1/v2 files are migrated to v3 like pi does and rewritten, the original kept as
  ``<file>.bak`` (``.bak.1``, ... : never overwritten); nothing else writes to a file that is opened;
- the context at the leaf: ``session_context.py`` (``build_session_context``, ``SessionContext``).

Public surface: ``SessionManager`` (constructors ``create``, ``create_at``, ``open``,
``in_memory``, ``continue_recent``, ``fork_from``, ``list``) and ``SessionTreeNode``.
"""

from __future__ import annotations

import builtins
import contextlib
import operator
import os
from dataclasses import dataclass, field
from typing import Any

from autocue.llm.types import UserContent
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
)
from autocue.session.errors import EntryNotFoundError, SessionFileError
from autocue.session.file_format import dumps_line, iso_now
from autocue.session.file_reader import is_chain, load_file, new_entry_id
from autocue.session.file_writer import SessionFileWriter, entry_lines, keep_backup
from autocue.session.messages import AgentMessage
from autocue.session.session_context import SessionContext, context_of_path, path_to_root
from autocue.session.session_dir import (
    SessionInfo,
    default_session_dir,
    find_most_recent_session,
    list_sessions,
    session_file_name,
    uuid7,
)

_List = builtins.list
_get_id = operator.attrgetter("id")


@dataclass(slots=True)
class SessionTreeNode:
    entry: SessionEntry
    children: _List[SessionTreeNode] = field(default_factory=_List)
    label: str | None = None


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
        self._file = SessionFileWriter(None)
        """The session file and how much of it is written (``path`` None: nothing is written)."""
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
             decoded: bool = False, read_only: bool = False) -> SessionManager:
        """Load an existing session file (an empty one starts a new session in it).

        Raises ``SessionFileNotFoundError`` (a ``FileNotFoundError``) when ``path`` does not
        exist: nothing is created (``create_at`` does that), and ``SessionFileError`` naming
        the line for a malformed file. A v1/v2 file is migrated and rewritten, its original
        kept as ``<path>.bak`` (``.bak.1``, ... when that exists).

        ``decoded=True`` keeps each message entry's decoded dict (``to_json()`` returns it) and
        types its message on first access: a reader of every entry's JSON, like the viewer,
        then decodes each line once (by default a message is typed at once and its dict dropped).

        ``read_only=True`` reads the file and never writes it: a v1/v2 file is migrated in memory
        only, and appends stay in memory (for readers such as ``autocue export``).
        """
        p = os.path.abspath(os.fspath(path))
        d = os.fspath(session_dir) if session_dir is not None else os.path.dirname(p)
        sm = SessionManager(os.getcwd(), d, p, not read_only, decoded=decoded)
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
        sm._file.path = p
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
        return SessionManager(c, d, find_most_recent_session(d), True)

    @staticmethod
    def fork_from(
        source_path: str | os.PathLike[str], target_cwd: str | os.PathLike[str],
        session_dir: str | os.PathLike[str] | None = None,
    ) -> SessionManager:
        """A new session for ``target_cwd`` holding the whole history of ``source_path``."""
        src = os.path.abspath(os.fspath(source_path))
        loaded = load_file(src)
        if loaded.header is None:
            raise SessionFileError(src, None, "cannot fork: the source session file is empty")
        c = os.path.abspath(os.fspath(target_cwd))
        d = os.fspath(session_dir) if session_dir is not None else default_session_dir(c)
        header = SessionHeader(uuid7(), iso_now(), c, CURRENT_SESSION_VERSION, src)
        target = os.path.join(d, session_file_name(header.timestamp, header.id))
        os.makedirs(d, exist_ok=True)
        with builtins.open(target, "wb") as f:
            f.write(dumps_line(header.to_json()) + entry_lines(loaded.entries))
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
        h = self._header = SessionHeader(id or uuid7(), iso_now(), self._cwd, CURRENT_SESSION_VERSION, parent_session)
        self._entries: _List[SessionEntry] = []
        self._build_index()
        self._file = SessionFileWriter(
            os.path.join(self._session_dir, session_file_name(h.timestamp, h.id)) if self._persist else None)
        return self._file.path

    def set_session_dir(self, session_dir: str | os.PathLike[str]) -> None:
        """Keep this new session's file in ``session_dir`` instead (a ``session_directory`` handler's
        pick); raises ``SessionFileError`` once the file was written."""
        f = self._file
        if f.written >= 0:
            raise SessionFileError(f.path or "", None, "already written; its directory cannot change")
        self._session_dir = os.fspath(session_dir)
        if self._persist and f.path is not None:
            f.path = os.path.join(self._session_dir, os.path.basename(f.path))

    def set_session_file(self, path: str | os.PathLike[str], *, decoded: bool = False) -> None:
        """Switch to another existing session file (resume); an empty file starts a new session
        in it. Raises ``SessionFileNotFoundError`` for a missing path, ``SessionFileError`` for
        a malformed file (this manager is then unchanged). ``decoded``: see ``open``."""
        path = os.path.abspath(os.fspath(path))
        loaded = load_file(path, decoded)
        if loaded.header is None:
            self.new_session()
            self._file.path = path
            self._file.truncate_at = loaded.truncate_at  # an empty or blank file: rewrite it from the start
            return
        self.close()
        self.warnings.extend(loaded.warnings)
        self._file = SessionFileWriter(path, len(loaded.entries), loaded.truncate_at, loaded.needs_newline)
        self._header = loaded.header
        self._entries = loaded.entries
        self._build_index()
        if loaded.migrated_from is not None and self._persist:
            assert loaded.original is not None
            backup = keep_backup(path, loaded.original)
            self._file.rewrite(self._header, self._entries)
            self.warnings.append(f"{path}: migrated from session version {loaded.migrated_from} to "
                                 f"{CURRENT_SESSION_VERSION}; the original is kept in {backup}")

    def _build_index(self) -> None:
        """The indexes of ``_entries``: ids, labels, the session name, the leaf (the last entry)."""
        entries = self._entries
        by_id: dict[str, SessionEntry] = dict(zip(map(_get_id, entries), entries, strict=True))
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
        self._children: dict[str | None, _List[str]] | None = None
        """Children ids by parent id, built on first use by ``get_children``."""
        self._linear = len(by_id) == len(entries) and is_chain(entries, by_id)
        """Each entry is the child of the one before it (and ids are unique): the path to the last entry is the
        entry list itself, no walk needed (see ``_path_to``)."""

    def _where(self) -> str:
        return self._file.path or "the in-memory session"

    def close(self) -> None:
        """Close the file descriptor kept for appends (reopened on the next write)."""
        self._file.close()

    def __enter__(self) -> SessionManager:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ appends
    def _head(self) -> tuple[str, str | None, str]:
        """A new entry's id, parent id (the leaf) and timestamp."""
        return new_entry_id(self._by_id), self._leaf_id, iso_now()

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
        if self._persist and self._has_assistant and (f := self._file).path is not None:
            f.flush(self._header, entries)
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
        # _head() inlined: the hot path
        return self._append(MessageEntry.of(new_entry_id(self._by_id), self._leaf_id, iso_now(), message))

    def append_thinking_level_change(self, thinking_level: str) -> str:
        return self._append(ThinkingLevelChangeEntry(*self._head(), thinking_level))

    def append_model_change(self, provider: str, model_id: str) -> str:
        return self._append(ModelChangeEntry(*self._head(), provider, model_id))

    def append_compaction(
        self, summary: str, first_kept_entry_id: str, tokens_before: int, details: Any = None, from_hook: bool = False
    ) -> str:
        """Record a compaction: history before ``first_kept_entry_id`` is replaced by ``summary``."""
        return self._append(CompactionEntry(*self._head(), summary, first_kept_entry_id, tokens_before, details,
                                            from_hook))

    def append_custom_entry(self, custom_type: str, data: Any = None) -> str:
        """Extension state; not part of the LLM context."""
        return self._append(CustomEntry(*self._head(), custom_type, data))

    def append_custom_message_entry(
        self, custom_type: str, content: str | _List[UserContent], display: bool, details: Any = None
    ) -> str:
        """An extension message that is part of the LLM context (as a user message)."""
        return self._append(CustomMessageEntry(*self._head(), custom_type, content, display, details))

    def append_session_info(self, name: str) -> str:
        """Set the session's display name (trimmed)."""
        name = name.strip()
        eid = self._append(SessionInfoEntry(*self._head(), name))
        if name:
            self._session_name = name
        return eid

    def append_label_change(self, target_id: str, label: str | None) -> str:
        """Set (or with ``None``/``""`` clear) the label of an entry; raises for an unknown id."""
        if target_id not in self._by_id:
            raise EntryNotFoundError(target_id, self._where())
        eid = self._append(LabelEntry(*self._head(), target_id, label))
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
        return self._append(BranchSummaryEntry(*self._head(), entry_id if entry_id is not None else "root", summary,
                                               details, from_hook))

    def create_branched_session(self, leaf_id: str) -> str | None:
        """Switch to a new session holding only root → ``leaf_id`` (labels re-created at the end).

        Returns the new file path (written at once), or None in memory.
        """
        path = [e for e in self.get_branch(leaf_id) if e.type != "label"]
        ids = {e.id: True for e in path}
        header = SessionHeader(uuid7(), iso_now(), self._cwd, CURRENT_SESSION_VERSION,
                               self._file.path if self._persist else None)
        parent: str | None = path[-1].id if path else None
        labels: _List[SessionEntry] = []
        for target, label in self._labels.items():
            if target in ids:
                le = LabelEntry(new_entry_id(ids), parent, iso_now(), target, label)
                ids[le.id] = True
                labels.append(le)
                parent = le.id
        self.close()
        self._header = header
        self._entries = path + labels
        self._build_index()
        file = os.path.join(self._session_dir, session_file_name(header.timestamp, header.id))
        self._file = SessionFileWriter(file if self._persist else None)
        if self._persist:
            self._file.flush(self._header, self._entries)  # (the writer creates the directory)
        return self._file.path

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
        return path_to_root(self._by_id[entry_id], self._by_id)

    def get_tree(self) -> _List[SessionTreeNode]:
        """The whole tree: roots (and orphans) with children sorted by timestamp."""
        nodes = {e.id: SessionTreeNode(e, [], self._labels.get(e.id)) for e in self._entries}
        roots: _List[SessionTreeNode] = []
        for e in self._entries:
            node = nodes[e.id]
            pid = e.parent_id
            parent = nodes.get(pid) if pid is not None and pid != e.id else None
            (parent.children if parent is not None else roots).append(node)
        for n in nodes.values():
            n.children.sort(key=lambda c: c.entry.timestamp)
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
        return self._file.path

    def is_persisted(self) -> bool:
        return self._persist

    def build_session_context(self) -> SessionContext:
        """What the model sees at the current leaf (compaction-aware); O(path)."""
        if self._leaf_id is None:
            return SessionContext([], "off", None)
        try:
            return context_of_path(self._path_to(self._leaf_id))
        except ValueError as e:
            # a lazily parsed message that turned out malformed, or a parentId cycle
            raise SessionFileError(self._where(), e.line if isinstance(e, EntryParseError) else None, str(e)) from None

    def __repr__(self) -> str:
        return f"SessionManager({self._where()!r}, entries={len(self._entries)}, leaf={self._leaf_id!r})"


__all__ = ["SessionManager", "SessionTreeNode"]
