"""Every harbor scenario file loads (warnings listed) and compiles to the expected script."""

from __future__ import annotations

from pathlib import Path

import pytest
from scenario_paths import HARBOR, harbor_files

from autocue.scenario import LlmResponse, RunnerEvent, ToolUse, load_scenario
from autocue.script import ScriptedResponse, ScriptedToolCall

# file -> (name, warnings, replies per turn, checks per turn)
EXPECTED: dict[str, tuple[str, list[str], list[int], list[list[int]]]] = {
    "harbor__test_scenarios_simulation_smoke.yaml": ("simulation_smoke", [], [2], [[2]]),
    "harbor__test_scenarios_test_scenario.yaml": ("test_scenario", [], [1], [[]]),
    "harbor__test_scenarios_timing_test_scenario.yaml": ("timing_test_scenario", [], [2], [[]]),
    "harbor__tests_tools_mock-agent-acp_scenarios_acp_realistic_session.yaml": ("acp_realistic_session", [], [2], [[]]),
    "harbor__tests_tools_mock-agent_scenarios_claude_file_creation.yaml": ("claude_file_creation", [], [2], [[]]),
    "harbor__tests_tools_mock-agent_scenarios_realistic_development_scenario.yaml": (
        "realistic_development_scenario", [], [4, 7], [[], []]),
}


def test_expectations_cover_every_file() -> None:
    assert sorted(EXPECTED) == [p.name for p in harbor_files()]


@pytest.mark.parametrize("path", harbor_files(), ids=lambda p: p.name)
def test_harbor_file_loads_and_compiles(path: Path) -> None:
    name, warnings, replies, checks = EXPECTED[path.name]
    sc = load_scenario(path)
    assert sc.name == name
    assert [str(w) for w in sc.warnings] == warnings
    script = sc.compile()
    assert [len(t.steps) for t in script.turns] == replies
    assert [[c.before_step for c in t.checks] for t in script.turns] == checks
    for step in script.all_steps():
        assert isinstance(step, ScriptedResponse) and step.source is not None
        assert step.source.startswith(f"{path}:")


def calls(path: str) -> list[tuple[str, dict[str, object], str | None]]:
    script = load_scenario(HARBOR / path).compile()
    return [
        (b.name, b.arguments, b.id)  # type: ignore[misc]
        for s in script.all_steps() if isinstance(s, ScriptedResponse)
        for b in s.content if isinstance(b, ScriptedToolCall)
    ]


def test_realistic_development_calls_and_turns() -> None:
    sc = load_scenario(HARBOR / "harbor__tests_tools_mock-agent_scenarios_realistic_development_scenario.yaml")
    script = sc.compile()
    assert [t.prompt for t in script.turns] == [
        "Add proper division by zero handling to the calculator.py file",
        "Please raise a ValueError with a clear message when dividing by zero.",
    ]
    got = [(name, sorted(args)) for name, args, _ in calls(sc.file.rsplit("/", 1)[1])]
    assert got == [
        ("readFile", ["path"]), ("runCmd", ["cmd", "cwd"]), ("runCmd", ["cmd", "cwd"]),
        ("runCmd", ["cmd", "cwd"]), ("runCmd", ["cmd", "cwd"]), ("readFile", ["path"]), ("runCmd", ["cmd", "cwd"]),
        ("writeFile", ["content", "path"]), ("runCmd", ["cmd", "cwd"]),
    ]
    first = script.turns[0].steps[0]
    assert isinstance(first, ScriptedResponse)
    assert [type(b).__name__ for b in first.content] == [
        "ThinkingContent", "ThinkingContent", "TextContent", "ScriptedToolCall"]
    assert first.chunk_delays_ms == [2000, 1500, 500, 0]


def test_acp_session_keeps_tool_call_id_rich_text_and_runner_events() -> None:
    path = "harbor__tests_tools_mock-agent-acp_scenarios_acp_realistic_session.yaml"
    assert calls(path) == [("runCmd", {"cmd": "npm test payments -- --runInBand", "cwd": "/workspace/payments"},
                            "tests-run")]
    sc = load_scenario(HARBOR / path)
    assert [e.kind for e in sc.timeline if isinstance(e, RunnerEvent)] == ["agentPlan", "sessionStart"]
    tool = next(p for e in sc.timeline if isinstance(e, LlmResponse) for p in e.parts if isinstance(p, ToolUse))
    assert tool.tool_execution is not None and len(tool.tool_execution.events) == 9
    assert tool.tool_execution.events[-1].exit_code == 0
    script = sc.compile()
    assert script.turns[0].prompt == "Please stabilize the flaky payments refund tests and summarize what changed."
    last = script.turns[0].steps[-1]
    assert isinstance(last, ScriptedResponse)
    assert last.content[0].text.startswith("Wrapped refund client in jittered backoff")  # type: ignore[union-attr]


def test_codex_style_tool_names_are_normalized() -> None:
    assert calls("harbor__test_scenarios_test_scenario.yaml") == [
        ("runCmd", {"cmd": "echo 'Hello from scenario'", "cwd": "."}, None)]
    assert calls("harbor__test_scenarios_simulation_smoke.yaml") == [
        ("runCmd", {"cmd": "pnpm test workspace::analytics::test_exports"}, None)]
    assert calls("harbor__tests_tools_mock-agent_scenarios_claude_file_creation.yaml") == [
        ("writeFile", {"path": "test.txt", "content": "Test content for claude_file_creation"}, None)]
