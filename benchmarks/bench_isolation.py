"""Per-cell cost of ``--sandbox bwrap`` against no sandbox, for ``--agent mock`` scenarios.

    python benchmarks/bench_isolation.py [--rounds 10]

Each round runs every scenario of examples/agents (print and TUI) with ``--agent mock``, once with
``--sandbox none`` and once with ``--sandbox bwrap``, interleaved (``interleaved.run_rounds``: a
slow-down of this shared machine hits both alike). It prints the median milliseconds per cell of
each, the sandbox's overhead per cell (the median over rounds of the difference in the same round),
and the target: ≤ 50 ms per cell.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from interleaved import run_rounds

from autocue.isolation import find
from autocue.runner import run_scenarios

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "agents"
TARGET_MS = 50.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=10)
    args = ap.parse_args()
    why = find("bwrap").unavailable()
    if why is not None:
        print(f"bwrap cannot run here: {why}")
        return
    scenarios = sorted(p for p in EXAMPLES.glob("*.yaml") if p.name != "rate_limit.yaml")
    out = Path(tempfile.mkdtemp(prefix="autocue-bench-isolation-"))

    def measure(sandbox: str):  # type: ignore[no-untyped-def]
        def once() -> float:
            t0 = time.perf_counter()
            report = run_scenarios(scenarios, agent="mock", sandbox=sandbox, out=out, ci=False)
            took = time.perf_counter() - t0
            bad = [s.name for s in report.scenarios if not s.passed]
            if bad:
                raise SystemExit(f"--sandbox {sandbox}: failed: {', '.join(bad)}")
            return took / len(report.scenarios)
        return once

    run_scenarios(scenarios, agent="mock", sandbox="bwrap", out=out, ci=False)  # warm-up (imports, goldens)
    samples = run_rounds({"none": measure("none"), "bwrap": measure("bwrap")}, args.rounds)
    none_ms = statistics.median(samples["none"]) * 1000
    bwrap_ms = statistics.median(samples["bwrap"]) * 1000
    diff = statistics.median((b - n) * 1000 for n, b in zip(samples["none"], samples["bwrap"], strict=True))
    print(f"{len(scenarios)} scenarios (--agent mock) x {args.rounds} rounds, interleaved")
    print(f"  --sandbox none : {none_ms:7.1f} ms per cell (median)")
    print(f"  --sandbox bwrap: {bwrap_ms:7.1f} ms per cell (median)")
    print(f"  overhead of bwrap: {diff:+.1f} ms per cell (median of same-round differences); "
          f"target ≤ {TARGET_MS:.0f} ms: {'met' if diff <= TARGET_MS else 'MISSED'}")


if __name__ == "__main__":
    main()
