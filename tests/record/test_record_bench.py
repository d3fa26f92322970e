"""benchmarks/bench_record.py runs and prints both sides and the targets (no timing asserted)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_record.py"


@pytest.mark.slow
def test_bench_record_prints_direct_and_proxied_figures() -> None:
    r = subprocess.run([sys.executable, str(BENCH), "--requests", "5", "--rounds", "1"], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "direct upstream :" in r.stdout and "through proxy   :" in r.stdout
    assert "to first byte (target ≤ 1 ms:" in r.stdout and "25 sessions recorded" in r.stdout
