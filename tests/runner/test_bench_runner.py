"""Smoke test of benchmarks/bench_runner.py: a few generated scenarios pass at -j 1 and -j 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_runner.py"


def test_bench_runner_runs_and_reports_both_job_counts() -> None:
    proc = subprocess.run([sys.executable, str(BENCH), "--scenarios", "4"], capture_output=True, text=True, timeout=110)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert "-j 1: 4 scenarios in" in out and "-j 2: 4 scenarios in" in out and "(4 passed, 0 failed)" in out
    assert "executor's own share" in out and "x faster than -j 1" in out


def test_bench_runner_spawn_reports_the_runner_s_own_cost_three_ways() -> None:
    proc = subprocess.run([sys.executable, str(BENCH), "--spawn", "--runs", "5"], capture_output=True, text=True,
                          timeout=110)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = [line.split() for line in proc.stdout.splitlines()[1:]]
    assert [" ".join(r[:-2]) for r in rows] == ["run_process, pipes", "run_process, pseudo-terminal",
                                                "PtyProgram (the executor's)"]
    assert all(r[-1] == "ms" and float(r[-2]) > 0 for r in rows), proc.stdout
