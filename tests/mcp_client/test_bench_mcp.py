"""benchmarks/bench_mcp.py runs and prints its three figures (smoke only: no timing is asserted)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_mcp.py"


@pytest.mark.slow
def test_bench_mcp_prints_direct_and_autocue_figures() -> None:
    out = subprocess.run([sys.executable, str(BENCH), "--rounds", "1", "--calls", "5"],
                         capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    for label in ("direct SDK ClientSession.call_tool", "autocue MCPManager.call_tool",
                  "autocue AgentTool mcp__bench__ping"):
        assert f"  {label}" in out.stdout and "µs/call" in out.stdout
    assert "overhead of autocue MCPManager.call_tool" in out.stdout
