"""What the model sees at a leaf of the session tree: pi's ``buildSessionContext``.

``build_session_context(entries, leaf_id, by_id)`` walks leaf → root and returns a
``SessionContext`` (messages, thinking level, ``(provider, model_id)``), compaction-aware
exactly like pi: with a compaction on the path the messages are its summary, the kept entries
from ``firstKeptEntryId`` up to it, then the entries after it. ``path_to_root`` and
``context_of_path`` are the two halves (``SessionManager`` skips the walk for a never-branched
session).
"""

from __future__ import annotations

from dataclasses import dataclass

from autocue.session.entries import (
    BranchSummaryEntry,
    CompactionEntry,
    CustomMessageEntry,
    EntryParseError,
    MessageEntry,
    ModelChangeEntry,
    SessionEntry,
    ThinkingLevelChangeEntry,
)
from autocue.session.file_format import no_gc
from autocue.session.messages import AgentMessage


@dataclass(slots=True)
class SessionContext:
    """What the model sees at the leaf: messages, thinking level and ``(provider, model_id)``."""

    messages: list[AgentMessage]
    thinking_level: str = "off"
    model: tuple[str, str] | None = None


def build_session_context(
    entries: list[SessionEntry], leaf_id: str | None, by_id: dict[str, SessionEntry] | None = None
) -> SessionContext:
    """pi's ``buildSessionContext``: walk leaf → root; with a compaction on the path the
    messages are its summary, the kept entries from ``firstKeptEntryId`` up to it, then the
    entries after it. ``leaf_id=None`` gives an empty context. Cost: O(path)."""
    if leaf_id is None:
        return SessionContext([])
    if by_id is None:
        by_id = {e.id: e for e in entries}
    leaf = by_id.get(leaf_id) or (entries[-1] if entries else None)
    return SessionContext([]) if leaf is None else context_of_path(path_to_root(leaf, by_id))


def context_of_path(path: list[SessionEntry]) -> SessionContext:
    """The context of a root → leaf path, in one pass when it holds no compaction."""
    thinking_level = "off"
    model_entry: SessionEntry | None = None
    compaction: CompactionEntry | None = None
    deferred: EntryParseError | None = None
    messages: list[AgentMessage] = []
    append = messages.append
    with no_gc():
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


def _context_messages(path: list[SessionEntry], compaction_idx: int) -> list[AgentMessage]:
    """The compaction's summary, the kept entries from ``firstKeptEntryId`` up to it, then everything after it."""
    comp = path[compaction_idx]
    assert isinstance(comp, CompactionEntry)
    messages: list[AgentMessage] = [comp.to_message()]
    append = messages.append
    kept = next((i for i in range(compaction_idx) if path[i].id == comp.first_kept_entry_id), compaction_idx)
    for e in path[kept:compaction_idx] + path[compaction_idx + 1:]:
        t = e.type
        if t == "message":
            append(e.message)  # type: ignore[union-attr]
        elif t == "custom_message" or (t == "branch_summary" and e.summary):  # type: ignore[union-attr]
            append(e.to_message())  # type: ignore[union-attr]
    return messages


def path_to_root(leaf: SessionEntry, by_id: dict[str, SessionEntry]) -> list[SessionEntry]:
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


__all__ = ["SessionContext", "build_session_context", "context_of_path", "path_to_root"]
