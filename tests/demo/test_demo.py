"""The README's main job: ``autocue demo`` runs every section and ends with a passing summary."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_demo_runs_every_section_and_passes() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "autocue.cli.main", "demo"], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    out = proc.stdout
    assert proc.returncode == 0, out[-3000:] + proc.stderr[-2000:]
    assert "== summary" in out
    summary = out.split("== summary", 1)[1]
    assert "[FAIL]" not in summary
    assert summary.count("[PASS]") >= 4
    assert "in-process agent with real tools" in summary
    assert "over HTTP" in summary
    assert out.rstrip().splitlines()[-1].endswith("0 failed")
