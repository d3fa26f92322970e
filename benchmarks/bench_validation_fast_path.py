"""Does the quick-yes tool-argument check (``fast_validator``) matter? Per-step µs of
``bench_agent_loop`` (Agent) and ``bench_harness`` (TestSession) at N = 200, with the quick
path and without it (every call validated by ``jsonschema``), alternated in the same run.

    python benchmarks/bench_validation_fast_path.py [--rounds 9] [--cpu]

The quick path stays only while it saves at least 10% of a per-step figure.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import statistics
from collections.abc import Callable, Hashable
from typing import Any

import bench_agent_loop
from bench_harness import autocue_run
from interleaved import ratio_in_rounds, run_rounds

tool_module = importlib.import_module("autocue.agent.tool")  # `autocue.agent.tool` is also a function
N = 200
_QUICK = tool_module.fast_validator


def _no_quick_path(schema: Any) -> None:
    return None


def _with(quick: bool, run: Callable[[], float]) -> Callable[[], float]:
    def measure() -> float:
        tool_module.fast_validator = _QUICK if quick else _no_quick_path  # type: ignore[assignment]
        bench_agent_loop.TOOL._validator = None  # the Agent bench's tool picks its checks again
        try:
            return run()
        finally:
            tool_module.fast_validator = _QUICK

    return measure


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--cpu", action="store_true", help="process CPU time instead of wall time")
    args = ap.parse_args()
    bench_agent_loop.CPU = args.cpu

    def agent() -> float:
        return asyncio.run(bench_agent_loop.one_run(N))

    def harness() -> float:
        return autocue_run(N, args.cpu)

    agent()  # warm-up
    harness()
    measures: dict[Hashable, Callable[[], float]] = {
        ("agent", True): _with(True, agent), ("agent", False): _with(False, agent),
        ("harness", True): _with(True, harness), ("harness", False): _with(False, harness),
    }
    s = run_rounds(measures, args.rounds)
    print(f"measuring {'process CPU' if args.cpu else 'wall'} time, {args.rounds} alternated rounds, N={N}")
    for name in ("agent", "harness"):
        quick, full = s[(name, True)], s[(name, False)]
        saved = 1 - 1 / ratio_in_rounds(quick, full)
        print(f"{name:8s} with quick path {statistics.median(quick):6.1f} µs/step, "
              f"jsonschema only {statistics.median(full):6.1f} µs/step: the quick path saves {saved:.0%}")


if __name__ == "__main__":
    main()
