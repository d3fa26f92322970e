"""MCP tool call overhead over stdio: autocue's bridge beside a direct ``mcp`` SDK client (issue 20).

One fake MCP server per client (``fake_mcp_server(transport="stdio")``: a child process, the
official SDK's low-level server, a fixed text result), so both pay the same process and
protocol cost. Per round, in alternation:

* **direct SDK**: ``ClientSession.call_tool`` over ``stdio_client`` (the floor);
* **autocue manager**: ``MCPManager.call_tool("mcp__bench__ping", ...)`` (name routing, the
  transport pump that notices drops, result conversion to tool-result content);
* **autocue agent tool**: the ``AgentTool`` the model calls (``mcp__bench__ping``: argument
  validation against the server's schema, then the manager).

Prints µs per call (median over rounds) and the overhead over the direct client, taken within
each round (see benchmarks/interleaved.py).

    python benchmarks/bench_mcp.py [--rounds 7] [--calls 300]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from interleaved import ratio_in_rounds
from mcp import ClientSession, StdioServerParameters, stdio_client

from autocue.llm.abort import AbortController
from autocue.mcp import MCPManager
from autocue.testing import FakeTool, fake_mcp_server

SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
TOOLS = {"ping": FakeTool("pong", "Answer pong", SCHEMA)}


async def _timed(calls: int, fn: Callable[[int], Awaitable[object]]) -> float:
    t0 = time.perf_counter()
    for i in range(calls):
        await fn(i)
    return (time.perf_counter() - t0) / calls * 1e6


async def main_async(rounds: int, calls: int) -> None:
    with fake_mcp_server(TOOLS, transport="stdio") as direct_srv, fake_mcp_server(TOOLS, transport="stdio") as ours:
        cfg = direct_srv.config
        params = StdioServerParameters(command=cfg["command"], args=cfg["args"], env=cfg["env"])
        manager = MCPManager({"bench": ours.config}, grace_period=60)
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            await session.list_tools()
            await manager.discover_and_connect()
            try:
                [tool] = manager.agent_tools()
                signal = AbortController().signal

                async def direct(i: int) -> object:
                    return await session.call_tool("ping", {"n": i})

                async def via_manager(i: int) -> object:
                    return await manager.call_tool("mcp__bench__ping", {"n": i}, signal)

                async def via_tool(i: int) -> object:
                    return await tool.execute(f"call_{i}", tool.validate({"n": i}), signal, lambda r: None)

                measures = {"direct SDK ClientSession.call_tool": direct, "autocue MCPManager.call_tool": via_manager,
                            "autocue AgentTool mcp__bench__ping": via_tool}
                for fn in measures.values():  # warm-up: imports, validators, the child's first calls
                    await _timed(20, fn)
                samples: dict[str, list[float]] = {k: [] for k in measures}
                for _ in range(rounds):
                    for name, fn in measures.items():
                        gc.collect()
                        samples[name].append(await _timed(calls, fn))
            finally:
                await manager.disconnect()
    base = samples["direct SDK ClientSession.call_tool"]
    print(f"MCP tool call over stdio, {calls} calls x {rounds} rounds (median µs per call)")
    for name, values in samples.items():
        print(f"  {name:40s} {statistics.median(values):9.1f} µs/call")
    for name in ("autocue MCPManager.call_tool", "autocue AgentTool mcp__bench__ping"):
        over = statistics.median(o - b for b, o in zip(base, samples[name], strict=True))
        print(f"  overhead of {name:28s} {over:+9.1f} µs/call  (ratio {ratio_in_rounds(base, samples[name]):.2f})")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--calls", type=int, default=300)
    a = p.parse_args()
    asyncio.run(main_async(a.rounds, a.calls))


if __name__ == "__main__":
    main()
