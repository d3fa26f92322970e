"""Overhead of the ``autocue record`` proxy on loopback, side by side with direct upstream access.

Run: ``python benchmarks/bench_record.py [--requests N] [--rounds R]``. Prints figures; asserts
nothing (target: ≤ 1 ms added per request and ≤ 1 ms added time to first byte).

The upstream is ``autocue serve`` and the proxy ``autocue record`` (each its own process, as a
user runs them); one client (httpx2, keep-alive) sends streamed Chat Completions requests,
alternating direct and proxied batches in each round so both see the same machine state. Each
request uses a fresh session key, so the proxy records (parses and writes a scenario) for every
request, as it does in real use. Figures are medians over all requests.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx2

SCENARIO = """\
name: bench
initialPrompt: hello
timeline:
  - llmResponse:
      - assistant: [[0, "Hello! This is a short streamed reply of a few words."]]
"""
BODY = {"model": "m", "stream": True, "stream_options": {"include_usage": True},
        "messages": [{"role": "user", "content": "hello"}]}


def _start(args: list[str]) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, "-m", "autocue.cli.main", *args, "--json"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line:
        raise SystemExit(f"could not start autocue {args[0]}: {proc.stderr.read() if proc.stderr else ''}")
    return proc, str(json.loads(line)["url"])


def _batch(client: httpx2.Client, base: str, n: int, tag: str) -> tuple[list[float], list[float]]:
    totals: list[float] = []
    firsts: list[float] = []
    for i in range(n):
        headers = {"authorization": f"Bearer bench-{tag}-{i}-{time.perf_counter_ns()}"}
        t0 = time.perf_counter()
        first = 0.0
        with client.stream("POST", base + "/v1/chat/completions", json=BODY, headers=headers) as r:
            for _ in r.iter_raw():
                if not first:
                    first = time.perf_counter() - t0
        totals.append(time.perf_counter() - t0)
        firsts.append(first)
    return totals, firsts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--requests", type=int, default=200, help="requests per batch (default 200)")
    ap.add_argument("--rounds", type=int, default=3, help="alternating direct/proxied rounds (default 3)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        scenario = Path(d) / "bench.yaml"
        scenario.write_text(SCENARIO)
        upstream, up_url = _start(["serve", str(scenario)])
        proxy, proxy_url = _start(["record", "--upstream", up_url, "-o", str(Path(d) / "rec")])
        try:
            results: dict[str, tuple[list[float], list[float]]] = {"direct": ([], []), "proxy": ([], [])}
            with httpx2.Client(timeout=30) as client:
                _batch(client, up_url, 20, "warm")
                _batch(client, proxy_url, 20, "warm")
                for r in range(args.rounds):
                    for name, base in (("direct", up_url), ("proxy", proxy_url)):
                        tot, first = _batch(client, base, args.requests, f"{name}{r}")
                        results[name][0].extend(tot)
                        results[name][1].extend(first)
        finally:
            for p in (proxy, upstream):
                p.terminate()
                p.wait(10)
        recorded = len(list((Path(d) / "rec").glob("*.yaml")))
    n = args.requests * args.rounds
    med = {k: (statistics.median(v[0]) * 1000, statistics.median(v[1]) * 1000) for k, v in results.items()}
    print(f"autocue record proxy overhead on loopback: {n} streamed chat requests per side, "
          f"{args.rounds} alternating rounds, {recorded} sessions recorded")
    print(f"  direct upstream : {med['direct'][0]:7.3f} ms per request, {med['direct'][1]:7.3f} ms to first byte")
    print(f"  through proxy   : {med['proxy'][0]:7.3f} ms per request, {med['proxy'][1]:7.3f} ms to first byte")
    added, added_first = med["proxy"][0] - med["direct"][0], med["proxy"][1] - med["direct"][1]
    print(f"  added by proxy  : {added:7.3f} ms per request (target ≤ 1 ms: {'met' if added <= 1 else 'MISSED'}), "
          f"{added_first:7.3f} ms to first byte (target ≤ 1 ms: {'met' if added_first <= 1 else 'MISSED'})")


if __name__ == "__main__":
    main()
