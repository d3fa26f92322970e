"""``autocue verify-install``: exit codes, the readable report, --json, smoke files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from autocue.cli.verify_install import main

FIXTURES = Path(__file__).parent / "fixtures"

pytestmark = pytest.mark.slow


def test_passing_package_exits_0(sandbox_cache: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    smoke = tmp_path / "smoke.json"
    smoke.write_text(json.dumps({"script": [{"when": "hi", "do": [{"call": "greet", "params": {"name": "Z"}},
                                                                  {"say": "ok"}]}]}))
    code = main([str(FIXTURES / "good_ext"), "--expect-extensions", "1", "--expect-tool", "greet",
                 "--expect-skill", "greeting", "--smoke", str(smoke), "--cache-dir", str(sandbox_cache)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "PASSED" in out and "tools: greet" in out and "smoke: passed (greet)" in out


def test_failing_package_exits_1_with_report(sandbox_cache: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main([str(FIXTURES / "broken_entry_point"), "--expect-extensions", "2", "--cache-dir", str(sandbox_cache),
                 "--quiet"])
    out = capsys.readouterr().out
    assert code == 1
    assert "FAILED (3 problems)" in out
    assert "[broken_entry_point]" in out and "[expectation] Expected 2 extension(s), got 0" in out
    assert "fix:" in out and "Traceback" not in out  # --quiet leaves out the raw details


def test_json_output(sandbox_cache: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main([str(FIXTURES / "missing_dependency"), "--json", "--cache-dir", str(sandbox_cache)])
    data = json.loads(capsys.readouterr().out)
    assert code == 1
    assert data["ok"] is False
    assert data["problems"][0]["kind"] == "missing_dependency"


def test_bad_smoke_file_is_a_usage_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = tmp_path / "smoke.yaml"
    bad.write_text("script:\n  - when: x\n    do:\n      - {call: greet, say: hi}\n")
    code = main([str(FIXTURES / "good_ext"), "--smoke", str(bad)])
    err = capsys.readouterr().err
    assert code == 2
    assert "turn 1, action 1: an action needs exactly one of call, say, think, parallel, fail" in err


def test_dispatcher_routes_verify_install(sandbox_cache: Path) -> None:
    env = {**os.environ, "HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9"}
    cp = subprocess.run(
        [sys.executable, "-m", "autocue.cli.main", "verify-install", str(FIXTURES / "no_entry_points"),
         "--cache-dir", str(sandbox_cache), "-q"],
        capture_output=True, text=True, env=env, timeout=300, check=False,
    )
    assert cp.returncode == 1, cp.stdout + cp.stderr
    assert "[no_entry_points]" in cp.stdout
