"""The scenario executor's speed: N generated scenarios run with ``--agent mock`` at -j 1 and -j 2.

    python benchmarks/bench_runner.py [--scenarios 100] [--jobs 1,2]

Each scenario has 3 turns (the initial prompt and two typed inputs, each answered by a reply
with a text and a tool call) and one screenshot. It prints seconds per scenario, the speed-up
of each -j over -j 1, and the executor's own share: the time a run is not waiting for the
program under test to live (set-up, synchronisation after it exited, goldens, clean-up) — the
program's lifetime (start-up of the mock agent's Python, its tools) is reported apart.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from autocue.runner import RunOptions, collect, run_selected

SCENARIO = """\
name: bench_{n:03d}
tags: [bench]
agent: mock
initialPrompt: "turn one"
repo:
  files:
    - {{path: notes.txt, contents: "scenario {n}\\n"}}
timeline:
  - llmResponse:
      - assistant: [[0, "Reading the notes."]]
      - readFile: {{path: notes.txt}}
  - userInputs: [[0, "turn two"]]
  - llmResponse:
      - assistant: [[0, "Listing."]]
      - listDir: {{path: .}}
  - userInputs: [[0, "turn three"]]
  - llmResponse:
      - assistant: [[0, "Done with {n}."]]
  - screenshot: final
expect: {{exitCode: 0}}
"""


def generate(folder: Path, count: int) -> None:
    for n in range(count):
        (folder / f"bench_{n:03d}.yaml").write_text(SCENARIO.format(n=n), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scenarios", type=int, default=100)
    ap.add_argument("--jobs", default="1,2", help="comma-separated -j values (default 1,2)")
    args = ap.parse_args(argv)
    jobs = [int(j) for j in args.jobs.split(",")]
    with tempfile.TemporaryDirectory(prefix="autocue-bench-runner-") as tmp:
        root = Path(tmp)
        (root / "scenarios").mkdir()
        generate(root / "scenarios", args.scenarios)
        items = collect([root / "scenarios"])
        per: dict[int, float] = {}
        failures: list[str] = []
        for j in jobs:
            out = root / f"out-j{j}"
            t0 = time.perf_counter()
            report = run_selected(items, RunOptions(jobs=j, out=out))
            wall = time.perf_counter() - t0
            failures += [f"{s.name}: {f.line()}" for s in report.scenarios for f in s.failures]
            per[j] = wall / len(items)
            own = [s.duration_s - s.program_s for s in report.scenarios]
            prog = [s.program_s for s in report.scenarios]
            print(f"-j {j}: {len(items)} scenarios in {wall:.2f} s = {per[j] * 1000:.0f} ms per scenario "
                  f"({report.passed} passed, {report.failed} failed)")
            share = sum(own) / sum(s.duration_s for s in report.scenarios)
            print(f"  per run: program alive {statistics.median(prog) * 1000:.0f} ms (median), executor's own "
                  f"share {statistics.median(own) * 1000:.0f} ms (median), {share:.0%} of run time")
        base = per.get(1)
        if base:
            for j, t in per.items():
                if j != 1:
                    print(f"  -j {j} is {base / t:.2f}x faster than -j 1")
        for line in failures[:5]:
            print(f"  FAILED {line}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
