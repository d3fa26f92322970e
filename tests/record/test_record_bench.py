"""benchmarks/bench_record.py runs and prints every side, checkpoint and target (no timing asserted)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_record.py"


@pytest.mark.slow
def test_bench_record_prints_proxy_vcrpy_and_strict_replay_figures() -> None:
    r = subprocess.run([sys.executable, str(BENCH), "--requests", "3", "--rounds", "1", "--sessions", "10,40",
                        "--turns", "20"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("sessions recorded: direct") == 2 and "by vcrpy" in r.stdout and "proxy CPU" in r.stdout
    assert "sessions recorded by the proxy:" in r.stdout
    assert "--match strict: server CPU" in r.stdout and "--match off   : server CPU" in r.stdout
    assert "0 error replies" in r.stdout and "strict matching adds" in r.stdout
