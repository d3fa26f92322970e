"""Instructions per step of the Agent and TestSession benchmarks, counted by valgrind.

Wall and CPU time on a shared VM drift by 1.5-2x (the vCPUs differ in speed, and which one
is slow changes over time), which hides 2% changes. The number of instructions a step
executes does not drift: it is counted for N = 50 and N = 450 steps, and the difference is
divided by 400, so start-up and imports cancel out. valgrind cannot see system calls (an
``os.urandom`` is nearly free here), so confirm a win in time as well.

    python benchmarks/bench_instructions.py [agent] [harness]

Needs ``valgrind`` on PATH (Debian: ``apt-get install valgrind``); each figure takes ~20-40 s.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

CHILD = """
import asyncio, sys
sys.path.insert(0, {here!r})
which, n = sys.argv[1], int(sys.argv[2])
if which == "agent":
    import bench_agent_loop as b
    asyncio.run(b.one_run(20))
    asyncio.run(b.one_run(n))
else:
    import bench_harness as b
    b.autocue_run(20, True)
    b.autocue_run(n, True)
"""


def instructions(which: str, n: int) -> int:
    cmd = [
        "valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
        sys.executable, "-c", CHILD.format(here=str(HERE)), which, str(n),
    ]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    m = re.search(r"Collected : (\d+)", out.stderr)
    if out.returncode != 0 or m is None:
        raise SystemExit(f"valgrind run of {which} N={n} failed (exit {out.returncode}):\n{out.stderr[-2000:]}")
    return int(m.group(1))


def main() -> None:
    which = sys.argv[1:] or ["agent", "harness"]
    unknown = [w for w in which if w not in ("agent", "harness")]
    if unknown:
        raise SystemExit(f"unknown benchmark(s) {unknown}: choose from agent, harness")
    if shutil.which("valgrind") is None:
        print("valgrind is not installed: skipped (apt-get install valgrind)")
        return
    for w in which:
        per_step = (instructions(w, 450) - instructions(w, 50)) / 400
        print(f"{w:8s} {per_step:10,.0f} instructions/step")


if __name__ == "__main__":
    main()
