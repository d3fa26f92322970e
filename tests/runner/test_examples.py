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
