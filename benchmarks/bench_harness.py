"""µs per scripted step through ``TestSession`` (issue 4 benchmark), beside pydantic-ai's FunctionModel.

Each step: the playbook makes one call to a mocked tool; one extension subscribes to
``tool_call`` and ``tool_result``; the last reply says done. The same N-step script is then run
through pydantic-ai's ``FunctionModel`` (when the optional ``bench`` extra is installed) for a
side-by-side ratio measured in the same process.

    python benchmarks/bench_harness.py [--rounds 5] [--cpu]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Callable, Hashable
from functools import partial
from typing import Any

from interleaved import ratio_in_rounds, run_rounds

from autocue.testing import call, create_test_session, say, when


def _ext(api: Any) -> None:
    api.on("tool_call", lambda e, ctx: None)
    api.on("tool_result", lambda e, ctx: None)


def _clock(cpu: bool) -> float:
    return time.process_time() if cpu else time.perf_counter()


def autocue_run(n: int, cpu: bool) -> float:
    actions: list[Any] = [call("lookup", {"i": i}) for i in range(n)]
    actions.append(say("done"))
    with create_test_session(extension_factories=[_ext], mock_tools={"lookup": "ok"}) as t:
        turn = when("go", actions)
        t0 = _clock(cpu)
        t.run_sync(turn)
        elapsed = _clock(cpu) - t0
        assert t.playbook.consumed == n + 1 and len(t.events.tool_results) == n
    return elapsed / n * 1e6


def pydantic_ai_run(n: int, cpu: bool) -> float | None:
    try:
        from pydantic_ai import Agent
        from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
        from pydantic_ai.models.function import AgentInfo, FunctionModel
        from pydantic_ai.usage import UsageLimits
    except ImportError:
        return None
    counter = {"i": 0}

    def model_fn(messages: list[Any], info: AgentInfo) -> ModelResponse:
        i = counter["i"]
        counter["i"] += 1
        if i < n:
            return ModelResponse(parts=[ToolCallPart("lookup", {"i": i})])
        return ModelResponse(parts=[TextPart("done")])

    agent = Agent(FunctionModel(model_fn))

    @agent.tool_plain
    def lookup(i: int) -> str:
        return "ok"

    t0 = _clock(cpu)
    asyncio.run(agent.run("go", usage_limits=UsageLimits(request_limit=n + 10)))
    return (_clock(cpu) - t0) / n * 1e6


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--cpu", action="store_true", help="process CPU time instead of wall time")
    ap.add_argument("--peer-max-n", type=int, default=200, help="largest N to run through pydantic-ai")
    args = ap.parse_args()
    print(f"measuring {'process CPU' if args.cpu else 'wall'} time, {args.rounds} interleaved rounds")
    autocue_run(20, args.cpu)  # warm-up
    import bench_agent_loop

    bench_agent_loop.CPU = args.cpu
    ns = (50, 200, 800)
    measures: dict[Hashable, Callable[[], float]] = {n: partial(autocue_run, n, args.cpu) for n in ns}
    measures["bare"] = lambda: asyncio.run(bench_agent_loop.bare_loop(200))
    s = run_rounds(measures, args.rounds)
    have_peer = args.peer_max_n >= min(ns) and pydantic_ai_run(1, args.cpu) is not None
    for n in ns:
        line = f"N={n:4d}  autocue TestSession {statistics.median(s[n]):8.1f} µs/step"
        if n <= args.peer_max_n:
            if not have_peer:
                line += "   pydantic-ai: not installed (pip install -e '.[bench]')"
            else:
                # pydantic-ai in pairs of its own, apart from the rounds above: its runs leave the
                # process's memory in a state that slows the next run (ours, here: conservative)
                pairs = run_rounds({"ours": partial(autocue_run, n, args.cpu), "peer": partial(_peer, n, args.cpu)},
                                   max(3, args.rounds // 2))
                line += (f"   pydantic-ai FunctionModel {statistics.median(pairs['peer']):9.1f} µs/step"
                         f"   ratio {ratio_in_rounds(pairs['ours'], pairs['peer']):6.1f}x")
        print(line)
    print(f"reference, bare Python loop, same rounds: {statistics.median(s['bare']):.1f} µs/step"
          f" -> TestSession costs {ratio_in_rounds(s['bare'], s[200]):.1f}x it")
    print(f"ratio N=800 / N=50: {ratio_in_rounds(s[50], s[800]):.2f}x  (per round; target ≤ 1.5x)")
    print(f"target ≤ 50 µs/step at N=200: {'met' if statistics.median(s[200]) <= 50 else 'NOT met'}")


def _peer(n: int, cpu: bool) -> float:
    r = pydantic_ai_run(n, cpu)
    assert r is not None
    return r


if __name__ == "__main__":
    main()
