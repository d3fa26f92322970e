"""``autocue run --autocue-coverage`` on the shipped examples: a count for every timeline event kind (zero
ones too), the replies served and the tools the agent declared, and ``--autocue-coverage-fail-under``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

import autocue
from autocue.scenario import load_scenario
from autocue.scenario.events import kind_key, kind_keys

EXAMPLES = Path(autocue.__file__).resolve().parents[2] / "examples" / "scenarios"


def run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "AUTOCUE_COVERAGE_PARTS"}
    return subprocess.run([sys.executable, "-m", "autocue", "run", str(EXAMPLES), "--agent", "autocue",
                           "--out", str(tmp_path / "runs"), *args], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=180)


@pytest.mark.slow
def test_every_timeline_kind_is_counted_and_the_fail_under_fails(tmp_path: Path) -> None:
    files = sorted(EXAMPLES.glob("*.yaml"))
    expected = Counter(kind_key(type(ev)) for f in files for ev in load_scenario(f).timeline)
    proc = run(tmp_path, "--autocue-coverage=cov.json", "--autocue-coverage-fail-under=99")
    assert f"{len(files)} passed, 0 failed" in proc.stdout, proc.stdout + proc.stderr
    assert proc.returncode == 1, proc.stdout  # every scenario passed; the coverage is under 99%
    report = json.loads((tmp_path / "cov.json").read_text())
    timeline = report["timeline"]
    assert timeline["scenarios"] == len(files)
    assert timeline["kinds"] == {k: expected.get(k, 0) for k in kind_keys()}
    assert timeline["kinds"]["userCommand"] == 0 and timeline["kinds"]["llmResponse"] > 0
    replies = sum(s["total"] for s in report["scenarios"])
    assert replies == report["score"]["replies_served"] > 0  # every scripted reply of a passing run was served
    tools = {t["tool"]: t["called"] for t in report["tools"]}
    assert tools["read"] and tools["write"] and not tools["find"]  # autocue declares find; no example calls it
    line = f"timeline events by kind ({len(files)} scenario run(s)): "
    assert line + ", ".join(f"{k} {n}" for k, n in timeline["kinds"].items()) in proc.stdout
    assert "find: NEVER CALLED by any scenario" in proc.stdout
    assert "is under --autocue-coverage-fail-under=99" in proc.stdout
    ok = run(tmp_path, "--autocue-coverage=cov2.json", f"--autocue-coverage-fail-under={report['score']['percent']}")
    assert ok.returncode == 0, ok.stdout + ok.stderr


@pytest.mark.slow
def test_without_the_flag_no_coverage_is_written(tmp_path: Path) -> None:
    proc = run(tmp_path, "-k", "tool_use")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "autocue coverage" not in proc.stdout and not (tmp_path / "autocue-coverage.json").exists()


@pytest.mark.slow
def test_the_mock_agent_reports_the_replies_it_played_itself(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "autocue", "run", str(EXAMPLES), "--agent", "mock", "--out",
                           str(tmp_path / "runs"), "--autocue-coverage=cov.json", "--json"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=180,
                          env={k: v for k, v in os.environ.items() if k != "AUTOCUE_COVERAGE_PARTS"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert json.loads(proc.stdout)["passed"] == 3  # --json: stdout stays the report, the summary goes to stderr
    assert "autocue coverage: 100% (8/8 scripted replies served" in proc.stderr, proc.stderr
    report = json.loads((tmp_path / "cov.json").read_text())
    assert {s["key"]: (s["served"], s["total"]) for s in report["scenarios"]} == {
        str(EXAMPLES / "rate_limit_retry.yaml"): (2, 2), str(EXAMPLES / "thinking_text.yaml"): (2, 2),
        str(EXAMPLES / "tool_use.yaml"): (4, 4)}
    assert all(s["sessions"][0]["session"].startswith("mock agent: ") for s in report["scenarios"])
