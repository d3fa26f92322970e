"""`autocue scenario schema|check|run`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from scenario_paths import BROKEN, EXAMPLES, GOOD, HARBOR

from autocue.cli.scenario import main
from autocue.scenario import scenario_json_schema


def test_schema_prints_the_json_schema(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema"]) == 0
    assert json.loads(capsys.readouterr().out) == scenario_json_schema()


def test_check_good_files_prints_warnings_with_positions(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(GOOD / "warnings.yaml"), str(EXAMPLES)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"warning: {GOOD / 'warnings.yaml'}:2:1: owner: unknown key 'owner' in the scenario is ignored"
    assert f"ok: {GOOD / 'warnings.yaml'}: warnings (1 scripted replies, 6 warning(s))" in out
    assert f"ok: {EXAMPLES / 'tool_use.yaml'}: tool_use_hello (4 scripted replies, 0 warning(s))" in out
    assert out[-1] == "4 file(s) checked, 0 failed"


def test_check_strict_fails_on_warnings(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--strict", "-q", str(GOOD / "warnings.yaml")]) == 1


def test_check_broken_file_exits_1_with_the_position(capsys: pytest.CaptureFixture[str]) -> None:
    f = BROKEN / "think_string.yaml"
    assert main(["check", str(f), str(GOOD / "groups.yaml")]) == 1
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [
        f"error: {f}:7:16: timeline[3].llmResponse[0].think: expected a list of [ms, text] pairs or "
        "{relativeTime, content} objects, got a string: write `- [0, \"I forgot the list\"]` (one item per step)",
        "2 file(s) checked, 1 failed",
    ]
    assert f"ok: {GOOD / 'groups.yaml'}: groups (2 scripted replies, 0 warning(s))" in captured.out


def test_check_a_missing_path(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["check", str(tmp_path / "none.yaml")]) == 1
    assert f"error: {tmp_path / 'none.yaml'}:1:1: no such scenario file" in capsys.readouterr().err
    assert main(["check", str(tmp_path)]) == 1
    assert "no *.yaml or *.yml files here" in capsys.readouterr().err


def test_run_says_where_it_lives(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", str(EXAMPLES / "tool_use.yaml")])
    if code == 2:
        assert "autocue scenario run: not available in this build yet" in capsys.readouterr().err


def test_usage_without_a_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "usage: autocue scenario" in capsys.readouterr().err


def test_cli_through_the_autocue_entry_point() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "autocue.cli.main", "scenario", "check", "-q", str(HARBOR)],
        capture_output=True, text=True, timeout=120,
    )
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")


def test_check_a_file_that_is_not_utf8_is_one_error_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    f = tmp_path / "latin1.yaml"
    f.write_bytes(b"name: caf\xe9\ntimeline: []\n")
    assert main(["check", str(f)]) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"error: {f}:1:1: a scenario file must be UTF-8 text (invalid continuation byte at byte 9)",
        "1 file(s) checked, 1 failed",
    ]
