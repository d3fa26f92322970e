"""Smoke test of benchmarks/bench_scale.py in a quick mode: the figures print and a resume runs only the cells
whose results were deleted."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_scale.py"


def test_bench_scale_prints_the_figures_and_resumes_only_the_missing_cells() -> None:
    proc = subprocess.run([sys.executable, str(BENCH), "--cells", "6", "--jobs", "1,2", "--resume-left", "2",
                           "--sandbox", "no-such-sandbox"], capture_output=True, text=True, timeout=240, check=False)
    out = proc.stdout
    assert proc.returncode == 0, out + proc.stderr
    assert "-j 1 sandbox   none: 6 cells in" in out and "-j 2 sandbox   none: 6 cells in" in out
    assert out.count("(6 passed, 0 failed)") >= 2
    assert "4 of 6 cells already have a result (not run again)" in out
    assert "resume: 2 cells ran (of 6; 2 expected)" in out
    assert "resume in-process: 6 scenarios loaded" in out and "2 cells ran; the first started" in out
