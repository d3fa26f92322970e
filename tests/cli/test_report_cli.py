"""``autocue report`` on real recordings: a pi session file and an orchestrator loop session."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conformance import PI_SESSIONS, RALPH


def report(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "autocue.cli.main", "report", *args], capture_output=True, text=True, timeout=60
    )


def test_agent_session_report() -> None:
    r = report(str(PI_SESSIONS / "anthropic-edit-error.jsonl"), "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["kind"] == "agent-session" and data["context_messages"] == 8
    assert data["tools"]["read"] == {"calls": 1, "errors": 1}
    assert data["usage"]["totalTokens"] == 648
    assert any("Tool no_such_tool not found" in line for line in data["transcript"])


def test_loop_session_report() -> None:
    r = report(str(RALPH / "cassettes_e2e_multi-iter.jsonl"))
    assert r.returncode == 0, r.stderr
    assert "loop-session" in r.stdout and "CompletionPromise" in r.stdout and "iterations: 3" in r.stdout


def test_bad_input_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "x.jsonl"
    bad.write_text("not json\n")
    r = report(str(bad))
    assert r.returncode == 1 and "x.jsonl:1: not JSON" in r.stderr
    r = report(str(tmp_path / "missing.jsonl"))
    assert r.returncode == 1 and "missing.jsonl" in r.stderr
