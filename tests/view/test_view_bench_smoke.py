"""The viewer and simulation benchmark scripts run and print their figures (smoke only: no timing asserted)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


def run(script: str, *args: str) -> str:
    out = subprocess.run([sys.executable, str(BENCH / script), *args], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout


@pytest.mark.slow
def test_bench_view_prints_render_and_page_load() -> None:
    out = run("bench_view.py", "--entries", "2000", "--rounds", "1")
    assert "render 2,000 entries" in out and "target ≤ 2 s" in out
    assert "Chromium page load:" in out


@pytest.mark.slow
def test_bench_simulate_prints_both_workloads() -> None:
    out = run("bench_simulate.py", "--clients", "5", "--events", "50", "--rounds", "1")
    assert "5 SSE clients, fan-out, one session:" in out and "5 SSE clients, one session per client:" in out
