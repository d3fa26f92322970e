"""AgentSession runtime: persistence round trip, lifecycle, retry, compaction, queues, navigation."""

from __future__ import annotations

import asyncio
import gc
import itertools
import json
import re
import weakref
from pathlib import Path
from typing import Any

import pytest
from session_helpers import call, echo, fail, make_session, record, say, settings

from autocue.llm.types import Usage
from autocue.script import ScriptedProvider, ScriptedResponse
from autocue.script.provider import scripted_model
from autocue.session import (
    AgentSession,
    AutoCompactionEndEvent,
    AutoCompactionStartEvent,
    AutoRetryEndEvent,
    AutoRetryStartEvent,
    CompactionError,
    SessionBusyError,
    SessionDisposedError,
    SessionManager,
)

# ---------------------------------------------------------------------------- session file round trip


async def test_new_session_starts_with_model_and_thinking_level_entries() -> None:
    s, _ = make_session([], thinking_level="low")
    entries = s.session_manager.get_entries()
    assert [e.type for e in entries] == ["model_change", "thinking_level_change"]
    assert (entries[0].provider, entries[0].model_id, entries[1].thinking_level) == ("autocue", "playbook", "low")


async def test_session_file_round_trip_through_agent_session(tmp_path: Path) -> None:
    sm = SessionManager.create(str(tmp_path), str(tmp_path / "sessions"))
    s, _ = make_session([call("echo", {"text": "hi"}), say("done")], session_manager=sm, cwd=tmp_path)
    path = s.session_file
    assert path is not None and not Path(path).exists()  # lazy: nothing before the first assistant reply
    await s.prompt("say hi")
    await s.dispose()
    lines = [json.loads(line) for line in Path(path).read_text().splitlines()]
    assert lines[0]["type"] == "session" and lines[0]["version"] == 3 and lines[0]["cwd"] == str(tmp_path)
    body = lines[1:]
    assert [e["type"] for e in body] == ["model_change", "thinking_level_change"] + ["message"] * 4
    assert [e["message"]["role"] for e in body[2:]] == ["user", "assistant", "toolResult", "assistant"]
    assert all(re.fullmatch(r"[0-9a-f]{8}", e["id"]) for e in body)
    assert body[0]["parentId"] is None and all(b["parentId"] == a["id"] for a, b in itertools.pairwise(body))
    assert body[4]["message"]["toolCallId"] == "call_1" and body[4]["message"]["toolName"] == "echo"

    reopened = SessionManager.open(path)
    s2, _p2 = make_session([say("again")], session_manager=reopened, cwd=tmp_path)
    assert [m.to_json() for m in s2.messages] == [m.to_json() for m in s.messages]
    assert len(reopened.get_entries()) == 6  # restoring appends no model/thinking entries
    await s2.prompt("once more")
    lines2 = Path(path).read_text().splitlines()
    assert len(lines2) == 9 and json.loads(lines2[-1])["message"]["content"][0]["text"] == "again"
    await s2.dispose()


async def test_restored_session_keeps_thinking_level(tmp_path: Path) -> None:
    sm = SessionManager.create(str(tmp_path), str(tmp_path))
    s, _ = make_session([say("x")], session_manager=sm, thinking_level="high")
    await s.prompt("go")
    s2, _ = make_session([], session_manager=SessionManager.open(s.session_file or ""))
    assert s2.thinking_level == "high"


# ---------------------------------------------------------------------------- lifecycle


async def test_dispose_fires_session_shutdown_once_and_blocks_further_use() -> None:
    shutdowns: list[str] = []
    s, _ = make_session([], extensions=[lambda api: api.on("session_shutdown", lambda e: shutdowns.append(e.type))])
    await s.dispose()
    await s.dispose()
    assert shutdowns == ["session_shutdown"] and s.is_disposed
    with pytest.raises(SessionDisposedError):
        await s.prompt("hi")


async def test_a_disposed_session_is_freed_without_the_cyclic_gc() -> None:
    def hooks(api: Any) -> None:
        api.on("tool_call", lambda e, ctx: None)
        api.on("tool_result", lambda e, ctx: None)
        api.on("context", lambda e, ctx: None)

    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()  # only reference counting may free it
    try:
        s, provider = make_session([call("echo", {"text": "hi"}), say("done")], extensions=[hooks])
        seen: list[str] = []
        s.subscribe(lambda ev: seen.append(ev.type))
        await s.prompt("go")
        await s.dispose()
        assert [m.role for m in s.messages] == ["user", "assistant", "toolResult", "assistant"]
        assert len(s.session_manager.get_entries()) == 6 and "tool_execution_end" in seen
        refs = [weakref.ref(o) for o in (s, s.agent, s.runner, s.session_manager)]
        del s, provider
        assert [r() for r in refs] == [None] * len(refs)
    finally:
        if was_enabled:
            gc.enable()


async def test_session_start_fires_once_on_first_prompt() -> None:
    starts: list[str] = []
    s, _ = make_session([say("a"), say("b")],
                        extensions=[lambda api: api.on("session_start", lambda e: starts.append(e.reason))])
    await s.prompt("1")
    await s.prompt("2")
    await s.bind_extensions()
    assert starts == ["startup"]


async def test_async_context_manager_binds_and_disposes() -> None:
    log: list[str] = []

    def ext(api: Any) -> None:
        api.on("session_start", lambda e: log.append("start"))
        api.on("session_shutdown", lambda e: log.append("shutdown"))

    s, _ = make_session([say("x")], extensions=[ext])
    async with s as session:
        assert log == ["start"]
        await session.prompt("hi")
    assert log == ["start", "shutdown"]


async def test_prompt_while_running_needs_streaming_behavior() -> None:
    outcome: dict[str, Any] = {}
    holder: dict[str, AgentSession] = {}

    def ext(api: Any) -> None:
        @api.on("tool_call")
        async def h(event: Any) -> None:
            s = holder["s"]
            try:
                await s.prompt("now!")
            except SessionBusyError as e:
                outcome["err"] = str(e)
            await s.prompt("steered", streaming_behavior="steer")
            await s.prompt("later", streaming_behavior="follow_up")

    s, _ = make_session([call("echo", {"text": "x"}), say("saw steer"), say("saw follow-up")], extensions=[ext])
    holder["s"] = s
    await s.prompt("go")
    assert "streaming_behavior" in outcome["err"]
    roles = [(m.role, getattr(m, "text", "")) for m in s.messages]
    assert roles == [("user", "go"), ("assistant", ""), ("toolResult", "echo: x"), ("user", "steered"),
                     ("assistant", "saw steer"), ("user", "later"), ("assistant", "saw follow-up")]


async def test_steer_and_follow_up_queue_for_the_next_run() -> None:
    s, _ = make_session([say("one"), say("two")])
    await s.follow_up("queued")
    assert s.has_pending_messages()
    await s.prompt("first")
    assert [m.text for m in s.messages if m.role == "user"] == ["first", "queued"]


# ---------------------------------------------------------------------------- retry


def retry_events(events: list[Any]) -> list[Any]:
    return [e for e in events if isinstance(e, (AutoRetryStartEvent, AutoRetryEndEvent))]


async def test_retry_after_overloaded_error_then_success(tmp_path: Path) -> None:
    sm = SessionManager.create(str(tmp_path), str(tmp_path))
    s, p = make_session([fail("overloaded", "servers busy"), say("finally")], session_manager=sm)
    events = record(s)
    await s.prompt("hi")
    rs = retry_events(events)
    assert rs == [AutoRetryStartEvent(1, 3, 0, "529 overloaded_error: servers busy"), AutoRetryEndEvent(True, 1)]
    assert [m.role for m in s.messages] == ["user", "assistant"] and s.get_last_assistant_text() == "finally"
    # the failed reply stays in the session file
    stops = [json.loads(x)["message"].get("stopReason") for x in Path(s.session_file or "").read_text().splitlines()
             if '"message"' in x and '"assistant"' in x]
    assert stops == ["error", "stop"]
    # events in order: agent_end of the failed run, then retry start, then the new run
    order = [e.type for e in events if e.type in ("agent_end", "auto_retry_start", "auto_retry_end", "agent_start")]
    assert order == ["agent_start", "agent_end", "auto_retry_start", "agent_start", "agent_end", "auto_retry_end"]
    assert p.remaining == 0


async def test_retry_gives_up_after_max_retries() -> None:
    s, _ = make_session([fail("rate_limit", "slow down")] * 3, settings_=settings(max_retries=2))
    events = record(s)
    await s.prompt("hi")
    rs = retry_events(events)
    assert [type(e).__name__ for e in rs] == ["AutoRetryStartEvent", "AutoRetryStartEvent", "AutoRetryEndEvent"]
    assert [e.attempt for e in rs] == [1, 2, 2]
    assert rs[-1].success is False and rs[-1].final_error == "429 rate_limit_error: slow down"
    assert s.messages[-1].stop_reason == "error"


async def test_exponential_backoff_and_retry_after() -> None:
    s, _ = make_session([fail("overloaded"), fail("overloaded", retry_after=0.004), fail("overloaded"), say("ok")],
                        settings_=settings(base_delay_ms=2, max_delay_ms=5, max_retries=5))
    events = record(s)
    await s.prompt("hi")
    starts = [e for e in events if isinstance(e, AutoRetryStartEvent)]
    assert [e.delay_ms for e in starts] == [2, 4, 5]  # 2 ms; the server's 4 ms; 8 ms capped at 5


async def test_retry_after_longer_than_max_delay_is_not_retried() -> None:
    s, p = make_session([fail("rate_limit", retry_after=120), say("unused")], settings_=settings(max_delay_ms=1000))
    events = record(s)
    await s.prompt("hi")
    assert retry_events(events) == [] and p.remaining == 1


@pytest.mark.parametrize("step,retried", [
    (fail("error", "invalid request: bad schema"), False),
    (fail("error", "boom", status=503), True),
    (fail("error", "Internal Server Error", status=500), True),
    (fail("error", "boom"), False),
    (fail("error", "fetch failed"), True),
    (fail("context_overflow", "too big"), False),
])
async def test_which_errors_are_retried(step: ScriptedResponse, retried: bool) -> None:
    s, _ = make_session([step, say("recovered")])
    events = record(s)
    await s.prompt("hi")
    assert bool(retry_events(events)) is retried


async def test_retry_disabled() -> None:
    s, p = make_session([fail("overloaded"), say("unused")], settings_=settings(retry=False))
    await s.prompt("hi")
    assert p.remaining == 1 and s.messages[-1].stop_reason == "error"


async def test_abort_cancels_the_retry_wait() -> None:
    s, p = make_session([fail("overloaded"), say("unused")], settings_=settings(base_delay_ms=60_000))
    events = record(s)
    task = asyncio.ensure_future(s.prompt("hi"))
    while not any(isinstance(e, AutoRetryStartEvent) for e in events):
        await asyncio.sleep(0)
    await s.abort()
    await task
    assert retry_events(events)[-1] == AutoRetryEndEvent(False, 1, "Retry cancelled")
    assert p.remaining == 1 and not s.is_streaming


# ---------------------------------------------------------------------------- compaction


def small_model() -> Any:
    return scripted_model(context_window=2000)


def compact_settings() -> Any:
    return settings(compaction=True, reserve_tokens=500, keep_recent_tokens=10)


async def test_threshold_compaction_with_a_scripted_summary() -> None:
    steps = [say("first answer " * 20, Usage.of(300, 20)), say("ok", Usage.of(1600, 10)),
             say("SUMMARY: user asked twice")]
    s, p = make_session(steps, model=small_model(), settings_=compact_settings())
    events = record(s)
    await s.prompt("question one " * 30)
    await s.prompt("question two " * 10)
    kinds = [e for e in events if isinstance(e, (AutoCompactionStartEvent, AutoCompactionEndEvent))]
    assert [type(e).__name__ for e in kinds] == ["AutoCompactionStartEvent", "AutoCompactionEndEvent"]
    assert kinds[0].reason == "threshold" and kinds[1].will_retry is False and kinds[1].error_message is None
    assert kinds[1].result.summary.startswith("SUMMARY: user asked twice")
    entry = s.session_manager.get_branch()[-1]
    assert entry.type == "compaction" and entry.summary.startswith("SUMMARY") and entry.tokens_before > 0
    kept = s.session_manager.get_entry(entry.first_kept_entry_id)
    assert kept is not None and kept.type == "message"
    assert s.messages[0].role == "compactionSummary"
    assert p.remaining == 0


async def test_overflow_compacts_then_continues() -> None:
    steps = [say("earlier answer " * 10), fail("context_overflow", "prompt is too long: 250000 tokens"),
             say("SUMMARY"), say("answer after compaction")]
    s, p = make_session(steps, model=small_model(), settings_=compact_settings())
    events = record(s)
    await s.prompt("first " * 40)
    await s.prompt("second")
    kinds = [e for e in events if isinstance(e, (AutoCompactionStartEvent, AutoCompactionEndEvent))]
    assert kinds[0].reason == "overflow" and kinds[1].will_retry is True
    assert s.get_last_assistant_text() == "answer after compaction"
    assert retry_events(events) == [] and p.remaining == 0


async def test_manual_compact_errors_and_success() -> None:
    s, _ = make_session([say("short"), say("ok"), say("MANUAL SUMMARY")],
                        settings_=settings(keep_recent_tokens=10))
    with pytest.raises(CompactionError, match="Nothing to compact"):
        await s.compact()
    await s.prompt("one")
    await s.prompt("two " * 30)
    result = await s.compact("focus on numbers")
    assert result.summary.startswith("MANUAL SUMMARY")
    with pytest.raises(CompactionError, match="Already compacted"):
        await s.compact()


async def test_session_before_compact_can_cancel_or_supply_the_summary() -> None:
    mode = {"v": "cancel"}
    seen: list[Any] = []

    def ext(api: Any) -> None:
        @api.on("session_before_compact")
        def h(event: Any) -> Any:
            seen.append(event.preparation.first_kept_entry_id)
            if mode["v"] == "cancel":
                return {"cancel": True}
            first = event.preparation.first_kept_entry_id
            return {"compaction": {"summary": "from extension", "first_kept_entry_id": first, "tokens_before": 42}}

        api.on("session_compact", lambda e: seen.append(("compact", e.from_extension, e.compaction_entry.summary)))

    s, p = make_session([say("a"), say("b")], extensions=[ext], settings_=settings(keep_recent_tokens=10))
    await s.prompt("one " * 30)
    await s.prompt("two " * 30)
    with pytest.raises(CompactionError, match="Compaction cancelled"):
        await s.compact()
    mode["v"] = "supply"
    result = await s.compact()
    assert result.summary == "from extension" and result.tokens_before == 42
    entry = s.session_manager.get_branch()[-1]
    assert entry.type == "compaction" and entry.from_hook is True
    assert seen[-1] == ("compact", True, "from extension") and p.calls == 2  # no summary call to the model


async def test_ctx_compact_runs_after_the_turn() -> None:
    done: list[str] = []
    tasks: list[asyncio.Task[Any]] = []

    def ext(api: Any) -> None:
        @api.on("agent_end")
        def h(event: Any, ctx: Any) -> None:
            if not tasks and len(event.messages) == 2 and event.messages[0].text.startswith("two"):
                tasks.append(ctx.compact(on_complete=lambda r: done.append(r.summary)))
                assert not ctx.is_idle()

    s, _ = make_session([say("x"), say("y"), say("BG SUMMARY")], extensions=[ext],
                        settings_=settings(keep_recent_tokens=10))
    await s.prompt("one")
    await s.prompt("two " * 30)
    done.append("first run done")
    await tasks[0]
    assert done[0] == "first run done" and done[1].startswith("BG SUMMARY")
    assert s.session_manager.get_branch()[-1].type == "compaction"
    assert s.messages[0].role == "compactionSummary"


# ---------------------------------------------------------------------------- tree navigation, queries


async def test_navigate_tree_branches_and_rebuilds_context() -> None:
    s, _ = make_session([say("one"), say("two"), say("alt")])
    await s.prompt("first")
    fork_point = s.session_manager.get_leaf_id()
    await s.prompt("second")
    assert len(s.messages) == 4
    assert await s.navigate_tree(fork_point, summary="tried a second question") is True
    assert [m.role for m in s.messages] == ["user", "assistant", "branchSummary"]
    await s.prompt("different second")
    assert s.get_last_assistant_text() == "alt"
    tree = s.session_manager.get_tree()
    assert tree  # both branches are kept in the tree
    assert any(e.type == "branch_summary" for e in s.session_manager.get_entries())


async def test_queries() -> None:
    s, _ = make_session([say("the answer", Usage.of(500, 20))], system_prompt="You are terse.")
    assert s.get_last_assistant_text() is None
    await s.prompt("q")
    assert s.get_last_assistant_text() == "the answer"
    usage = s.get_context_usage()
    assert usage.tokens == 520 and usage.percent == pytest.approx(520 / 128_000 * 100)
    assert s.system_prompt == "You are terse."
    assert [t.name for t in s.get_all_tools()] == ["echo", "boom"]


async def test_default_tools_come_from_autocue_tools_when_not_given(tmp_path: Path) -> None:
    s = AgentSession(provider=ScriptedProvider(), cwd=tmp_path)
    try:
        import autocue.tools as tools_mod

        has_builtins = hasattr(tools_mod, "create_builtin_tools")
    except ImportError:
        has_builtins = False
    names = [t.name for t in s.get_all_tools()]
    if has_builtins:
        assert names[:4] == ["read", "bash", "edit", "write"] and "grep" in names
        assert s.get_active_tool_names() == ["read", "bash", "edit", "write"]
        s.set_active_tools(["read", "grep"])
        assert [t.name for t in s.agent.state.tools] == ["read", "grep"]
    else:
        assert names == []
    assert echo.name not in names
