"""Wall time of a full sandbox install check of examples/planner (issue 8 benchmark).

A full verify: build the planner wheel, install it with the running autocue into a fresh
venv (offline, from the cached wheelhouse), load its entry point there and play a one-turn
smoke playbook (``plan_list``), then remove everything. Prints the median and min over
``--rounds`` runs with a warm cache, per installer (uv, and the standard build/venv/pip),
plus the median of each step, and the one-time cold cost (autocue wheel + wheelhouse).
Target: median <= 3 s with uv.

    python benchmarks/bench_sandbox.py [--rounds 5] [--installer uv|pip|both]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from autocue.sandbox.commands import find_uv
from autocue.testing import call, say, verify_sandbox_install, when

PLANNER = Path(__file__).resolve().parents[1] / "examples" / "planner"
TOOLS = ["plan_mode", "plan_propose", "plan_list", "plan_get", "plan_approve", "plan_reject"]
SMOKE = {"mock_tools": {"bash": "ok"}, "script": [when("List plans", [call("plan_list", {}), say("No plans.")])]}


def once(installer: str, cache: Path) -> dict[str, float]:
    r = verify_sandbox_install(PLANNER, expect={"extensions": 1, "tools": TOOLS}, smoke=SMOKE,
                               installer=installer, cache_dir=cache)  # type: ignore[arg-type]
    return r.timings


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--installer", choices=("uv", "pip", "both"), default="both")
    args = ap.parse_args()
    installers = ["uv", "pip"] if args.installer == "both" else [args.installer]
    if "uv" in installers and find_uv() is None:
        print("uv not found: skipping the uv figures")
        installers.remove("uv")
    cache = Path(tempfile.mkdtemp(prefix="bench-sandbox-cache-"))
    try:
        t0 = time.perf_counter()
        cold = once(installers[0], cache)
        print(f"cold (empty cache, {installers[0]}): {time.perf_counter() - t0:.2f} s  "
              f"[autocue wheel {cold['autocue_wheel']:.2f} s, wheelhouse {cold['wheelhouse']:.2f} s]")
        for inst in installers:
            once(inst, cache)  # warm this installer's own cache (uv's)
            runs = [once(inst, cache) for _ in range(args.rounds)]
            totals = [r["total"] for r in runs]
            steps = {k: statistics.median(r[k] for r in runs) for k in runs[0] if k != "total"}
            print(f"{inst:>3}: median {statistics.median(totals):.2f} s, min {min(totals):.2f} s over "
                  f"{args.rounds} full verifies  [" + ", ".join(f"{k} {v:.2f}" for k, v in steps.items()) + "]")
    finally:
        shutil.rmtree(cache, ignore_errors=True)


if __name__ == "__main__":
    main()
