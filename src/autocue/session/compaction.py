"""Context compaction, as pi does it: when to compact, where to cut (never at a tool result; a
cut that is not at a user message is a *split turn*), what to summarize. The summary is asked
*through the provider* with pi's prompts (``summarization.py``).

The functions are pure, over session entries and agent messages; ``SessionCompactor`` is when
and how an ``AgentSession`` compacts (built with the agent, the session's provider, settings,
session manager, extension runner, events and ``RunGuard``): it appends the ``compaction``
entry and rebuilds the context. Extensions may cancel or supply the summary through ``session_before_compact``;
``session_compact`` fires after. Branch summaries (tree navigation) are ``branch_summary.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from autocue.agent.agent import Agent
from autocue.casing import MISSING, CamelJson, field
from autocue.extensions.events import SessionBeforeCompactEvent, SessionCompactEvent
from autocue.extensions.runner import ExtensionRunner
from autocue.llm.abort import AbortController, AbortSignal
from autocue.llm.stream import Provider
from autocue.llm.types import AssistantMessage, Model
from autocue.session.context_tokens import (
    estimate_context_tokens,
    estimate_tokens,
    get_context_tokens,
    is_context_overflow,
)
from autocue.session.entries import CompactionEntry, SessionEntry, message_of
from autocue.session.errors import CompactionError
from autocue.session.event_dispatch import EventDispatch
from autocue.session.events import AutoCompactionEndEvent, AutoCompactionStartEvent
from autocue.session.manager import SessionManager
from autocue.session.messages import AgentMessage
from autocue.session.ports import RunGuard
from autocue.session.settings import CompactionSettings, Settings
from autocue.session.summarization import (
    SPLIT_TURN_SEPARATOR,
    FileOperations,
    compute_file_lists,
    extract_file_ops_from_message,
    format_file_operations,
    generate_summary,
    generate_turn_prefix_summary,
)

# ---------------------------------------------------------------------------- when (settings: settings.py)


def should_compact(context_tokens: int, context_window: int, settings: CompactionSettings) -> bool:
    """True when compaction is enabled and ``context_tokens > context_window - reserve_tokens``."""
    return settings.enabled and context_tokens > context_window - settings.reserve_tokens


# ---------------------------------------------------------------------------- cut point


_CUT_ROLES = frozenset({"user", "assistant", "bashExecution", "custom", "branchSummary", "compactionSummary"})


def _find_valid_cut_points(entries: Sequence[SessionEntry], start: int, end: int) -> list[int]:
    return [
        i for i in range(start, end)
        if (t := entries[i].type) == "branch_summary" or t == "custom_message"
        or (t == "message" and entries[i].role in _CUT_ROLES)  # type: ignore[union-attr]
    ]


def find_turn_start_index(entries: Sequence[SessionEntry], entry_index: int, start_index: int) -> int:
    """The user message (or bash execution, branch summary, custom message) that starts the
    turn holding ``entry_index``; -1 when there is none at or after ``start_index``."""
    return next((
        i for i in range(entry_index, start_index - 1, -1)
        if (t := entries[i].type) == "branch_summary" or t == "custom_message"
        or (t == "message" and entries[i].role in ("user", "bashExecution"))  # type: ignore[union-attr]
    ), -1)


@dataclass(slots=True)
class CutPointResult:
    first_kept_entry_index: int
    """Index of the first entry kept verbatim."""
    turn_start_index: int
    """When splitting a turn: the index of the message that started it; else -1."""
    is_split_turn: bool


def find_cut_point(
    entries: Sequence[SessionEntry], start_index: int, end_index: int, keep_recent_tokens: int
) -> CutPointResult:
    """Walk back from the newest entry summing estimated tokens; once ``keep_recent_tokens``
    is reached, cut at the nearest valid cut point at or after that entry (never a tool
    result), then move back over non-message entries (model/thinking changes, labels...)."""
    cut_points = _find_valid_cut_points(entries, start_index, end_index)
    if not cut_points:
        return CutPointResult(start_index, -1, False)
    accumulated = 0
    cut = cut_points[0]
    for i in range(end_index - 1, start_index - 1, -1):
        e = entries[i]
        if e.type != "message":
            continue
        accumulated += estimate_tokens(e.message)  # type: ignore[union-attr]
        if accumulated >= keep_recent_tokens:
            cut = next((c for c in cut_points if c >= i), cut)
            break
    # Whether the turn is split is decided at the message cut point. (pi decides it after
    # moving back over settings entries, so a model change right before a user message made
    # the previous whole turn a "split turn prefix"; autocue does not.)
    e = entries[cut]
    is_user = e.type == "message" and e.role == "user"  # type: ignore[union-attr]
    while cut > start_index and entries[cut - 1].type not in ("compaction", "message"):
        cut -= 1
    turn_start = -1 if is_user else find_turn_start_index(entries, cut, start_index)
    return CutPointResult(cut, turn_start, not is_user and turn_start != -1)

# ---------------------------------------------------------------------------- preparation


@dataclass(slots=True)
class CompactionPreparation:
    """Everything ``compact()`` needs (and what ``session_before_compact`` handlers see)."""

    first_kept_entry_id: str
    messages_to_summarize: list[AgentMessage]
    """History before the cut (or before the split turn) that the summary replaces."""
    turn_prefix_messages: list[AgentMessage]
    """For a split turn: the turn's messages before the cut, summarized separately."""
    is_split_turn: bool
    tokens_before: int
    previous_summary: str | None
    file_ops: FileOperations
    settings: CompactionSettings


@dataclass(slots=True)
class CompactionResult(CamelJson):
    """What to persist: ``SessionManager.append_compaction(summary, first_kept_entry_id, tokens_before, details)``."""

    summary: str
    first_kept_entry_id: str
    tokens_before: int
    details: Any = None
    """pi's default: ``{"readFiles": [...], "modifiedFiles": [...]}``."""
    HEAD = None
    KEYS = ("summary", "firstKeptEntryId", "tokensBefore", "details")


def _messages(entries: Sequence[SessionEntry]) -> list[AgentMessage]:
    return [m for e in entries if (m := message_of(e)) is not None]


def prepare_compaction(
    path_entries: Sequence[SessionEntry], settings: CompactionSettings
) -> CompactionPreparation | None:
    """Plan a compaction of the branch ``path_entries`` (root → leaf).

    ``None`` when the branch already ends with a compaction. Only entries after the
    previous compaction are candidates; its summary becomes ``previous_summary`` and its
    file lists carry over (unless an extension wrote it).
    """
    n = len(path_entries)
    if n and path_entries[-1].type == "compaction":
        return None
    prev = next((i for i in range(n - 1, -1, -1) if path_entries[i].type == "compaction"), -1)
    start = prev + 1
    tokens_before = estimate_context_tokens(_messages(path_entries[max(prev, 0):])).tokens

    cut = find_cut_point(path_entries, start, n, settings.keep_recent_tokens)
    if cut.first_kept_entry_index >= n:
        return None
    first_kept_id = path_entries[cut.first_kept_entry_index].id
    history_end = cut.turn_start_index if cut.is_split_turn else cut.first_kept_entry_index
    to_summarize = _messages(path_entries[start:history_end])
    prefix = _messages(path_entries[cut.turn_start_index:cut.first_kept_entry_index]) if cut.is_split_turn else []

    previous_summary: str | None = None
    ops = FileOperations()
    if prev >= 0:
        pc = path_entries[prev]
        assert isinstance(pc, CompactionEntry)
        previous_summary = pc.summary
        if not pc.from_hook:
            ops.add_previous(pc.details)
    for m in (*to_summarize, *prefix):
        extract_file_ops_from_message(m, ops)
    return CompactionPreparation(first_kept_id, to_summarize, prefix, cut.is_split_turn, tokens_before,
                                 previous_summary, ops, settings)


async def compact(
    preparation: CompactionPreparation, model: Model, provider: Provider, *,
    custom_instructions: str | None = None, signal: AbortSignal | None = None, api_key: str | None = None,
) -> CompactionResult:
    """Summarize a prepared compaction through ``provider`` and return what to persist.

    A split turn makes two model calls, history first, then the turn prefix (pi runs them
    in parallel; autocue runs them in order so a scripted provider sees a fixed order).
    Raises ``CompactionError`` when a call fails or is aborted.
    """
    p = preparation
    reserve = p.settings.reserve_tokens
    split = p.is_split_turn and bool(p.turn_prefix_messages)
    summary = "No prior history."
    if p.messages_to_summarize or not split:
        summary = await generate_summary(p.messages_to_summarize, model, provider, reserve, signal=signal,
                                         custom_instructions=custom_instructions,
                                         previous_summary=p.previous_summary, api_key=api_key)
    if split:
        summary += SPLIT_TURN_SEPARATOR + await generate_turn_prefix_summary(
            p.turn_prefix_messages, model, provider, reserve, signal=signal, api_key=api_key)
    read_files, modified_files = compute_file_lists(p.file_ops)
    summary += format_file_operations(read_files, modified_files)
    return CompactionResult(summary, p.first_kept_entry_id, p.tokens_before,
                            {"readFiles": read_files, "modifiedFiles": modified_files})


# ---------------------------------------------------------------------------- in a session


class SessionCompactor:
    """When and how a session compacts: on request (``compact``), past the threshold after a turn
    (``check_threshold``) and once after a context overflow (``auto``)."""

    __slots__ = ("_abort", "_agent", "_events", "_guard", "_provider", "_runner", "_settings", "_sm")

    def __init__(
        self, *, agent: Agent, provider: Provider, settings: Settings, session_manager: SessionManager,
        runner: ExtensionRunner, events: EventDispatch, guard: RunGuard,
    ) -> None:
        self._agent = agent
        self._provider = provider
        """The session's own provider: the summary is asked through it."""
        self._settings = settings
        self._sm = session_manager
        self._runner = runner
        self._events = events
        self._guard = guard
        self._abort: AbortController | None = None

    def abort(self) -> None:
        if self._abort is not None:
            self._abort.abort("Compaction aborted")

    def is_overflow(self, m: AssistantMessage) -> bool:
        return bool(is_context_overflow(m, self._agent.state.model.context_window))

    async def compact(self, custom_instructions: str | None = None) -> Any:
        """See ``AgentSession.compact``."""
        agent, guard = self._agent, self._guard
        guard.check_alive()
        if agent.is_streaming:
            agent.abort("Aborted for compaction")
            await agent.wait_for_idle()
        guard.begin()
        try:
            return await self.run(custom_instructions)
        finally:
            guard.end()

    async def run(self, custom_instructions: str | None) -> Any:
        sm, runner, agent = self._sm, self._runner, self._agent
        branch = sm.get_branch()
        if branch and branch[-1].type == "compaction":
            raise CompactionError("Already compacted")
        prep = prepare_compaction(branch, self._settings.compaction)
        if prep is None or not (prep.messages_to_summarize or prep.turn_prefix_messages):
            raise CompactionError("Nothing to compact (session too small)")
        self._abort = controller = AbortController()
        result: CompactionResult | None = None
        if runner.has("session_before_compact"):
            r = await runner.emit_session_before(
                SessionBeforeCompactEvent(prep, branch, custom_instructions, controller.signal)
            )
            if field(r, "cancel") is True:  # (a field of None is MISSING)
                raise CompactionError("Compaction cancelled")
            supplied = field(r, "compaction")
            if supplied is not MISSING and supplied is not None:
                result = _compaction_override(supplied)
        from_ext = result is not None
        if result is None:
            result = await compact(prep, agent.state.model, self._provider, custom_instructions=custom_instructions,
                                   signal=controller.signal)
        if controller.signal.aborted:
            raise CompactionError("Compaction cancelled")
        eid = sm.append_compaction(
            result.summary, result.first_kept_entry_id, result.tokens_before, result.details, from_ext
        )
        agent.replace_messages(sm.build_session_context().messages)
        if runner.has("session_compact"):
            await runner.emit_async(SessionCompactEvent(sm.get_entry(eid), from_ext))
        return result

    async def check_threshold(self) -> None:
        """After a turn: compact when the context passes the settings' threshold."""
        cs = self._settings.compaction
        if not cs.enabled:
            return
        st = self._agent.state
        tokens = get_context_tokens(st.messages)
        if should_compact(tokens, st.model.context_window, cs):
            await self.auto("threshold", will_retry=False)

    async def auto(self, reason: Literal["threshold", "overflow"], *, will_retry: bool) -> bool:
        """Compact between ``auto_compaction_start`` and ``auto_compaction_end``; False when it failed."""
        emit = self._events.emit_session_event
        await emit(AutoCompactionStartEvent(reason))
        try:
            result = await self.run(None)
        except Exception as err:
            aborted = isinstance(err, CompactionError) and str(err) == "Compaction cancelled"
            text = str(err) if isinstance(err, CompactionError) else f"{type(err).__name__}: {err}"
            await emit(AutoCompactionEndEvent(None, aborted, False, None if aborted else text))
            return False
        await emit(AutoCompactionEndEvent(result, False, will_retry))
        return True


def _compaction_override(v: Any) -> CompactionResult:
    """The ``compaction`` a ``session_before_compact`` handler supplied (``CompactionOverride``, dict or object)."""
    summary = field(v, "summary")
    first = field(v, "first_kept_entry_id")
    tokens = field(v, "tokens_before")
    details = field(v, "details")
    if summary is MISSING or first is MISSING:
        raise CompactionError(
            "session_before_compact returned a compaction without summary/first_kept_entry_id; "
            "return {'compaction': {'summary': ..., 'first_kept_entry_id': ..., 'tokens_before': ...}}"
        )
    return CompactionResult(
        str(summary), str(first), 0 if tokens is MISSING else int(tokens), None if details is MISSING else details
    )


__all__ = [
    "CompactionPreparation", "CompactionResult", "CompactionSettings", "CutPointResult", "SessionCompactor", "compact",
    "find_cut_point", "find_turn_start_index", "prepare_compaction", "should_compact",
]
