"""``autocue check ...`` as separate processes: state persists in the workspace between calls; the old
name ``autocue test`` still works after one line on stderr."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

CLI = [sys.executable, "-m", "autocue.cli.main", "check"]


def call(root: Path, *args: str, code: int = 0, stdin: str | None = None) -> Any:
    p = subprocess.run([*CLI, *args, "--root", str(root)], capture_output=True, text=True, timeout=60, input=stdin)
    assert p.returncode == code, (p.returncode, p.stdout, p.stderr)
    return json.loads(p.stdout) if p.stdout.strip() else None


@pytest.mark.slow
def test_cli_chain(tmp_path: Path) -> None:
    root = tmp_path / "root"
    out = call(root, "setup", "cli_001", "--fixture", "notes.txt=hello", "--scratchpad", "## Plan",
               "--config", '{"hats": {"planner": {"triggers": ["task.start"]}}}')
    assert out["workspace_id"] == "cli_001" and "notes.txt" in out["created_files"]
    assert call(root, "mock-backend", "cli_001", json.dumps([
        {"hat": "planner", "output": '<event topic="build.task">x</event>',
         "files": {"notes.txt": "hello\nworld\n"}}]))["response_count"] == 1
    run = call(root, "run", "cli_001", "do the thing", "--max-iterations", "1")
    assert run["termination_reason"] == "MaxIterations" and run["exit_code"] == 2
    checks = '[{"type":"exit_code","expected":2},{"type":"event_occurred","topic":"build.*"}]'
    ok = call(root, "assert", "cli_001", checks)
    assert ok["passed"] is True
    failed = call(root, "assert", "cli_001", '[{"type":"exit_code","expected":0}]', code=1)
    assert failed["failed_count"] == 1
    summary = call(root, "inspect", "cli_001", "--format", "summary")
    assert summary["hats_used"] == ["planner"] and summary["iterations"] == 1
    snap = call(root, "snapshot", "cli_001", "--include", "*.txt")
    assert list(snap["files"]) == ["notes.txt"]
    diff = call(root, "diff", "cli_001", "initial")
    assert diff["changed_files"] == ["notes.txt"] and diff["diffs"]["notes.txt"]["additions"] == 2
    params = call(root, "inspect", "--params", "-", stdin='{"workspace_id": "cli_001", "limit": 1}')
    assert len(params["records"]) == 1 and params["truncated"] is True
    assert call(root, "list")["workspace_ids"] == ["cli_001"]
    assert call(root, "cleanup", "cli_001", "--preserve-session")["preserved_files"][0].endswith("session.jsonl")
    err = call(root, "inspect", "cli_001", code=1)
    assert err["error"]["code"] == "unknown_workspace"


def test_cli_usage_errors(tmp_path: Path) -> None:
    p = subprocess.run([*CLI, "run", "--root", str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "missing workspace_id, task" in p.stderr
    p = subprocess.run([*CLI, "assert", "w", "{not json", "--root", str(tmp_path)], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 2 and "invalid JSON" in p.stderr



RENAMED_LINE = "autocue: `autocue test` is now `autocue check`"


def _autocue(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "autocue", *args, "--root", str(root)],
                          capture_output=True, text=True, timeout=60)


@pytest.mark.slow
def test_the_old_name_says_the_new_one_then_does_the_same(tmp_path: Path) -> None:
    old = _autocue(tmp_path, "test", "setup", "w1", "--fixture", "a.txt=x")
    assert old.returncode == 0 and old.stderr.splitlines() == [RENAMED_LINE]
    assert json.loads(old.stdout)["created_files"] == ["a.txt"]
    new, old = _autocue(tmp_path, "check", "list"), _autocue(tmp_path, "test", "list")
    assert json.loads(new.stdout)["workspace_ids"] == ["w1"]  # the old name made the same workspace
    assert (old.returncode, old.stdout) == (new.returncode, new.stdout) == (0, new.stdout)
    assert new.stderr == "" and old.stderr.splitlines() == [RENAMED_LINE]


@pytest.mark.parametrize(("args", "code"), [(("run", "w1"), 2), (("inspect", "nope"), 1), (("frobnicate",), 2)])
def test_the_old_name_keeps_the_errors_and_exit_codes(tmp_path: Path, args: tuple[str, ...], code: int) -> None:
    new, old = _autocue(tmp_path, "check", *args), _autocue(tmp_path, "test", *args)
    assert (old.returncode, old.stdout) == (new.returncode, new.stdout) == (code, new.stdout)
    assert old.stderr.splitlines() == [RENAMED_LINE, *new.stderr.splitlines()]
    assert new.stderr.startswith("autocue check") or "usage: autocue check" in new.stderr
