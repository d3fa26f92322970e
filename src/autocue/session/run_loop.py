"""One run of an ``AgentSession``: the agent runs, then the session decides what follows.

``run(s, start)`` awaits ``start()`` (the agent's ``prompt`` or ``continue_``), then loops while
the run goes on: a TTSR rule that cut the stream retries it; a retryable error is retried by
``AutoRetry`` (``auto_retry.py``); a context overflow compacts once and continues; a finished
turn past the threshold compacts (``SessionCompactor``, ``compaction_runner.py``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from autocue.llm.types import AssistantMessage
from autocue.session.retry import is_retryable_error

if TYPE_CHECKING:
    from autocue.session.agent_session import AgentSession


async def run(s: AgentSession, start: Callable[[], Awaitable[Any]]) -> None:
    """Run ``start()`` and what follows it: retries and compactions, until the agent is done."""
    retry = s.retry
    retry.start()
    overflow_tried = False
    s.ttsr.begin_prompt()
    await start()
    while True:
        if s.ttsr.pending is not None and await s.ttsr.retry():
            continue
        last = _last_assistant(s)
        if last is None:
            break
        if last.stop_reason == "error":
            overflow = s.compactor.is_overflow(last)
            if not overflow and s.settings.retry.enabled and is_retryable_error(last):
                if await retry.retry(last):
                    continue
                break
            await retry.finish(False, last.error_message)
            if overflow and s.settings.compaction.enabled and not overflow_tried:
                overflow_tried = True
                if await s.compactor.auto("overflow", will_retry=True):
                    _drop_trailing_errors(s)
                    msgs = s.agent.state.messages
                    if msgs and msgs[-1].role != "assistant":
                        await s.agent.continue_()
                        continue
            break
        await retry.finish(True)
        if last.stop_reason != "aborted":
            await s.compactor.check_threshold()
        break


def _last_assistant(s: AgentSession) -> AssistantMessage | None:
    msgs = s.agent.state.messages
    if msgs and msgs[-1].role == "assistant":
        return msgs[-1]  # type: ignore[return-value]
    return None


def _drop_trailing_errors(s: AgentSession) -> None:
    msgs = s.agent.state.messages
    while msgs and msgs[-1].role == "assistant" and msgs[-1].stop_reason in ("error", "aborted"):  # type: ignore[attr-defined]
        msgs.pop()


__all__ = ["run"]
