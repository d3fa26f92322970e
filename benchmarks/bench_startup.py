"""Startup cost of the ``autocue`` console script: median wall time of ``autocue --version``.

Runs the installed entry point (``<venv>/bin/autocue``, else ``python -m autocue.cli.main``)
``--runs`` times (default 20) after 2 warm-up runs and prints min / median / max in ms and
whether the median meets the 150 ms target. Also reports ``python -c pass`` as the floor.

    python benchmarks/bench_startup.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time


def measure(cmd: list[str], runs: int) -> list[float]:
    for _ in range(2):
        subprocess.run(cmd, capture_output=True, check=True)
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=True)
        out.append((time.perf_counter() - t0) * 1000)
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    args = ap.parse_args()
    exe = os.path.join(os.path.dirname(sys.executable), "autocue")
    cmd = [exe, "--version"] if os.path.exists(exe) else (
        [shutil.which("autocue") or "", "--version"] if shutil.which("autocue")
        else [sys.executable, "-m", "autocue.cli.main", "--version"])
    floor = measure([sys.executable, "-c", "pass"], args.runs)
    times = measure(cmd, args.runs)
    med = statistics.median(times)
    print(f"command: {' '.join(cmd)}  ({args.runs} runs)")
    print(f"python -c pass   : median {statistics.median(floor):6.1f} ms")
    print(f"autocue --version: min {min(times):6.1f} ms  median {med:6.1f} ms  max {max(times):6.1f} ms")
    print(f"target <= 150 ms : {'OK' if med <= 150 else 'OVER'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
