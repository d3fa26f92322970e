"""µs per scripted tool-call step through ``Agent`` (issue 2 benchmark).

N sequential steps: each scripted reply calls one trivial tool; the last reply says done.
One listener is subscribed (as any real user would): it reads every event, deltas included, so
replies stream. Prints the median over several rounds of (wall time / N) for N = 50, 200, 800,
and the 800/50 ratio (history growth check); then N = 200 with a listener that says it reads
``message_end`` only (``observes``): the agent then builds no turn or delta events and takes each
reply whole (issue 28: only observed work).

    python benchmarks/bench_agent_loop.py [--rounds 7]
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import statistics
import time
from collections.abc import Callable, Hashable
from functools import partial
from typing import Any

from interleaved import ratio_in_rounds, run_rounds

from autocue.agent import Agent, AgentTool
from autocue.llm import TextContent
from autocue.script import ScriptedProvider, ScriptedResponse, ScriptedToolCall, scripted_model


async def _noop(tool_call_id: str, params: dict[str, Any], signal: Any, on_update: Any) -> str:
    return "ok"


CPU = False
"""Measure CPU time of this process instead of wall time (steadier on a busy machine)."""

TOOL = AgentTool("noop", "does nothing", {"type": "object", "properties": {"i": {"type": "integer"}}}, _noop)


OBSERVES = "observes" in inspect.signature(Agent.subscribe).parameters
"""Whether listeners can say what they read (since issue 28; the comparison with an earlier tree skips it)."""


def _message_end_only(event_type: str) -> bool:
    return event_type == "message_end"


async def one_run(n: int, observed: bool = False) -> float:
    steps: list[Any] = [ScriptedResponse([ScriptedToolCall("noop", {"i": i})]) for i in range(n)]
    steps.append(ScriptedResponse([TextContent("done")]))
    provider = ScriptedProvider(steps)
    agent = Agent(provider=provider, model=scripted_model(), tools=[TOOL])
    count = [0]

    def listener(ev: Any) -> None:
        count[0] += 1

    if observed:
        agent.subscribe(listener, _message_end_only)
    else:
        agent.subscribe(listener)
    t0 = time.process_time() if CPU else time.perf_counter()
    await agent.prompt("go")
    elapsed = (time.process_time() if CPU else time.perf_counter()) - t0
    assert provider.remaining == 0 and not provider.exhausted
    return elapsed / n * 1e6


async def bare_loop(n: int) -> float:
    """Reference: a bare Python agent loop (dict messages, one awaited trivial tool per step)."""
    history: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    t0 = time.process_time() if CPU else time.perf_counter()
    for i in range(n):
        call = {"type": "toolCall", "id": f"call_{i}", "name": "noop", "arguments": {"i": i}}
        history.append({"role": "assistant", "content": [call], "stopReason": "toolUse"})
        out = await _noop(call["id"], call["arguments"], None, None)
        history.append({"role": "toolResult", "toolCallId": call["id"], "content": [{"type": "text", "text": out}]})
    elapsed = (time.process_time() if CPU else time.perf_counter()) - t0
    return elapsed / n * 1e6


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--cpu", action="store_true", help="process CPU time instead of wall time")
    ap.add_argument("--peer-max-n", type=int, default=200, help="below 200: skip the pydantic-ai comparison")
    args = ap.parse_args()
    global CPU
    CPU = args.cpu
    print(f"measuring {'process CPU' if CPU else 'wall'} time, {args.rounds} interleaved rounds")
    asyncio.run(one_run(50))  # warm-up
    measures: dict[Hashable, Callable[[], float]] = {n: partial(_run, n) for n in (50, 200, 800)}
    measures["bare"] = lambda: asyncio.run(bare_loop(200))
    if OBSERVES:
        measures["observed"] = partial(_run, 200, True)
    s = run_rounds(measures, args.rounds)
    for n in (50, 200, 800):
        print(f"N={n:4d}  {statistics.median(s[n]):7.1f} µs/step  (median of {args.rounds}, min {min(s[n]):.1f})")
    if OBSERVES:
        print(f"N= 200  {statistics.median(s['observed']):7.1f} µs/step  with a listener of message_end only"
              f" (min {min(s['observed']):.1f})")
    print(f"reference, bare Python loop, same rounds: {statistics.median(s['bare']):.1f} µs/step"
          f" -> Agent costs {ratio_in_rounds(s['bare'], s[200]):.1f}x it")
    if args.peer_max_n >= 200:
        peer_ratio(max(3, args.rounds // 2))
    print(f"ratio N=800 / N=50: {ratio_in_rounds(s[50], s[800]):.2f}x  (per round; target ≤ 1.5x)")
    print(f"target ≤ 30 µs/step at N=200: {'met' if statistics.median(s[200]) <= 30 else 'NOT met'}")


def _run(n: int, observed: bool = False) -> float:
    return asyncio.run(one_run(n, observed))


def peer_ratio(pairs: int) -> None:
    """pydantic-ai's FunctionModel on the same N = 200 script, alternated with ours pair by pair
    (a ratio that holds when the machine's speed changes during the run)."""
    from bench_harness import pydantic_ai_run

    if pydantic_ai_run(1, CPU) is None:
        print("pydantic-ai: not installed (pip install -e '.[bench]')")
        return
    sides: dict[Hashable, Callable[[], float]] = {"ours": partial(_run, 200),
                                                  "peer": lambda: pydantic_ai_run(200, CPU) or 0.0}
    if OBSERVES:
        sides["observed"] = partial(_run, 200, True)
    s = run_rounds(sides, pairs)
    observed = (f", {ratio_in_rounds(s['observed'], s['peer']):.0f}x with a listener of message_end only"
                if OBSERVES else "")
    print(f"pydantic-ai FunctionModel, same script, N=200: {statistics.median(s['peer']):.0f} µs/step,"
          f" {ratio_in_rounds(s['ours'], s['peer']):.0f}x Agent's{observed} (median of {pairs} alternated rounds)")

if __name__ == "__main__":
    main()
