"""Does the per-session history cache (``mockllm/history.py``) pay? CPU per agent step of
reading the request body, at N = 200 and 800 steps of bench_mockllm's tool loop (OpenAI
Chat: each step appends an assistant tool call and a tool result), three ways alternated in
one run:

    full      orjson.loads of the whole body + validate.problem over it (what the server did)
    parse     orjson.loads alone
    cache     HistoryCache.parse + remember (the tail parsed, the rest reused; validating
              only the new items is the caller's, left out here)

    python benchmarks/bench_history.py [--rounds 7] [--samples 40]

Each sample is one step: the session's cache holds step i-1's body, step i's body is read.
``--samples`` steps spread over the loop are timed per round (the bodies of all 800 steps
would hold ~100 MB); the figure is the mean µs per step over them.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable, Hashable
from typing import Any

import orjson
from interleaved import ratio_in_rounds, run_rounds

from autocue.mockllm.history import HistoryCache
from autocue.mockllm.validate import problem
from autocue.mockllm.wire.registry import wire_api

TOOL_RESULT = "=" * 20 + " 1 passed in 0.01s " + "=" * 20
TOOLS = [{"type": "function", "function": {"name": "bash", "parameters": {"type": "object"}}}]


def conversation(n: int) -> list[dict[str, Any]]:
    """The messages after n steps (as bench_mockllm's client sends them)."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "fix the failing test"}]
    for i in range(n):
        cid = f"call_{i}"
        args = json.dumps({"command": f"pytest -x tests/test_{i}.py", "timeout": 60})
        messages.append({"role": "assistant", "content": f"Step {i}: running the next command.",
                         "tool_calls": [{"id": cid, "type": "function", "function": {"name": "bash",
                                                                                      "arguments": args}}]})
        messages.append({"role": "tool", "tool_call_id": cid, "content": TOOL_RESULT})
    return messages


def raw_body(messages: list[dict[str, Any]]) -> bytes:
    return orjson.dumps({"model": "m", "messages": messages, "stream": False, "tools": TOOLS})


def steps(n: int, samples: int) -> list[tuple[bytes, bytes]]:
    """(previous body, body) of ``samples`` steps spread over an n-step loop."""
    messages = conversation(n)
    picks = sorted({max(1, round(k * n / samples)) for k in range(1, samples + 1)})
    return [(raw_body(messages[:2 * i - 1]), raw_body(messages[:2 * i + 1])) for i in picks]


def measure(pairs: list[tuple[bytes, bytes]], way: str) -> Callable[[], float]:
    def run() -> float:
        total = 0.0
        for prev, raw in pairs:
            if way == "cache":
                cache = HistoryCache()
                body, _ = cache.parse("s", prev, "messages")
                cache.remember("s", prev, body, "messages")
                cache.parse("s", prev + b" ", "messages")  # the session's first reuse finds the offsets
                t0 = time.process_time()
                body, seen = cache.parse("s", raw, "messages")
                cache.remember("s", raw, body, "messages")
                total += time.process_time() - t0
                assert seen > 0 or len(prev) < cache.min_bytes  # a short body is parsed whole, as the server does
            else:
                t0 = time.process_time()
                body = orjson.loads(raw)
                if way == "full":
                    assert problem(wire_api("chat"), body, raw) is None
                total += time.process_time() - t0
        return total * 1e6 / len(pairs)

    return run


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--samples", type=int, default=40)
    args = ap.parse_args()
    for n in (200, 800):
        pairs = steps(n, args.samples)
        measures: dict[Hashable, Callable[[], float]] = {w: measure(pairs, w) for w in ("full", "parse", "cache")}
        got = run_rounds(measures, args.rounds)
        med = {w: statistics.median(v) for w, v in got.items()}
        print(f"N={n} (last body {len(pairs[-1][1]) / 1024:.0f} KB), CPU µs per step, median of {args.rounds} rounds: "
              + ", ".join(f"{w} {med[w]:.1f} (min {min(got[w]):.1f})" for w in got))
        print(f"  cache / full {ratio_in_rounds(got['full'], got['cache']):.3f}x, "
              f"cache / parse {ratio_in_rounds(got['parse'], got['cache']):.3f}x (per-round medians)")


if __name__ == "__main__":
    main()
