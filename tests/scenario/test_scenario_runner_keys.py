"""``agent:`` and ``masks:`` are read by the scenario loader (``Scenario.runner``), once, with positions."""

from __future__ import annotations

from pathlib import Path

import pytest

from autocue.runner.selection import load_path
from autocue.scenario import ScenarioError, load_scenario_text

TL = "timeline:\n  - llmResponse:\n      - assistant: [[0, hi]]\n"


def test_agent_and_masks_load_into_the_scenario_without_warnings() -> None:
    masks = "masks:\n  - '\\d+'\n  - {pattern: 'a(b)', replace: '<\\1>'}\n"
    sc = load_scenario_text(f"name: x\nagent: ' mock '\n{masks}{TL}", "r.yaml")
    assert sc.runner.agent == "mock"
    assert [m.apply("ab 12") for m in sc.runner.masks] == ["ab ***", "<b> 12"]
    assert [m.pos.line for m in sc.runner.masks if m.pos] == [4, 5]
    assert sc.warnings == []
    assert load_scenario_text(f"name: y\n{TL}").runner.masks == []


@pytest.mark.parametrize(("text", "error"), [
    ("agent: [1]\n", r"^r\.yaml:2:8: agent: agent: expected a launch profile name"),
    ("masks: '\\d'\n", r"^r\.yaml:2:8: masks: masks: expected a list of regexes"),
    ("masks:\n  - '('\n", r"^r\.yaml:3:5: masks\[0\]: mask '\(' is not a valid regex"),
    ("masks:\n  - {pattern: x, replace: 3}\n", r"^r\.yaml:3:5: masks\[0\]: replace: expected a string"),
    ("masks:\n  - 3\n", r"^r\.yaml:3:5: masks\[0\]: a mask is a regex string"),
])
def test_a_bad_runner_key_is_a_positioned_error(text: str, error: str) -> None:
    with pytest.raises(ScenarioError, match=error):
        load_scenario_text(f"name: x\n{text}{TL}", "r.yaml")


def test_the_runner_selection_takes_them_from_the_loaded_scenario(tmp_path: Path) -> None:
    f = tmp_path / "two.yaml"
    f.write_text(f"name: a\nagent: mock\n{TL}---\nname: b\n{TL}")
    a, b = load_path(f)
    assert (a.extras.agent, b.extras.agent) == ("mock", None)
    assert a.extras is a.scenario.runner
