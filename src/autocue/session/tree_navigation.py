"""Moving an ``AgentSession`` around its session tree and between session files:
``navigate_tree``, ``new_session``, ``fork``, ``switch_session`` and ``fork_messages``, each
over the session's ``TreeParts``.

``session_before_tree`` handlers can cancel a move or supply a summary of the branch being
left (stored as a ``branch_summary`` entry); ``session_before_switch`` can cancel a new
session. Both rebuild the agent's context from the tree and fire the matching event after.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from autocue.agent.agent import Agent
from autocue.casing import field
from autocue.extensions.events import (
    SessionBeforeForkEvent,
    SessionBeforeSwitchEvent,
    SessionBeforeTreeEvent,
    SessionForkEvent,
    SessionSwitchEvent,
    SessionTreeEvent,
)
from autocue.extensions.runner import ExtensionRunner
from autocue.llm.abort import AbortController
from autocue.session.entries import MessageEntry
from autocue.session.errors import EntryNotFoundError
from autocue.session.manager import SessionManager
from autocue.session.ports import RunGuard
from autocue.session.prompt_queue import PromptQueue


@dataclass(slots=True, frozen=True)
class TreeParts:
    """What moving around the tree uses of a session: its agent (whose context is rebuilt),
    session manager, extension runner, ``RunGuard`` (alive? busy? abort) and prompt queue (the
    ``next_turn`` messages are dropped on a switch)."""

    agent: Agent
    session_manager: SessionManager
    runner: ExtensionRunner
    guard: RunGuard
    prompts: PromptQueue


async def _before(s: TreeParts, name: str, ev: Any) -> Any:
    """What the ``name`` handlers returned (None when there is none)."""
    return await s.runner.emit_session_before(ev) if s.runner.has(name) else None


def _cancels(r: Any) -> bool:
    return r is not None and field(r, "cancel") is True


def _start_tree(s: TreeParts) -> None:
    """A fresh tree starts with the model and the thinking level."""
    st = s.agent.state
    s.session_manager.append_model_change(st.model.provider, st.model.id)
    s.session_manager.append_thinking_level_change(st.thinking_level)


async def _summary_from_extensions(s: TreeParts, target_id: str | None, old: str | None) -> str | bool | None:
    """``session_before_tree``: False when cancelled, else the summary an extension supplied (or None)."""
    r = await _before(s, "session_before_tree", SessionBeforeTreeEvent(target_id, old, AbortController().signal))
    if _cancels(r):
        return False
    v = field(r, "summary") if r is not None else None
    if v and not isinstance(v, str):
        v = field(v, "summary")  # an object holding the summary
    return v if isinstance(v, str) and v else None


async def navigate_tree(s: TreeParts, target_id: str | None, summary: str | None) -> bool:
    """See ``AgentSession.navigate_tree``."""
    s.guard.check_alive()
    sm = s.session_manager
    if target_id is not None and sm.get_entry(target_id) is None:
        raise EntryNotFoundError(target_id, sm.get_session_file() or "this in-memory session")
    old = sm.get_leaf_id()
    supplied = await _summary_from_extensions(s, target_id, old)
    if supplied is False:
        return False
    from_ext = isinstance(supplied, str)
    summary = supplied if isinstance(supplied, str) else summary
    summary_entry = None
    if summary:
        summary_entry = sm.get_entry(sm.branch_with_summary(target_id, summary, None, from_ext))
    elif target_id is None:
        sm.reset_leaf()
    else:
        sm.branch(target_id)
    s.agent.replace_messages(sm.build_session_context().messages)
    await s.runner.emit_async(SessionTreeEvent(sm.get_leaf_id(), old, summary_entry, from_ext))
    return True


async def new_session(s: TreeParts, parent_session: str | None = None) -> bool:
    """See ``AgentSession.new_session``."""
    s.guard.check_alive()
    sm = s.session_manager
    prev = sm.get_session_file()
    if _cancels(await _before(s, "session_before_switch", SessionBeforeSwitchEvent("new"))):
        return False
    if s.guard.busy:
        await s.guard.abort()
    sm.new_session(parent_session=parent_session)
    s.agent.reset()
    s.prompts.clear_next_turn()
    _start_tree(s)
    await s.runner.emit_async(SessionSwitchEvent("new", prev))
    return True


@dataclass(slots=True)
class ForkResult:
    text: str
    """The text of the user message forked from (pi puts it back in the editor)."""
    cancelled: bool


def fork_messages(s: TreeParts) -> list[dict[str, str]]:
    """The user messages a fork can start from: ``[{entryId, text}]`` in session order."""
    return [{"entryId": e.id, "text": e.message.text} for e in s.session_manager.get_entries()  # type: ignore[union-attr]
            if type(e) is MessageEntry and e.role == "user"]


async def fork(s: TreeParts, entry_id: str) -> ForkResult:
    """See ``AgentSession.fork``."""
    s.guard.check_alive()
    sm = s.session_manager
    entry = sm.get_entry(entry_id)
    if type(entry) is not MessageEntry or entry.role != "user":
        raise EntryNotFoundError(entry_id, f"{sm.get_session_file() or 'this in-memory session'} (no user message "
                                 "with that id; get_fork_messages lists them)")
    text = entry.message.text  # type: ignore[union-attr]
    r = await _before(s, "session_before_fork", SessionBeforeForkEvent(entry_id))
    if _cancels(r):
        return ForkResult(text, True)
    skip_restore = r is not None and field(r, "skip_conversation_restore") is True
    if s.guard.busy:
        await s.guard.abort()
    prev = sm.get_session_file()
    if entry.parent_id is None:
        sm.new_session(parent_session=prev)
        _start_tree(s)
    else:
        sm.create_branched_session(entry.parent_id)
    if not skip_restore:
        s.agent.replace_messages(sm.build_session_context().messages)
    s.prompts.clear_next_turn()
    await s.runner.emit_async(SessionForkEvent(prev))
    return ForkResult(text, False)


async def switch_session(s: TreeParts, path: str) -> bool:
    """See ``AgentSession.switch_session``."""
    s.guard.check_alive()
    sm = s.session_manager
    if _cancels(await _before(s, "session_before_switch", SessionBeforeSwitchEvent("resume", path))):
        return False
    if s.guard.busy:
        await s.guard.abort()
    prev = sm.get_session_file()
    sm.set_session_file(path)  # raises SessionFileNotFoundError / SessionFileError; the manager is unchanged then
    s.agent.replace_messages(sm.build_session_context().messages)
    s.prompts.clear_next_turn()
    await s.runner.emit_async(SessionSwitchEvent("resume", prev))
    return True


__all__ = ["ForkResult", "TreeParts", "fork", "fork_messages", "navigate_tree", "new_session", "switch_session"]
