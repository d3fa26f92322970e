"""The mock server's request path in process: CPU per request, without sockets.

Raw HTTP/1.1 requests (bench_mockllm's warm measure: two-request conversations, a fresh session
key each, 50 connections) are fed to autocue's protocol (``mockllm/protocol.py``) with a transport
that only counts writes, so what is timed is the protocol's parsing, the app's answer and the event
loop's callbacks: the part of a real server's CPU that code changes move, without the system calls
and the machine's noise (``bench_mockllm.py --aimock`` measures the whole server against aimock).

``--floor`` also times a trivial ASGI app on the same protocol (what the protocol and the loop cost).
``--src NAME=DIR`` (repeatable) times other checkouts' ``src`` too, each in its own process,
alternated round by round with this one; min and median of ``--rounds`` per tree.

    python benchmarks/bench_request_path.py --src before=/path/to/other/src --rounds 5
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

CONNECTIONS = 50


class _Transport(asyncio.Transport):
    def __init__(self) -> None:
        super().__init__()
        self.writes = 0

    def write(self, data: Any) -> None:
        self.writes += 1

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return ("127.0.0.1", 1)

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def close(self) -> None:
        pass

    def is_closing(self) -> bool:
        return False


async def _floor_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    await receive()
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json"), (b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"{}"})


async def _measure(app: Any, requests: int, rounds: int) -> list[float]:
    """µs of CPU per request, one figure per round (fresh session keys each round)."""
    from aimock_side import _raw_request

    from autocue.mockllm.protocol import DirectHttpProtocol

    loop = asyncio.get_running_loop()
    config = SimpleNamespace(loaded=True, loaded_app=app, root_path="", timeout_keep_alive=30, ws_max_size=None)
    state = SimpleNamespace(default_headers=[], tasks=set(), connections=set(), total_requests=0)
    out: list[float] = []
    for r in range(rounds + 1):  # the first round warms up
        raw = [_raw_request(1, f"r{r}k{i // 2}", i % 2 == 1) for i in range(requests)]
        conns = []
        for _ in range(CONNECTIONS):
            conn = DirectHttpProtocol(config, state, {}, loop)
            conn.connection_made(_Transport())
            conns.append(conn)
        before = state.total_requests
        t0 = time.process_time()
        for i, request in enumerate(raw):
            conns[i % CONNECTIONS].data_received(request)
            if i % CONNECTIONS == CONNECTIONS - 1:  # a loop turn per batch, as a real loop's
                await asyncio.sleep(0)
                await asyncio.sleep(0)
        await asyncio.sleep(0)
        dt = time.process_time() - t0
        if state.total_requests - before != requests:
            raise SystemExit(f"answered {state.total_requests - before} of {requests} requests")
        if r:
            out.append(dt / requests * 1e6)
    return out


def _inner(requests: int, rounds: int, floor: bool) -> None:
    """Run in this process and print one line per figure: ``NAME v1 v2 ...``."""
    from aimock_side import write_scenario

    from autocue.mockllm.server import MockLLMServer

    with tempfile.TemporaryDirectory() as tmp:
        server = MockLLMServer(write_scenario(Path(tmp) / "tools.yaml", 1))
        figures = {"autocue": asyncio.run(_measure(server.app, requests, rounds))}
        if floor:
            figures["floor"] = asyncio.run(_measure(_floor_app, requests, rounds))
    for name, values in figures.items():
        print(name, *(f"{v:.2f}" for v in values), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--requests", type=int, default=20_000, help="requests per round (default 20,000)")
    ap.add_argument("--rounds", type=int, default=3, help="rounds per tree (default 3)")
    ap.add_argument("--floor", action="store_true", help="also time a trivial ASGI app on the same protocol")
    ap.add_argument("--src", action="append", default=[], metavar="NAME=DIR", help="another checkout's src, timed too")
    ap.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.inner:
        _inner(args.requests, args.rounds, args.floor)
        return
    trees: list[tuple[str, str | None]] = [("this", None)]
    for given in args.src:
        name, _, src = given.partition("=")
        if not name or not src:
            raise SystemExit(f"--src {given!r}: give NAME=DIR (another checkout's src)")
        trees.append((name, src))
    figures: dict[str, list[float]] = {}
    for r in range(args.rounds):
        for name, src in (trees if r % 2 == 0 else trees[::-1]):
            env = dict(os.environ)
            if src is not None:
                env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
            out = subprocess.run([sys.executable, __file__, "--inner", "--requests", str(args.requests),
                                  "--rounds", "1", *(["--floor"] if args.floor else [])],
                                 capture_output=True, text=True, env=env, check=False)
            if out.returncode != 0:  # e.g. a tree from before mockllm/protocol.py: no such module
                last = out.stderr.strip().splitlines()[-1:] or ["no output"]
                raise SystemExit(f"bench_request_path: tree {name!r} failed: {last[0]}")
            for line in out.stdout.splitlines():
                kind, *values = line.split()
                figures.setdefault(f"{name} {kind}", []).extend(float(v) for v in values)
    print(f"request path in process ({args.requests:,} requests a round, {CONNECTIONS} connections, fresh keys; "
          f"trees alternated, {args.rounds} rounds): CPU µs per request, min / median")
    for key, values in figures.items():
        print(f"  {key:<24} {min(values):7.1f} / {statistics.median(values):7.1f}")


if __name__ == "__main__":
    main()
