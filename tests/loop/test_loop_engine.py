"""The loop: routing, completion before limits, every termination reason and its exit code."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from autocue.loop import (
    EventLoop,
    LoopConfigError,
    MockBackend,
    TerminationReason,
    config_from_dict,
    read_session,
)

HATS: dict[str, Any] = {
    "planner": {"triggers": ["task.start"], "publishes": ["build.task"]},
    "builder": {"triggers": ["build.task"], "publishes": ["build.done"]},
}


def run(tmp_path: Path, responses: list[dict[str, Any]], *, hats: dict[str, Any] | None = None,
        prompt: str = "Do it", **loop: Any) -> Any:
    cfg = config_from_dict({"event_loop": loop, "hats": HATS if hats is None else hats})
    backend = MockBackend(responses)
    result = EventLoop(cfg, prompt=prompt, workspace=tmp_path, backend=backend).run_sync()
    return result, backend, read_session(tmp_path / ".autocue" / "session.jsonl")


def topics(records: list[Any]) -> list[str]:
    return [r.data["topic"] for r in records if r.event == "bus.publish"]


def test_routes_events_to_hats_and_completes(tmp_path: Path) -> None:
    result, backend, recs = run(tmp_path, [
        {"hat": "planner", "output": '<event topic="build.task">X</event>'},
        {"hat": "builder", "output": "built\nLOOP_COMPLETE"},
    ])
    assert result.reason is TerminationReason.COMPLETION_PROMISE and result.exit_code == 0
    assert result.hats_run == ["planner", "builder"]
    assert topics(recs) == ["task.start", "build.task", "loop.terminate"]
    pub = next(r for r in recs if r.event == "bus.publish" and r.data["topic"] == "build.task")
    assert pub.data["source"] == "planner" and pub.data["payload"] == "X"
    # the builder's prompt carries the event payload and the scratchpad location
    hat, prompt = backend.prompts[1]
    assert hat == "builder" and "### build.task (from planner)" in prompt and "X" in prompt
    assert ".agent/scratchpad.md" in prompt and "Do it" in prompt


def test_completion_on_the_last_allowed_iteration_is_completion_not_max_iterations(tmp_path: Path) -> None:
    result, _, recs = run(
        tmp_path,
        [{"output": '<event topic="build.task">X</event>'}, {"output": "LOOP_COMPLETE"}],
        max_iterations=2,
    )
    assert result.reason is TerminationReason.COMPLETION_PROMISE
    assert recs[-1].data == {"reason": "CompletionPromise", "iterations": 2,
                             "elapsed_secs": recs[-1].data["elapsed_secs"], "ux_writes": 2}


def test_promise_as_last_event_completes(tmp_path: Path) -> None:
    result, _, _ = run(tmp_path, [{"output": '<event topic="x.y">a</event><event topic="LOOP_COMPLETE">done</event>'}])
    assert result.reason is TerminationReason.COMPLETION_PROMISE


def test_promise_inside_payload_or_not_last_does_not_complete(tmp_path: Path) -> None:
    result, _, _ = run(
        tmp_path,
        [{"output": '<event topic="LOOP_COMPLETE">x</event><event topic="build.task">LOOP_COMPLETE</event>'}],
        max_iterations=1,
    )
    assert result.reason is TerminationReason.MAX_ITERATIONS and result.exit_code == 2


def test_max_iterations(tmp_path: Path) -> None:
    result, _, recs = run(tmp_path, [{"hat": "planner", "output": '<event topic="build.task">x</event>'}],
                          max_iterations=1)
    assert (result.reason, result.exit_code, result.iterations) == (TerminationReason.MAX_ITERATIONS, 2, 1)
    assert [r.event for r in recs].count("_meta.iteration") == 1


def test_consecutive_failures(tmp_path: Path) -> None:
    result, _, _ = run(tmp_path, [{"output": "boom", "exit_code": 3}] * 3, hats={},
                       max_consecutive_failures=3)
    assert (result.reason, result.exit_code, result.iterations) == (TerminationReason.CONSECUTIVE_FAILURES, 1, 3)
    assert "3 consecutive" in (result.error or "")


def test_a_success_resets_the_failure_count(tmp_path: Path) -> None:
    resp = [{"output": "x", "exit_code": 1}, {"output": "ok"}, {"output": "x", "exit_code": 1},
            {"output": "x", "exit_code": 1}]
    result, _, _ = run(tmp_path, resp, hats={}, max_consecutive_failures=2, max_iterations=10)
    assert result.reason is TerminationReason.CONSECUTIVE_FAILURES and result.iterations == 4


def test_loop_stale_same_topic_source_payload_three_times(tmp_path: Path) -> None:
    same = {"output": '<event topic="work.again">same</event>'}
    result, _, _ = run(tmp_path, [same] * 5, hats={}, max_iterations=10)
    assert (result.reason, result.exit_code, result.iterations) == (TerminationReason.LOOP_STALE, 1, 3)


def test_different_payloads_are_not_stale_and_task_complete_is_exempt(tmp_path: Path) -> None:
    resp = [{"output": f'<event topic="work.again">{i}</event>'} for i in range(4)]
    result, _, _ = run(tmp_path, resp, hats={}, max_iterations=4)
    assert result.reason is TerminationReason.MAX_ITERATIONS
    same = {"output": '<event topic="task.complete">same</event>'}
    result, _, _ = run(tmp_path, [same] * 4, hats={}, max_iterations=4)
    assert result.reason is TerminationReason.MAX_ITERATIONS


def test_validation_failure_after_three_malformed_tags(tmp_path: Path) -> None:
    bad = {"output": '<event topic="x">never closed'}
    result, _, recs = run(tmp_path, [bad] * 3, hats={}, max_iterations=10)
    assert (result.reason, result.exit_code) == (TerminationReason.VALIDATION_FAILURE, 1)
    assert sum(r.event == "_meta.event_dropped" for r in recs) == 3
    assert any("closing </event>" in w for w in result.warnings)


def test_validation_failure_from_malformed_events_file_lines(tmp_path: Path) -> None:
    (tmp_path / ".autocue").mkdir()
    cfg = config_from_dict({"event_loop": {"max_iterations": 5}})

    class Writer(MockBackend):
        async def run(self, invocation: Any) -> Any:
            with open(invocation.env["AUTOCUE_EVENTS_FILE"], "a") as fh:
                fh.write("{not json\n")
            return await super().run(invocation)

    result = EventLoop(cfg, prompt="p", workspace=tmp_path, backend=Writer([{"output": "x"}] * 5)).run_sync()
    assert result.reason is TerminationReason.VALIDATION_FAILURE and result.iterations == 3
    assert any("events.jsonl line 1" in w for w in result.warnings)


def test_events_file_lines_are_published(tmp_path: Path) -> None:
    class Writer(MockBackend):
        async def run(self, invocation: Any) -> Any:
            with open(invocation.env["AUTOCUE_EVENTS_FILE"], "a") as fh:
                fh.write('{"topic": "build.task", "payload": {"n": 1}}\n')
            return await super().run(invocation)

    cfg = config_from_dict({"event_loop": {"max_iterations": 1}, "hats": HATS})
    EventLoop(cfg, prompt="p", workspace=tmp_path, backend=Writer([{"output": ""}])).run_sync()
    recs = read_session(tmp_path / ".autocue" / "session.jsonl")
    pub = [r for r in recs if r.event == "bus.publish" and r.data["topic"] == "build.task"]
    assert pub and pub[0].data["payload"] == '{"n":1}' and pub[0].data["source"] == "planner"


def test_required_events_refuse_completion_until_seen(tmp_path: Path) -> None:
    result, _, recs = run(
        tmp_path,
        [{"output": "LOOP_COMPLETE"}, {"output": '<event topic="review.approved">ok</event>\nLOOP_COMPLETE'}],
        hats={}, required_events=["review.approved"],
    )
    assert result.reason is TerminationReason.COMPLETION_PROMISE and result.iterations == 2
    resume = [r for r in recs if r.event == "bus.publish" and r.data["topic"] == "task.resume"]
    assert len(resume) == 1 and "review.approved" in resume[0].data["payload"]


def test_default_publishes_when_a_hat_emits_nothing(tmp_path: Path) -> None:
    hats = {"builder": {"triggers": ["task.start"], "default_publishes": "build.done"},
            "reviewer": {"triggers": ["build.done"]}}
    result, _backend, recs = run(tmp_path, [{"hat": "builder", "output": "did it"},
                                           {"hat": "reviewer", "output": "LOOP_COMPLETE"}], hats=hats)
    assert result.reason is TerminationReason.COMPLETION_PROMISE
    assert topics(recs)[:2] == ["task.start", "build.done"]


def test_events_do_not_route_back_to_their_source(tmp_path: Path) -> None:
    hats = {"planner": {"triggers": ["task.start", "build.*"]}, "builder": {"triggers": ["build.task"]}}
    result, _backend, _ = run(
        tmp_path,
        [{"hat": "planner", "output": '<event topic="build.task">x</event>'},
         {"hat": "builder", "output": '<event topic="build.done">y</event>'},
         {"hat": "planner", "output": "LOOP_COMPLETE"}],
        hats=hats,
    )
    assert result.hats_run == ["planner", "builder", "planner"]


def test_target_routes_only_to_that_hat_and_unknown_target_is_reported(tmp_path: Path) -> None:
    hats = {"a": {"triggers": ["task.start"]}, "b": {"triggers": ["other"]}, "c": {"triggers": ["x.y"]}}
    result, _, recs = run(
        tmp_path,
        [{"hat": "a", "output": '<event topic="x.y" target="b">hi</event><event topic="z" target="nope">q</event>'},
         {"hat": "b", "output": "LOOP_COMPLETE"}],
        hats=hats,
    )
    assert result.hats_run == ["a", "b"]
    dropped = [r for r in recs if r.event == "_meta.event_dropped"]
    assert dropped and "nope" in dropped[0].data["reason"]


def test_orphan_events_go_to_the_coordinator(tmp_path: Path) -> None:
    result, _, _ = run(
        tmp_path,
        [{"hat": "planner", "output": '<event topic="nobody.listens">x</event>'},
         {"hat": "default", "trigger_pattern": "nobody\\.listens", "output": "LOOP_COMPLETE"}],
    )
    assert result.hats_run == ["planner", "default"] and result.exit_code == 0


def test_max_activations_publishes_exhausted(tmp_path: Path) -> None:
    hats = {"a": {"triggers": ["task.start", "b.done"], "max_activations": 1}, "b": {"triggers": ["again"]}}
    result, _, recs = run(
        tmp_path,
        [{"hat": "a", "output": '<event topic="again">1</event>'},
         {"hat": "b", "output": '<event topic="b.done">2</event>'},
         {"hat": "default", "trigger_pattern": "a\\.exhausted", "output": "LOOP_COMPLETE"}],
        hats=hats,
    )
    assert result.hats_run == ["a", "b", "default"] and result.exit_code == 0
    assert topics(recs)[:4] == ["task.start", "again", "b.done", "a.exhausted"]


def test_mock_exhaustion_is_fatal_with_consumed_count(tmp_path: Path) -> None:
    result, _backend, recs = run(tmp_path, [{"hat": "planner", "output": '<event topic="build.task">x</event>'}])
    assert result.reason is TerminationReason.VALIDATION_FAILURE and result.exit_code == 1
    assert "exhausted" in (result.error or "") and "1 response(s)" in (result.error or "")
    assert result.backend_stats["mock_responses_consumed"] == 1
    assert recs[-1].event == "_meta.termination"


def test_unconsumed_responses_are_reported(tmp_path: Path) -> None:
    result, _, _ = run(tmp_path, [{"output": "LOOP_COMPLETE"}, {"hat": "builder", "output": "never"}], hats={})
    assert result.backend_stats["mock_responses_remaining"] == 1
    assert result.backend_stats["mock_responses_unconsumed"][0]["output"] == "never"


def test_max_runtime_cuts_a_slow_backend_and_keeps_the_partial_session(tmp_path: Path) -> None:
    result, _, recs = run(tmp_path, [{"output": "first"}, {"output": "slow", "delay_ms": 5000}], hats={},
                          max_runtime_seconds=0.3)
    assert (result.reason, result.exit_code) == (TerminationReason.MAX_RUNTIME, 2)
    assert result.iterations == 2
    assert "first" in result.stdout and "slow" not in result.stdout
    assert next(r.event for r in recs) == "_meta.loop_start" and recs[-1].data["reason"] == "MaxRuntime"


def test_interrupt_stops_with_130(tmp_path: Path) -> None:
    cfg = config_from_dict({})
    loop = EventLoop(cfg, prompt="p", workspace=tmp_path, backend=MockBackend([{"output": "x", "delay_ms": 5000}]))

    async def go() -> Any:
        t = asyncio.ensure_future(loop.run())
        await asyncio.sleep(0.05)
        loop.interrupt()
        return await t

    result = asyncio.run(go())
    assert (result.reason, result.exit_code) == (TerminationReason.INTERRUPTED, 130)


def test_workspace_state_scratchpad_and_run_dir(tmp_path: Path) -> None:
    result, _, _ = run(tmp_path, [{"output": "LOOP_COMPLETE", "files": {".agent/scratchpad.md": "## Completed"}}],
                       hats={})
    assert (tmp_path / ".agent" / "scratchpad.md").read_text() == "## Completed"
    assert (tmp_path / ".autocue" / "session.jsonl").is_file() and (tmp_path / ".autocue" / "events.jsonl").exists()
    assert result.session_file == str(tmp_path / ".autocue" / "session.jsonl")


def test_prompt_from_prompt_file_and_missing_prompt_error(tmp_path: Path) -> None:
    (tmp_path / "PROMPT.md").write_text("from the file")
    b = MockBackend([{"trigger_pattern": "from the file", "output": "LOOP_COMPLETE"}])
    assert EventLoop(config_from_dict({}), workspace=tmp_path, backend=b).run_sync().exit_code == 0
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(LoopConfigError, match="no prompt"):
        EventLoop(config_from_dict({}, base_dir=empty), workspace=empty)
