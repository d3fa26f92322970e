"""``SessionCompactor``: when and how an ``AgentSession`` compacts its history.

``compact()`` (manual), ``schedule()`` (what ``ctx.compact`` calls: once idle),
``check_threshold()`` (after a turn, when the context passes the settings' threshold) and
``auto("overflow" | "threshold")`` (with ``auto_compaction_*`` events). Extensions may cancel
or supply the summary through ``session_before_compact``; ``session_compact`` fires after.
The summarizing itself is ``compaction.compact``.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from autocue.casing import MISSING, field
from autocue.extensions.events import CompactionOverride, SessionBeforeCompactEvent, SessionCompactEvent
from autocue.llm.abort import AbortController
from autocue.llm.types import AssistantMessage
from autocue.session.compaction import CompactionResult, compact, prepare_compaction, should_compact
from autocue.session.context_tokens import get_context_tokens, is_context_overflow
from autocue.session.errors import CompactionError
from autocue.session.events import AutoCompactionEndEvent, AutoCompactionStartEvent

if TYPE_CHECKING:
    from autocue.session.agent_session import AgentSession


class SessionCompactor:
    __slots__ = ("_abort", "_s")

    def __init__(self, session: AgentSession) -> None:
        self._s: AgentSession = weakref.proxy(session)  # the session owns this; no cycle to free
        self._abort: AbortController | None = None

    def abort(self) -> None:
        if self._abort is not None:
            self._abort.abort("Compaction aborted")

    def is_overflow(self, m: AssistantMessage) -> bool:
        return bool(is_context_overflow(m, self._s.model.context_window))

    async def compact(self, custom_instructions: str | None = None) -> Any:
        """See ``AgentSession.compact``."""
        s = self._s
        s._check_alive()
        if s.agent.is_streaming:
            s.agent.abort("Aborted for compaction")
            await s.agent.wait_for_idle()
        s._begin()
        try:
            return await self.run(custom_instructions)
        finally:
            s._end()

    async def run(self, custom_instructions: str | None) -> Any:
        s = self._s
        sm = s.session_manager
        branch = sm.get_branch()
        if branch and branch[-1].type == "compaction":
            raise CompactionError("Already compacted")
        prep = prepare_compaction(branch, s.settings.compaction)
        if prep is None or not (prep.messages_to_summarize or prep.turn_prefix_messages):
            raise CompactionError("Nothing to compact (session too small)")
        self._abort = controller = AbortController()
        from_ext = False
        result: Any = None
        if s.runner.has("session_before_compact"):
            r = await s.runner.emit_session_before(
                SessionBeforeCompactEvent(prep, branch, custom_instructions, controller.signal)
            )
            if r is not None:
                if field(r, "cancel") is True:
                    raise CompactionError("Compaction cancelled")
                supplied = field(r, "compaction")
                if supplied is not MISSING and supplied is not None:
                    o = _compaction_override(supplied)
                    result = CompactionResult(o.summary, o.first_kept_entry_id, o.tokens_before, o.details)
                    from_ext = True
        if result is None:
            result = await compact(
                prep, s.model, s.provider, custom_instructions=custom_instructions, signal=controller.signal
            )
        if controller.signal.aborted:
            raise CompactionError("Compaction cancelled")
        eid = sm.append_compaction(
            result.summary, result.first_kept_entry_id, result.tokens_before, result.details, from_ext
        )
        s.agent.replace_messages(sm.build_session_context().messages)
        if s.runner.has("session_compact"):
            await s.runner.emit_async(SessionCompactEvent(sm.get_entry(eid), from_ext))
        return result

    def schedule(
        self,
        custom_instructions: str | None = None,
        *,
        on_complete: Callable[[Any], Any] | None = None,
        on_error: Callable[[BaseException], Any] | None = None,
    ) -> asyncio.Task[Any]:
        s = self._s

        async def job() -> Any:
            await s.wait_for_idle()
            try:
                result = await s.compact(custom_instructions)
            except Exception as err:
                if on_error is not None:
                    on_error(err)
                    return None
                raise
            if on_complete is not None:
                on_complete(result)
            return result

        task = asyncio.ensure_future(job())
        s.events.track(task)
        return task

    async def check_threshold(self) -> None:
        s = self._s
        cs = s.settings.compaction
        if not cs.enabled:
            return
        tokens = get_context_tokens(s.agent.state.messages)
        if should_compact(tokens, s.model.context_window, cs):
            await self.auto("threshold", will_retry=False)

    async def auto(self, reason: Literal["threshold", "overflow"], *, will_retry: bool) -> bool:
        emit = self._s.events.emit_session_event
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


def _compaction_override(v: Any) -> CompactionOverride:
    if isinstance(v, CompactionOverride):
        return v
    summary = field(v, "summary")
    first = field(v, "first_kept_entry_id")
    tokens = field(v, "tokens_before")
    details = field(v, "details")
    if summary is MISSING or first is MISSING:
        raise CompactionError(
            "session_before_compact returned a compaction without summary/first_kept_entry_id; "
            "return {'compaction': {'summary': ..., 'first_kept_entry_id': ..., 'tokens_before': ...}}"
        )
    return CompactionOverride(
        str(summary), str(first), 0 if tokens is MISSING else int(tokens), None if details is MISSING else details
    )


__all__ = ["SessionCompactor"]
