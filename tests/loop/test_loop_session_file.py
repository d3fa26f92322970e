"""Session recorder and the tolerant parser: every real ralph fixture loads; record → parse → assert."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from conformance import RALPH

from autocue.loop import (
    Event,
    EventLoop,
    MockBackend,
    SessionParseError,
    SessionRecorder,
    config_from_dict,
    decode_terminal,
    parse_session,
    read_session,
)

CONFORMANCE = RALPH
FIXTURES = sorted(CONFORMANCE.glob("*.jsonl"))


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_every_real_fixture_loads(path: Path, tmp_path: Path) -> None:
    recs = read_session(path)
    lines = [ln for ln in path.read_text().splitlines() if ln.strip()]
    assert len(recs) == len(lines) and all(r.event for r in recs)
    # record → parse → assert: writing the parsed records back gives the same records
    rec = SessionRecorder(tmp_path / "again.jsonl")
    for r in recs:
        rec.record(r.event, r.data)
    rec.close()
    again = read_session(tmp_path / "again.jsonl")
    assert [(r.event, r.data) for r in again] == [(r.event, r.data) for r in recs]


def test_fixture_variants_are_normalized() -> None:
    if not FIXTURES:
        pytest.skip("conformance files not present")
    er7 = read_session(CONFORMANCE / "cassettes_event-routing_er-007-events-dont-route-to-source.jsonl")
    pub = [r for r in er7 if r.event == "bus.publish"]
    assert pub[0].source == "planner"  # from source_hat
    assert pub[1].payload_text == '{"tests":"pass"}' and pub[1].source is None  # object payload, no source
    basic = read_session(CONFORMANCE / "crates_ralph-core_tests_fixtures_basic_session.jsonl")
    assert basic[0].ts == 1000 and '<event topic="LOOP_COMPLETE">done</event>' in decode_terminal(basic)
    completion = read_session(CONFORMANCE / "cassettes_e2e_completion.jsonl")
    assert decode_terminal(completion).endswith("LOOP_COMPLETE\n")
    assert completion[-1].data["reason"] == "CompletionPromise"


def test_double_wrapped_ux_records_are_unwrapped() -> None:
    line = (
        '{"ts":1,"event":"ux.terminal.write",'
        '"data":{"event":"ux.terminal.write","data":{"bytes":"SGk=","stdout":true,"offset_ms":0}}}'
    )
    (r,) = parse_session(line)
    assert r.data == {"bytes": "SGk=", "stdout": True, "offset_ms": 0}
    assert decode_terminal([r]) == "Hi"


def test_unknown_types_and_missing_fields_are_tolerated() -> None:
    recs = parse_session('{"event":"x.custom"}\n\n{"ts":2,"event":"bus.publish","data":{"topic":"t"}}\n')
    assert [(r.ts, r.event, r.line) for r in recs] == [(None, "x.custom", 1), (2, "bus.publish", 3)]
    assert recs[1].payload_text == "" and recs[1].source is None


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        ('{"ts":1,"event":"a","data":{}}\n{"ts":2,"event":\n', 2, "invalid JSON"),
        ('{"ts":1,"event":"a"}\n[1,2]\n', 2, "expected a JSON object"),
        ('\n\n{"ts":1}\n', 3, "no \"event\""),
    ],
)
def test_corrupted_lines_name_their_line(text: str, line: int, problem: str, tmp_path: Path) -> None:
    p = tmp_path / "session.jsonl"
    p.write_text(text)
    with pytest.raises(SessionParseError) as ei:
        read_session(p)
    assert ei.value.line == line and problem in str(ei.value) and f"{p}:{line}" in str(ei.value)


def test_recorder_writes_the_documented_records(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    with SessionRecorder(path) as rec:
        rec.loop_start(prompt_file=None, max_iterations=3)
        rec.publish(Event("task.start", "go", "loop"))
        rec.terminal_write(b"\x1b[1mhi\x1b[0m", True)
        rec.iteration(1, "planner", duration_ms=5, trigger="task.start", exit_code=0)
        rec.termination("MaxIterations", 1, 0.25)
    recs = read_session(path)
    assert [r.event for r in recs] == [
        "_meta.loop_start", "bus.publish", "ux.terminal.write", "_meta.iteration", "_meta.termination",
    ]
    assert recs[0].data["ux_mode"] == "cli" and recs[0].data["max_iterations"] == 3
    assert recs[1].data == {"topic": "task.start", "payload": "go", "source": "loop", "target": None}
    assert base64.b64decode(recs[2].data["bytes"]) == b"\x1b[1mhi\x1b[0m" and recs[2].data["stdout"] is True
    assert isinstance(recs[2].data["offset_ms"], int)
    assert {"n": 1, "hat": "planner"}.items() <= recs[3].data.items() and "elapsed_ms" in recs[3].data
    assert recs[4].data == {"reason": "MaxIterations", "iterations": 1, "elapsed_secs": 0.25, "ux_writes": 1}
    assert all(isinstance(r.ts, int) and r.ts > 1_600_000_000_000 for r in recs)


def test_loop_run_round_trips_through_the_parser(tmp_path: Path) -> None:
    cfg = config_from_dict({"hats": {"planner": {"triggers": ["task.start"]}, "builder": {"triggers": ["build.*"]}}})
    backend = MockBackend([
        {"hat": "planner", "output": 'plan\n<event topic="build.task">step 1</event>'},
        {"hat": "builder", "output": '<event topic="build.done">tests: pass</event>\nLOOP_COMPLETE'},
    ])
    result = EventLoop(cfg, prompt="task", workspace=tmp_path, session_path=tmp_path / "session.jsonl",
                       backend=backend).run_sync()
    recs = read_session(tmp_path / "session.jsonl")
    assert len(recs) == result.records_count
    pubs = [(r.topic, r.source) for r in recs if r.event == "bus.publish"]
    assert pubs == [("task.start", "loop"), ("build.task", "planner"), ("build.done", "builder"),
                    ("loop.terminate", "loop")]
    its = [r.data for r in recs if r.event == "_meta.iteration"]
    assert [(d["n"], d["hat"], d["trigger"]) for d in its] == [
        (1, "planner", "task.start"), (2, "builder", "build.task")]
    assert decode_terminal(recs) == result.stdout
    term = recs[-1]
    assert term.event == "_meta.termination" and term.data["reason"] == "CompletionPromise"
    assert term.data["iterations"] == 2 and term.data["ux_writes"] == 2
