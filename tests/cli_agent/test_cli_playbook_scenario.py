"""``autocue --playbook`` takes a YAML scenario file: its replies, tool names mapped to autocue's tools."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "AUTOCUE_DIR": str(cwd / "home")}
    return subprocess.run(
        [sys.executable, "-m", "autocue.cli.main", "--model", "autocue/playbook", "--no-session", *args],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=60,
    )


def test_a_scenario_file_is_a_playbook(tmp_path: Path) -> None:
    shutil.copy(ROOT / "examples" / "scenarios" / "tool_use.yaml", tmp_path / "tool_use.yaml")
    (tmp_path / "README.md").write_text("# Demo project\n")
    r = _cli(tmp_path, "--playbook", "tool_use.yaml", "-p", "make hello.py")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "Done: hello.py prints Hello, World!"
    # readFile / writeFile / runCmd ran as autocue's read / write / bash
    assert (tmp_path / "hello.py").read_text() == "print('Hello, World!')\n"


def test_a_broken_scenario_playbook_is_one_line_with_its_position(tmp_path: Path) -> None:
    (tmp_path / "bad.yml").write_text("name: x\ntimeline:\n  - llmRespons: []\n")
    r = _cli(tmp_path, "--playbook", "bad.yml", "-p", "hi")
    assert r.returncode == 1 and r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "--playbook bad.yml:3:5: timeline[0].llmRespons: unknown timeline event" in lines[0]
