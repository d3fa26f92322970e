"""Many ``TestSession``s in one process, as in a test suite: cost per session and per step, GC included.

``bench_harness.py`` reports the median run, which hides the cyclic GC's occasional full passes;
here every session of the batch counts (create, run, dispose), and so does the collection of
whatever garbage the batch left behind, which a disposed session should not leave at all.

    python benchmarks/bench_sessions.py [--sessions 200] [--steps 20]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from typing import Any

from autocue.testing import call, create_test_session, say, when


def _ext(api: Any) -> None:
    api.on("tool_call", lambda e, ctx: None)
    api.on("tool_result", lambda e, ctx: None)


def one_session(steps: int) -> float:
    """Create, run ``steps`` scripted tool calls, dispose; returns the seconds it took."""
    t0 = time.perf_counter()
    actions: list[Any] = [call("lookup", {"i": i}) for i in range(steps)]
    actions.append(say("done"))
    with create_test_session(extension_factories=[_ext], mock_tools={"lookup": "ok"}) as t:
        t.run_sync(when("go", actions))
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, default=200)
    ap.add_argument("--steps", type=int, default=20, help="scripted tool calls per session")
    args = ap.parse_args()
    one_session(5)  # warm-up: imports, first-use caches
    gc.collect()
    t0 = time.perf_counter()
    per_session = [one_session(args.steps) for _ in range(args.sessions)]
    g0 = time.perf_counter()
    garbage = gc.collect()
    total = time.perf_counter() - t0
    print(f"{args.sessions} sessions x {args.steps} steps in {total:.2f} s (wall, the final collection included)")
    print(f"per session: median {statistics.median(per_session) * 1e3:.2f} ms, "
          f"mean {statistics.mean(per_session) * 1e3:.2f} ms, max {max(per_session) * 1e3:.2f} ms")
    print(f"per step, all in: {total / (args.sessions * args.steps) * 1e6:.1f} µs")
    print(f"garbage left for the cyclic GC after the batch: {garbage} objects "
          f"(collected in {(time.perf_counter() - g0) * 1e3:.1f} ms)")


if __name__ == "__main__":
    main()
