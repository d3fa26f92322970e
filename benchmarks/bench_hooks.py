"""Extension hook dispatch overhead per tool call (issue 3 benchmark; target ≤ 20 µs).

Five extensions each subscribe to ``tool_call`` and ``tool_result`` (sync handlers that read
the event, as a guard or logger would). Two figures:

* **dispatch**: µs per tool call spent in ``ExtensionRunner.emit_tool_call`` +
  ``emit_tool_result`` (both hooks, all five extensions), measured in a tight loop;
* **end to end**: µs per scripted tool-call step through a whole ``AgentSession`` with the
  five extensions, minus the same run with no extension (the hooks' share of a real step),
  plus the absolute µs/step of both runs and of a bare ``Agent`` (the floor; the session's own
  cost is persistence and event fan-out).

Prints the median over several rounds.

    python benchmarks/bench_hooks.py [--rounds 7] [--n 400]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from typing import Any

from autocue.agent import AgentTool
from autocue.extensions import ExtensionRunner, ToolCallEvent, ToolResultEvent, load_extensions
from autocue.llm import TextContent
from autocue.script import ScriptedProvider, ScriptedResponse, ScriptedToolCall, scripted_model
from autocue.session import AgentSession

EXTENSIONS = 5


def make_extension(i: int) -> Any:
    def extension(api: Any) -> None:
        def on_call(event: Any, ctx: Any) -> Any:
            if event.tool_name == "forbidden":
                return {"block": True, "reason": f"extension {i}"}
            return None

        def on_result(event: Any, ctx: Any) -> Any:
            if event.is_error and event.tool_name == "never":
                return {"content": "patched"}
            return None

        api.on("tool_call", on_call)
        api.on("tool_result", on_result)

    extension.__name__ = f"ext{i}"
    return extension


async def _noop(tool_call_id: str, params: dict[str, Any], signal: Any, on_update: Any) -> str:
    return "ok"


TOOL = AgentTool("noop", "does nothing", {"type": "object", "properties": {"i": {"type": "integer"}}}, _noop)


def bench_dispatch(n: int) -> float:
    result = load_extensions([make_extension(i) for i in range(EXTENSIONS)], cwd=".")
    runner: ExtensionRunner = result.runner
    args = {"i": 1}
    content = [TextContent("ok")]
    t0 = time.perf_counter()
    for k in range(n):
        r1 = runner.emit_tool_call(ToolCallEvent(f"call_{k}", "noop", args))
        r2 = runner.emit_tool_result(ToolResultEvent(f"call_{k}", "noop", args, content, None, False))
        assert r1 is None and r2 is None
    return (time.perf_counter() - t0) / n * 1e6


async def session_run(n: int, extensions: int) -> float:
    steps: list[Any] = [ScriptedResponse([ScriptedToolCall("noop", {"i": i})]) for i in range(n)]
    steps.append(ScriptedResponse([TextContent("done")]))
    provider = ScriptedProvider(steps)
    session = AgentSession(
        provider=provider, model=scripted_model(), tools=[TOOL],
        extensions=[make_extension(i) for i in range(extensions)],
    )
    session.subscribe(lambda ev: None)
    await session.bind_extensions()
    t0 = time.perf_counter()
    await session.prompt("go")
    elapsed = time.perf_counter() - t0
    assert provider.remaining == 0 and not provider.exhausted
    assert sum(1 for m in session.messages if m.role == "toolResult") == n
    await session.dispose()
    return elapsed / n * 1e6


async def agent_run(n: int) -> float:
    """The same script through a bare ``Agent`` (the floor the session builds on)."""
    from autocue.agent import Agent

    steps: list[Any] = [ScriptedResponse([ScriptedToolCall("noop", {"i": i})]) for i in range(n)]
    steps.append(ScriptedResponse([TextContent("done")]))
    agent = Agent(provider=ScriptedProvider(steps), model=scripted_model(), tools=[TOOL])
    agent.subscribe(lambda ev: None)
    t0 = time.perf_counter()
    await agent.prompt("go")
    return (time.perf_counter() - t0) / n * 1e6


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--n", type=int, default=400)
    a = ap.parse_args()
    bench_dispatch(1000)  # warm-up
    dispatch = statistics.median(bench_dispatch(20_000) for _ in range(a.rounds))
    print(f"dispatch: {dispatch:.2f} µs per tool call ({EXTENSIONS} extensions x tool_call + tool_result)"
          f"  target <= 20 µs: {'OK' if dispatch <= 20 else 'OVER'}")
    asyncio.run(session_run(50, EXTENSIONS))  # warm-up
    bare, base, hooked = [], [], []
    for _ in range(a.rounds):
        bare.append(asyncio.run(agent_run(a.n)))
        base.append(asyncio.run(session_run(a.n, 0)))
        hooked.append(asyncio.run(session_run(a.n, EXTENSIONS)))
    g, b, h = statistics.median(bare), statistics.median(base), statistics.median(hooked)
    print(f"bare Agent step (floor):          {g:.1f} µs/step (N={a.n})")
    print(f"session step, no extension:       {b:.1f} µs/step (N={a.n})")
    print(f"session step, {EXTENSIONS} extensions hooked: {h:.1f} µs/step (N={a.n})")
    print(f"end-to-end hook overhead:         {h - b:.1f} µs per tool call")


if __name__ == "__main__":
    main()
