"""Scenarios played in-process through a TestSession, with their assert steps."""

from __future__ import annotations

from pathlib import Path

import pytest

from autocue.scenario import load_scenario_text
from autocue.testing import run_scenario
from autocue.testing.scenario_runner import ScenarioAssertionError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "scenarios"


def test_tool_use_scenario_runs_real_tools_and_passes_its_asserts() -> None:
    run = run_scenario(EXAMPLES / "tool_use.yaml")
    assert run.passed and [(a.turn, a.before_step) for a in run.assertions] == [(1, 2), (1, 3)]
    assert run.events.tool_sequence() == ["read", "write", "bash"]
    bash = run.events.tool_results_for("bash")[0]
    assert bash.text.strip() == "Hello, World!" and bash.mocked is False
    assert run.session.playbook.remaining == 0


@pytest.mark.parametrize("name", ["thinking_text.yaml", "rate_limit_retry.yaml"])
def test_other_examples_play_in_process(name: str) -> None:
    run = run_scenario(EXAMPLES / name)
    assert run.passed
    assert run.session.playbook.consumed >= 1


def test_failed_asserts_are_all_reported(tmp_path: Path) -> None:
    scenario = load_scenario_text(
        """
name: failing_asserts
initialPrompt: "Write a file"
timeline:
  - llmResponse:
      - writeFile: {path: out.txt, content: "hi\\n"}
  - assert:
      fs:
        exists: [out.txt, missing.txt]
        notExists: [out.txt]
  - llmResponse:
      - assistant: [[0, "done"]]
""",
        "failing.yaml",
    )
    with pytest.raises(ScenarioAssertionError) as err:
        run_scenario(scenario, cwd=tmp_path)
    msg = str(err.value)
    assert "scenario failing_asserts: 1 of 1 assert step(s) failed" in msg
    assert "ok   fs.exists out.txt" in msg
    assert "FAIL fs.exists missing.txt" in msg
    assert "FAIL fs.notExists out.txt" in msg
    assert (tmp_path / "out.txt").read_text() == "hi\n"


@pytest.mark.slow
def test_scenario_run_cli(tmp_path: Path) -> None:
    import subprocess
    import sys

    bad = tmp_path / "bad.yaml"
    bad.write_text(
        'name: needs_a_file\ninitialPrompt: "go"\ntimeline:\n'
        "  - llmResponse:\n      - writeFile: {path: a.txt, content: x}\n"
        "  - assert:\n      fs:\n        exists: [nowhere.txt]\n"
        "  - llmResponse:\n      - assistant: [[0, \"bye\"]]\n"
    )
    ok = subprocess.run(
        [sys.executable, "-m", "autocue.cli.main", "scenario", "run", str(EXAMPLES)],
        capture_output=True, text=True, timeout=120,
    )
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "PASS tool_use_hello" in ok.stdout and ok.stdout.rstrip().endswith("3 passed, 0 failed")
    failing = subprocess.run(
        [sys.executable, "-m", "autocue.cli.main", "scenario", "run", str(bad)],
        capture_output=True, text=True, timeout=120,
    )
    assert failing.returncode == 1
    assert "FAIL needs_a_file: ScenarioAssertionError" in failing.stdout
    assert "FAIL fs.exists nowhere.txt" in failing.stdout


def test_scenario_run_of_a_folder_without_scenarios_fails(tmp_path: Path) -> None:
    import subprocess
    import sys

    r = subprocess.run(
        [sys.executable, "-m", "autocue.cli.main", "scenario", "run", str(tmp_path)],
        capture_output=True, text=True, timeout=120,
    )
    assert r.returncode == 1, r.stdout + r.stderr
    assert f"ERROR {tmp_path}: no scenario files (*.yaml, *.yml) here" in r.stdout
    assert r.stdout.rstrip().endswith("0 passed, 1 failed")
