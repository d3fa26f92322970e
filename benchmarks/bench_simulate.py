"""Benchmark: ``autocue simulate`` streaming to 100 concurrent SSE clients at ``--speed 0``.

    python benchmarks/bench_simulate.py [--clients 100] [--events 2000] [--rounds 3]

The server runs as its own process (``autocue simulate --speed 0``, so client and server do
not share a GIL). Two workloads, each timed from the first request to the last event read:

1. fan-out: every client follows the same session (started once);
2. one session per client.

Clients are ``httpx2.AsyncClient`` streams in one asyncio loop, parsing every SSE frame;
the figure is events delivered per second, summed over clients (median of ``--rounds``).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx2


def scenario(events: int) -> str:
    steps = ", ".join(f"[0, 'chunk {i} of the reply']" for i in range(events - 3))
    return f"name: bench\ntimeline:\n  - assistant: [{steps}]\n  - complete: true\n"


async def follow(client: httpx2.AsyncClient, url: str) -> int:
    n = 0
    async with client.stream("GET", url) as r:
        async for line in r.aiter_lines():
            if line.startswith("data:"):
                n += 1
                if '"type":"session.end"' in line:
                    break
    return n


async def workload(base: str, clients: int, shared: bool) -> tuple[int, float]:
    limits = httpx2.Limits(max_connections=clients + 10, max_keepalive_connections=clients + 10)
    async with httpx2.AsyncClient(timeout=120, limits=limits) as client:
        t0 = time.perf_counter()
        if shared:
            sid = (await client.post(base + "/api/v1/sessions", json={"scenario": "bench"})).json()["id"]
            ids = [sid] * clients
        else:
            answers = await asyncio.gather(*(client.post(base + "/api/v1/sessions", json={"scenario": "bench"})
                                             for _ in range(clients)))
            ids = [a.json()["id"] for a in answers]
        counts = await asyncio.gather(*(follow(client, f"{base}/api/v1/sessions/{i}/events") for i in ids))
        return sum(counts), time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--clients", type=int, default=100)
    ap.add_argument("--events", type=int, default=2000, help="events per session")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-simulate-") as d:
        f = Path(d) / "bench.yaml"
        f.write_text(scenario(args.events))
        proc = subprocess.Popen([sys.executable, "-m", "autocue.cli.main", "simulate", str(f), "--speed", "0"],
                                stdout=subprocess.PIPE, text=True)
        try:
            assert proc.stdout is not None
            base = proc.stdout.readline().strip().rsplit(" ", 1)[1]
            for shared, label in ((True, "fan-out, one session"), (False, "one session per client")):
                rates = []
                for _ in range(args.rounds):
                    n, secs = asyncio.run(workload(base, args.clients, shared))
                    assert n == args.clients * args.events, (n, args.clients * args.events)
                    rates.append(n / secs)
                print(f"{args.clients} SSE clients, {label}: {statistics.median(rates):,.0f} events/s "
                      f"({args.events} events per client, median of {args.rounds})")
        finally:
            proc.terminate()
            proc.wait(10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
