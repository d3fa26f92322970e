"""The scenario → event mapping of simulation mode (seed 004 mode 3): types, payloads and times."""

from __future__ import annotations

from pathlib import Path

import pytest
from conformance import harbor_scenarios
from hypothesis import given
from hypothesis import strategies as st

from autocue.scenario import load_scenario, load_scenario_text, load_scenarios
from autocue.simulate import EVENT_SCHEMA_VERSION, EventSchemaError, scenario_events, validate_event

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "simulate" / "npm_test.yaml"


def brief(events: list[dict]) -> list[tuple]:
    keep = ("text", "toolName", "stream", "content", "message", "exitCode", "status", "result", "path", "kind",
            "label", "linesAdded", "linesRemoved")
    return [(e["t"], e["type"], *(e[k] for k in keep if k in e)) for e in events]


def test_seed_example_maps_to_timed_events() -> None:
    events = scenario_events(load_scenario(FIXTURE))
    assert [e["id"] for e in events] == list(range(1, len(events) + 1))
    assert all(e["v"] == EVENT_SCHEMA_VERSION for e in events)
    assert brief(events) == [
        (0, "session.start"),
        (0, "user", "Run the tests"),
        (300, "thinking", "The user wants me to run tests"),
        (400, "assistant", "Running the test suite to check for any issues."),
        (400, "tool.start", "runCmd"),
        (500, "tool.output", "stdout", "> npm test\n"),
        (900, "tool.output", "stderr", "warn: slow test\n"),
        (1200, "tool.progress", "PASS src/App.test.js"),
        (1350, "tool.completion", 0),
        (1350, "tool.end", "runCmd", "ok", "Test suite passed"),
        # the user's input starts where it is written (after the tool) and runs concurrently
        (2050, "user", "q"),
        # advanceMs 1000 from 1350 → 2350; the grep tool streams its progress, then its result
        (2350, "tool.start", "grep"),
        (2550, "tool.progress", "Searching..."),
        (2550, "tool.end", "grep", "ok", "main.py:1:def main():"),
        (2550, "file.change", "main.py", 3, 1),
        (2550, "marker", "screenshot", "after_edits"),
        (2550, "marker", "assert", "assert fs.exists ['main.py']"),
        (2550, "status", "completed"),
        (2550, "status", "merged"),
        (2550, "session.end", "merged"),
    ]
    start = events[4]
    assert start["toolCallId"] == "call_npm" and start["args"] == {"cmd": "npm test", "cwd": "."}
    assert {e["toolCallId"] for e in events[4:10]} == {"call_npm"}


def test_advance_ms_covers_concurrent_user_events() -> None:
    s = load_scenario_text("""
name: late_user
timeline:
  - userInputs: [[100, a], [900, b]]
  - advanceMs: 50
  - assistant: [[10, after]]
""")
    assert brief(scenario_events(s))[1:] == [(100, "user", "a"), (1000, "user", "b"),
                                              (1010, "assistant", "after"), (1010, "session.end", "ended")]


def test_errors_are_flagged_for_the_viewer() -> None:
    s = load_scenario_text("""
name: failing
timeline:
  - agentToolUse:
      toolName: runCmd
      args: {cmd: "false"}
      status: error
      result: boom
      toolExecution: {startTimeMs: 5, events: [{type: completion, timeMs: 1, exitCode: 2}]}
""")
    events = scenario_events(s)
    flagged = [(e["type"], e["t"]) for e in events if e.get("error")]
    assert flagged == [("tool.completion", 6), ("tool.end", 6)]


@pytest.mark.parametrize("path", harbor_scenarios(), ids=lambda p: p.stem)
def test_real_scenarios_validate_and_agent_events_never_overlap(path: Path) -> None:
    for scenario in load_scenarios(path):
        events = scenario_events(scenario)
        for e in events:
            validate_event(e)
        times = [e["t"] for e in events]
        assert times == sorted(times)
        assert events[-1]["type"] == "session.end" and events[0]["type"] == "session.start"
        open_call: str | None = None
        for e in events:
            if e["type"] == "tool.start":
                assert open_call is None, f"{path.name}: tool {e['toolCallId']} starts inside {open_call}"
                open_call = e["toolCallId"]
            elif e["type"] == "tool.end" and e["toolCallId"] == open_call:
                open_call = None


def test_schema_rejects_bad_events_with_a_clear_message() -> None:
    with pytest.raises(EventSchemaError, match=r"event 3 \('tool.start'\).*'toolName' is a required property"):
        validate_event({"v": 1, "id": 3, "t": 0, "type": "tool.start", "toolCallId": "c", "args": {}})
    with pytest.raises(EventSchemaError, match="is not one of"):
        validate_event({"v": 1, "id": 1, "t": 0, "type": "nope"})


@given(st.lists(st.tuples(st.sampled_from(["think", "assistant", "user", "advance"]),
                          st.integers(min_value=0, max_value=5000)), max_size=12))
def test_times_are_monotonic_and_agent_time_adds_up(steps: list[tuple[str, int]]) -> None:
    lines = ["name: prop", "timeline:"]
    agent = 0
    for kind, ms in steps:
        if kind == "advance":
            lines.append(f"  - advanceMs: {ms}")
        elif kind == "user":
            lines.append(f"  - userInputs: [[{ms}, u]]")
        else:
            lines.append(f"  - {kind}: [[{ms}, x]]")
            agent += ms
    events = scenario_events(load_scenario_text("\n".join(lines) + "\n"))
    times = [e["t"] for e in events]
    assert times == sorted(times)
    agent_times = [e["t"] for e in events if e["type"] in ("thinking", "assistant")]
    if not any(k in ("advance", "user") for k, _ in steps):
        assert (agent_times[-1] if agent_times else 0) == agent
    for e in events:
        validate_event(e)
