"""Per-step cost of a harness run with one subagent level (issue 20).

The same N tool calls, played two ways by ``create_test_session`` (mocked ``read``):

* **flat**: the parent calls ``read`` N times, then answers;
* **one subagent level**: the parent calls ``task`` once (agent ``explore``); its subagent,
  scripted with ``subagent("t", [...])``, calls ``read`` N times and answers; then the parent answers.

Prints µs per scripted reply (median over rounds, session set-up excluded) and the ratio of
the subagent run to the flat one, taken within each round (see benchmarks/interleaved.py).
A subagent costs its own session (a child ``AgentSession``, its session tree, its collector):
that fixed cost shrinks per step as N grows.

    python benchmarks/bench_subagents.py [--rounds 7] [--steps 50 200]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from interleaved import ratio_in_rounds, run_rounds

from autocue.testing import call, create_test_session, say, subagent, when

TASK = {"agent": "explore", "tasks": [{"id": "t", "description": "read", "assignment": "read the files"}]}


def flat(n: int) -> float:
    with create_test_session(mock_tools={"read": "ok"}) as t:
        turn = when("go", [*(call("read", {"path": f"f{i}"}) for i in range(n)), say("done")])
        t0 = time.perf_counter()
        t.run_sync(turn)
        return (time.perf_counter() - t0) / (n + 1) * 1e6


def nested(n: int) -> float:
    with create_test_session(mock_tools={"read": "ok"}) as t:
        turn = when("go", [
            call("task", TASK),
            subagent("t", [*(call("read", {"path": f"f{i}"}) for i in range(n)), say("done")]),
            say("done"),
        ])
        t0 = time.perf_counter()
        t.run_sync(turn)
        return (time.perf_counter() - t0) / (n + 3) * 1e6


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--steps", type=int, nargs="+", default=[50, 200])
    a = p.parse_args()
    for n in a.steps:
        flat(n), nested(n)  # warm-up
        s = run_rounds({"flat": lambda n=n: flat(n), "subagent": lambda n=n: nested(n)}, a.rounds)
        print(f"N={n:4d}  flat playbook            {statistics.median(s['flat']):8.1f} µs/step")
        print(f"N={n:4d}  one subagent level       {statistics.median(s['subagent']):8.1f} µs/step"
              f"  (ratio {ratio_in_rounds(s['flat'], s['subagent']):.2f})")


if __name__ == "__main__":
    main()
