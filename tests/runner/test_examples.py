"""The example scenarios of examples/tui (autocue's own interactive mode) and examples/mock-agent pass
against their committed goldens (CI mode: a golden that is not committed fails, and nothing is
written into examples/)."""

from __future__ import annotations

from pathlib import Path

import pytest

from autocue.runner import run_scenarios

pytestmark = pytest.mark.slow
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize("folder", ["tui", "mock-agent"])
def test_examples_pass_against_their_goldens(folder: str, tmp_path: Path) -> None:
    report = run_scenarios(EXAMPLES / folder, out=tmp_path, jobs=2, ci=True)  # a missing golden fails
    assert report.scenarios and report.ok, [(s.name, s.failures) for s in report.scenarios]
    for s in report.scenarios:
        for label, path in s.screenshots.items():
            assert Path(path).is_relative_to(EXAMPLES / folder / "goldens"), (label, path)
            assert Path(path).suffix == ".golden"
    assert not list((EXAMPLES / folder).rglob("*.actual"))


@pytest.mark.parametrize("name", ["tui_typed_prompt.yaml", "tui_no_quit.yaml"])
def test_autocues_own_tui_passes_the_agent_tui_examples_without_a_quit_input(name: str, tmp_path: Path) -> None:
    """examples/agents TUI scenarios with no quit input (one types its prompt as the first userInputs)
    under ``--agent autocue``: the runner ends the TUI with its quit input, Ctrl-D."""
    [r] = run_scenarios(EXAMPLES / "agents" / name, agent="autocue", out=tmp_path, timeout=60).scenarios
    assert r.passed, (r.failures, r.last_screen)
    assert r.ended_by_runner == "quit input" and r.exit_code == 0
    assert r.duration_s < 20
