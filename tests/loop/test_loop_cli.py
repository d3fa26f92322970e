"""``autocue loop`` as a real subprocess: the example config, exit codes, SIGINT → 130."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from autocue.loop import read_session

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "autocue.cli.main", "loop"]


def test_example_runs_to_completion(tmp_path: Path) -> None:
    p = subprocess.run([*CLI, "-c", str(ROOT / "examples/loop/autocue.loop.yml"), "-C", str(tmp_path), "--json"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    result = json.loads(p.stdout)
    assert result["termination_reason"] == "CompletionPromise" and result["iterations"] == 3
    assert (tmp_path / "greeting.py").is_file()
    assert "[iteration 2] hat builder on build.task" in p.stderr
    recs = read_session(tmp_path / ".autocue" / "session.jsonl")
    assert [r.data["hat"] for r in recs if r.event == "_meta.iteration"] == ["planner", "builder", "reviewer"]


def test_max_iterations_exit_code_and_prompt_argument(tmp_path: Path) -> None:
    (tmp_path / "autocue.loop.yml").write_text(
        "backend:\n  type: mock\n  responses:\n    - trigger_pattern: 'fix the bug'\n      output: working\n"
    )
    p = subprocess.run([*CLI, "fix the bug", "--max-iterations", "1"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 2, p.stderr
    assert "MaxIterations" in p.stderr and "working" in p.stdout


def test_config_errors_exit_2(tmp_path: Path) -> None:
    p = subprocess.run(CLI, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "no config" in p.stderr
    (tmp_path / "bad.yml").write_text("event_loop:\n  max_iterations: x\n")
    p = subprocess.run([*CLI, "-c", "bad.yml", "go"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "bad.yml:2" in p.stderr


def test_sigint_interrupts_with_130_and_kills_the_backend(tmp_path: Path) -> None:
    (tmp_path / "autocue.loop.yml").write_text(
        "backend:\n  command: sh\n  args: ['-c', 'echo $$ > backend.pid; sleep 30']\n"
    )
    proc = subprocess.Popen([*CLI, "go"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    pid_file = tmp_path / "backend.pid"
    deadline = time.monotonic() + 30
    while not (pid_file.exists() and pid_file.read_text().strip()) and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    recs = read_session(tmp_path / ".autocue" / "session.jsonl")
    assert recs[-1].data["reason"] == "Interrupted"
