"""A scenario run in a sandbox: its report carries the egress the program tried, and ``expect: {egress: none}``
fails the scenario on any. The program is the egress probe (tests/fixtures/egress_probe.py) as ``--cmd``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from sandbox_helpers import PROBE, bwrap_or_skip

from autocue.runner import run_scenarios
from autocue.scenario import ScenarioError, load_scenario

SCENARIO = """\
name: probe-{name}
timeline:
  - assert:
      text: {{contains: ["dns:example.com"]}}
expect: {expect}
"""


def _run(tmp_path: Path, name: str, expect: str, sandbox: str) -> dict[str, object]:
    path = tmp_path / f"{name}.yaml"
    path.write_text(SCENARIO.format(name=name, expect=expect), encoding="utf-8")
    report = run_scenarios(path, cmd=f"{sys.executable} {PROBE}", sandbox=sandbox, out=tmp_path / "out")
    return report.to_json()["scenarios"][0]  # type: ignore[no-any-return]


def test_expect_egress_none_fails_the_scenario_naming_each_destination(tmp_path: Path) -> None:
    bwrap_or_skip()
    result = _run(tmp_path, "closed", "{exitCode: 0, egress: none}", "bwrap")
    assert not result["passed"]
    failures = result["failures"]
    assert isinstance(failures, list) and [f["kind"] for f in failures] == ["egress"]
    message = failures[0]["message"]
    assert "1.1.1.1:443 (1x)" in message and "10.1.2.3:80 (1x)" in message and "dns:example.com" in message
    assert failures[0]["position"].endswith("closed.yaml:5:9")
    assert result["sandbox"] == "bwrap"


def test_without_the_expectation_the_run_passes_and_reports_the_egress(tmp_path: Path) -> None:
    bwrap_or_skip()
    result = _run(tmp_path, "open", "{exitCode: 0}", "bwrap")
    assert result["passed"], result["failures"]
    egress = {e["destination"]: e["count"] for e in result["egress"]}  # type: ignore[attr-defined]
    assert egress["1.1.1.1:443"] == 1 and egress["10.1.2.3:80"] == 1 and egress["dns:example.com"] >= 1


def test_expect_egress_takes_only_none(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(SCENARIO.format(name="bad", expect="{egress: some}"), encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"bad.yaml:5:\d+.*expect.egress: expected `none`"):
        load_scenario(path)
