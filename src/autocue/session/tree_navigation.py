"""Moving an ``AgentSession`` around its session tree: ``navigate_tree`` and ``new_session``.

``session_before_tree`` handlers can cancel a move or supply a summary of the branch being
left (stored as a ``branch_summary`` entry); ``session_before_switch`` can cancel a new
session. Both rebuild the agent's context from the tree and fire the matching event after.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from autocue.extensions.events import (
    SessionBeforeSwitchEvent,
    SessionBeforeTreeEvent,
    SessionSwitchEvent,
    SessionTreeEvent,
)
from autocue.extensions.runner import is_missing, result_field
from autocue.llm.abort import AbortController
from autocue.session.errors import EntryNotFoundError

if TYPE_CHECKING:
    from autocue.session.agent_session import AgentSession


async def _summary_from_extensions(s: AgentSession, target_id: str | None, old: str | None) -> str | bool | None:
    """``session_before_tree``: False when cancelled, else the summary an extension supplied (or None)."""
    r = await s.runner.emit_session_before(SessionBeforeTreeEvent(target_id, old, AbortController().signal))
    if r is None:
        return None
    if result_field(r, "cancel") is True:
        return False
    v = result_field(r, "summary")
    if isinstance(v, str) and v:
        return v
    if v is not None and not is_missing(v):
        text = result_field(v, "summary")
        if isinstance(text, str) and text:
            return text
    return None


async def navigate_tree(s: AgentSession, target_id: str | None, summary: str | None) -> bool:
    """See ``AgentSession.navigate_tree``."""
    s._check_alive()
    sm = s.session_manager
    if target_id is not None and sm.get_entry(target_id) is None:
        raise EntryNotFoundError(target_id, sm.get_session_file() or "this in-memory session")
    old = sm.get_leaf_id()
    from_ext = False
    if s.runner.has("session_before_tree"):
        supplied = await _summary_from_extensions(s, target_id, old)
        if supplied is False:
            return False
        if isinstance(supplied, str):
            summary, from_ext = supplied, True
    summary_entry = None
    if summary:
        eid = sm.branch_with_summary(target_id, summary, None, from_ext)
        summary_entry = sm.get_entry(eid)
    elif target_id is None:
        sm.reset_leaf()
    else:
        sm.branch(target_id)
    s.agent.replace_messages(sm.build_session_context().messages)
    await s.runner.emit_async(SessionTreeEvent(sm.get_leaf_id(), old, summary_entry, from_ext))
    return True


async def new_session(s: AgentSession, parent_session: str | None = None) -> bool:
    """See ``AgentSession.new_session``."""
    s._check_alive()
    sm = s.session_manager
    prev = sm.get_session_file()
    if s.runner.has("session_before_switch"):
        r = await s.runner.emit_session_before(SessionBeforeSwitchEvent("new"))
        if r is not None and result_field(r, "cancel") is True:
            return False
    if s.is_streaming:
        await s.abort()
    sm.new_session(parent_session=parent_session)
    s.agent.reset()
    s.prompts.clear_next_turn()
    sm.append_model_change(s.model.provider, s.model.id)
    sm.append_thinking_level_change(s.thinking_level)
    await s.runner.emit_async(SessionSwitchEvent("new", prev))
    return True


__all__ = ["navigate_tree", "new_session"]
