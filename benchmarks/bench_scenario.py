"""Load and compile every conformance scenario N times; print files/second and the slowest file.

    python benchmarks/bench_scenario.py [--rounds 100] [--dir PATH]

Each round reads the file text once (outside the timing), then times ``load_scenario_text``
(YAML parse with positions + normalization) and ``Scenario.compile()`` separately.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from autocue.scenario import load_scenario_text

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DIR = ROOT / "tests" / "fixtures" / "conformance" / "harbor"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--dir", type=Path, default=DEFAULT_DIR)
    args = ap.parse_args(argv)
    files = sorted(args.dir.glob("*.yaml")) + sorted((ROOT / "examples" / "scenarios").glob("*.yaml"))
    if not files:
        print(f"no scenario files in {args.dir}", file=sys.stderr)
        return 1
    texts = {f: f.read_text() for f in files}
    load_s: dict[Path, list[float]] = {f: [] for f in files}
    compile_s: dict[Path, list[float]] = {f: [] for f in files}
    steps = 0
    wall0 = time.perf_counter()
    for _ in range(args.rounds):
        for f in files:
            t0 = time.perf_counter()
            sc = load_scenario_text(texts[f], str(f))
            t1 = time.perf_counter()
            script = sc.compile()
            t2 = time.perf_counter()
            load_s[f].append(t1 - t0)
            compile_s[f].append(t2 - t1)
            steps += script.step_count
    wall = time.perf_counter() - wall0
    n = args.rounds * len(files)
    print(f"scenario load+compile: {len(files)} files x {args.rounds} rounds = {n} loads in {wall:.2f} s")
    print(f"  {n / wall:,.0f} files/second ({steps / wall:,.0f} compiled replies/second)")
    print(f"  {'file':<78} {'lines':>5} {'load ms':>8} {'compile ms':>10}")
    rows = []
    for f in files:
        lm = statistics.median(load_s[f]) * 1000
        cm = statistics.median(compile_s[f]) * 1000
        rows.append((lm + cm, f, lm, cm))
    for _, f, lm, cm in sorted(rows, key=lambda r: r[0], reverse=True):
        print(f"  {f.name:<78} {texts[f].count(chr(10)):>5} {lm:>8.2f} {cm:>10.3f}")
    slow = max(rows, key=lambda r: r[0])
    print(f"slowest: {slow[1].name} ({slow[0]:.2f} ms median per load+compile)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
