"""The narrow doors of ``AgentSession``: its collaborators work from the parts they are given
(agent, settings, events, session manager, extension runner, ``RunGuard``), never the session."""

from __future__ import annotations

import asyncio
import functools
import gc

import pytest
from session_helpers import fail, make_session, say, settings

from autocue.agent.agent import Agent
from autocue.extensions.runner import ExtensionRunner
from autocue.script import ScriptedProvider
from autocue.script.provider import scripted_model
from autocue.session import SessionDisposedError, SessionManager
from autocue.session.event_dispatch import EventDispatch
from autocue.session.retry import AutoRetry


async def test_the_guard_counts_runs_and_says_when_the_session_is_idle() -> None:
    s, _ = make_session([say("hi")])
    guard = s.guard
    assert not guard.busy and not s.is_streaming
    guard.begin()
    assert guard.busy and s.is_streaming
    waiter = asyncio.ensure_future(s.wait_for_idle())
    await asyncio.sleep(0)
    assert not waiter.done()
    guard.end()
    await asyncio.wait_for(waiter, 1)
    assert not s.is_streaming
    await s.dispose()
    assert guard.disposed and s.is_disposed
    with pytest.raises(SessionDisposedError, match="was disposed"):
        guard.check_alive()


async def test_the_guard_runs_through_the_session_and_does_not_keep_it_alive() -> None:
    s, _ = make_session([say("one"), say("two")])
    await s.prompt("go")
    guard = s.guard
    await guard.run(functools.partial(s.agent.prompt, "again"))  # the session's run loop, its context
    assert s.get_last_assistant_text() == "two"
    await s.dispose()
    del s, _
    gc.collect()
    with pytest.raises(SessionDisposedError, match="is gone"):
        await guard.run(lambda: asyncio.sleep(0))
    with pytest.raises(SessionDisposedError, match="is gone"):
        await guard.abort()


async def test_auto_retry_needs_no_session() -> None:
    agent = Agent(provider=ScriptedProvider([fail("overloaded", "529 overloaded"), say("ok")]), model=scripted_model())
    runner = ExtensionRunner()
    events = EventDispatch(runner, SessionManager.in_memory("/tmp"))
    seen: list[str] = []
    events.subscribe(lambda ev: seen.append(ev.type))
    retry = AutoRetry(agent=agent, settings=settings(base_delay_ms=0), events=events)
    await agent.prompt("go")
    last = agent.state.messages[-1]
    assert last.stop_reason == "error"  # type: ignore[union-attr]
    retry.start()
    assert await retry.retry(last)  # type: ignore[arg-type]
    await retry.finish(True)
    assert [m.role for m in agent.state.messages] == ["user", "assistant"]
    assert agent.state.messages[-1].text == "ok"  # type: ignore[union-attr]
    assert seen == ["auto_retry_start", "auto_retry_end"]
