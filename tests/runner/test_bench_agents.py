"""Smoke test of ``benchmarks/bench_runner.py --agents``: every launch profile's per-run overhead is
measured with a stand-in CLI (so it runs without the real CLIs) and reported against the target."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_runner.py"


@pytest.mark.slow
def test_bench_agents_reports_the_overhead_of_every_profile(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, str(BENCH), "--agents", "--runs", "2"], capture_output=True, text=True,
                          timeout=110, env={"PATH": "/usr/bin:/bin", "AUTOCUE_AGENTS_DIR": str(tmp_path)})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    found = dict(re.findall(r"^  (\w+) +overhead +([\d.]+) ms", proc.stdout, re.M))
    assert sorted(found) == ["aider", "claude", "codex", "gemini", "opencode", "pi"], proc.stdout
    assert all(0 < float(ms) < 5000 for ms in found.values())
    assert "claude start-up not installed" in proc.stdout  # the real CLIs are looked up where they were asked
    assert re.search(r"worst overhead [\d.]+ ms: (within|OVER) the 100 ms target", proc.stdout)
