"""Loop config: the documented keys and defaults, ralph's files, errors with file:line."""

from __future__ import annotations

from pathlib import Path

import pytest
from conformance import RALPH

from autocue.loop import LoopConfigError, config_from_dict, load_config

CONFORMANCE = RALPH
ROOT = Path(__file__).resolve().parents[2]


def test_defaults() -> None:
    el = config_from_dict({}).event_loop
    assert (el.completion_promise, el.max_iterations, el.max_consecutive_failures, el.starting_event) == (
        "LOOP_COMPLETE", 100, 5, "task.start")
    assert el.required_events == [] and config_from_dict({}).backend.type == "mock"


def test_full_hat_config(tmp_path: Path) -> None:
    p = tmp_path / "c.yml"
    p.write_text(
        "event_loop:\n  prompt: hi\n  max_iterations: 3\n  required_events: [a.b]\n"
        "hats:\n  builder:\n    name: Builder\n    description: d\n    triggers: [build.*]\n"
        "    publishes: [build.done]\n    instructions: do it\n    default_publishes: build.done\n"
        "    max_activations: 2\n    backend: {command: echo, args: [x], prompt_mode: arg}\n"
    )
    cfg = load_config(p)
    h = cfg.hats["builder"]
    assert (h.name, h.triggers, h.publishes, h.default_publishes, h.max_activations) == (
        "Builder", ["build.*"], ["build.done"], "build.done", 2)
    assert h.backend is not None and h.backend.type == "command" and h.backend.options["prompt_mode"] == "arg"
    assert cfg.event_loop.required_events == ["a.b"] and cfg.warnings == []


def test_ralph_files_load_with_warnings_not_errors() -> None:
    cfg = load_config(CONFORMANCE / "ralph.yml")
    assert sorted(cfg.hats) == ["builder", "finalizer", "planner", "reviewer"]
    assert cfg.event_loop.starting_event == "work.start" and cfg.event_loop.max_iterations == 150
    assert cfg.backend.type == "command" and cfg.backend.options["command"] == "pi"
    assert any("backpressure" in w for w in cfg.warnings)
    preset = load_config(CONFORMANCE / "presets_minimal_builder.yml")
    assert preset.hats["builder"].default_publishes == "build.done"
    assert any("idle_timeout_secs" in w for w in preset.warnings)
    stale = load_config(CONFORMANCE / "crates_ralph-core_tests_scenarios_multi_hat.yml")
    assert stale.warnings  # 'config'/'mock_responses' sections are reported


def test_subscribes_to_is_read_as_triggers() -> None:
    cfg = config_from_dict({"hats": {"b": {"subscribes_to": ["build.task"]}}})
    assert cfg.hats["b"].triggers == ["build.task"] and "subscribes_to" in cfg.warnings[0]


@pytest.mark.parametrize(
    ("text", "line", "needle"),
    [
        ("event_loop:\n  max_iterations: lots\n", 2, "must be an integer"),
        ("hats:\n  a:\n    triggers: [x]\n    backend: nonsense\n", 4, "unknown backend"),
        ("backend:\n  type: command\n", 1, "needs 'command"),
        ("event_loop: [1, 2\n", 1, "invalid YAML"),
    ],
)
def test_errors_name_file_and_line(tmp_path: Path, text: str, line: int, needle: str) -> None:
    p = tmp_path / "bad.yml"
    p.write_text(text)
    with pytest.raises(LoopConfigError) as ei:
        load_config(p)
    assert f"{p}:{line}" in str(ei.value) or (needle == "invalid YAML" and str(p) in str(ei.value))
    assert needle in str(ei.value)


def test_example_config_loads() -> None:
    cfg = load_config(ROOT / "examples" / "loop" / "autocue.loop.yml")
    assert cfg.backend.type == "mock" and len(cfg.backend.options["responses"]) == 3 and cfg.warnings == []
