"""Orchestrator loop and test-tool benchmarks (plain script: ``python benchmarks/bench_loop.py``).

1. A 100-iteration loop on the mock backend, end to end through ``TestTools.test_run``
   (config, loop, prompt building, event parsing, session.jsonl written and flushed per
   record, result stored) and through ``EventLoop`` alone. Target ≤ 1 s.
2. ``test_inspect(format="summary")`` on a 100,000-record session file (read, parse every
   line, summarize). Target ≤ 1 s. Also the json format with a topic filter.

Figures are the best and the median of several runs (wall clock, ``time.perf_counter``).
"""

from __future__ import annotations

import base64
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from autocue.checks import TestTools
from autocue.loop import EventLoop, MockBackend, config_from_dict

ITERATIONS = 100
RECORDS = 100_000


CPU: list[float] = []


def timed(fn: Callable[[], Any], repeat: int) -> tuple[float, float, Any]:
    """Best and median wall time; the best CPU time of the process goes to ``CPU[-1]``."""
    times: list[float] = []
    cpu: list[float] = []
    out: Any = None
    for _ in range(repeat):
        c0 = time.process_time()
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    CPU.append(min(cpu))
    return min(times), statistics.median(times), out


def responses() -> list[dict[str, Any]]:
    hats = ["planner", "builder"]
    out = [{"hat": hats[i % 2], "output": f"step {i}\n<event topic=\"{'build.task' if i % 2 == 0 else 'plan.next'}\">"
            f"item {i}</event>"} for i in range(ITERATIONS - 1)]
    out.append({"hat": hats[(ITERATIONS - 1) % 2], "output": "all done\nLOOP_COMPLETE"})
    return out


CONFIG = {"hats": {"planner": {"triggers": ["task.start", "plan.next"]}, "builder": {"triggers": ["build.task"]}}}


def bench_test_run(root: Path) -> None:
    tools = TestTools(root)
    n = [0]

    def once() -> dict[str, Any]:
        n[0] += 1
        wid = f"bench_{n[0]}"
        tools.test_setup(wid, config=CONFIG)
        r = tools.test_run(wid, "benchmark task", max_iterations=ITERATIONS, mock_responses=responses())
        assert r["termination_reason"] == "CompletionPromise" and r["iterations"] == ITERATIONS, r
        return r

    best, med, r = timed(once, 7)
    print(f"test_setup + test_run, {ITERATIONS}-iteration mock loop: best {best * 1000:.1f} ms, "
          f"median {med * 1000:.1f} ms, cpu {CPU[-1] * 1000:.1f} ms ({r['events_count']} events) — target ≤ 1000 ms")

    ws = root / "loop_only"
    ws.mkdir()
    cfg = config_from_dict(CONFIG)
    cfg.event_loop.max_iterations = ITERATIONS

    def loop_only() -> Any:
        return EventLoop(cfg, prompt="benchmark task", workspace=ws, backend=MockBackend(responses())).run_sync()

    best, med, res = timed(loop_only, 7)
    assert res.iterations == ITERATIONS
    print(f"EventLoop.run, {ITERATIONS} iterations with session recording: best {best * 1000:.1f} ms, "
          f"median {med * 1000:.1f} ms, cpu {CPU[-1] * 1000:.1f} ms ({res.records_count} records, "
          f"{best / ITERATIONS * 1e6:.0f} µs/iteration)")


def write_big_session(path: Path) -> None:
    chunk = base64.b64encode(b"some agent output line\n").decode()
    lines: list[bytes] = []
    ts = 1_700_000_000_000
    it = 0
    topics = ["build.task", "build.done", "review.approved", "plan.next"]
    i = 0
    lines.append(orjson.dumps({"ts": ts, "event": "_meta.loop_start", "data": {"max_iterations": 100000}}))
    while len(lines) < RECORDS - 1:
        i += 1
        kind = i % 5
        if kind in (0, 1):
            rec = {"ts": ts + i, "event": "ux.terminal.write", "data": {"bytes": chunk, "stdout": True, "offset_ms": i}}
        elif kind in (2, 3):
            rec = {"ts": ts + i, "event": "bus.publish",
                   "data": {"topic": topics[i % 4], "payload": f"payload {i}", "source": "builder", "target": None}}
        else:
            it += 1
            rec = {"ts": ts + i, "event": "_meta.iteration",
                   "data": {"n": it, "hat": "builder" if it % 2 else "planner", "elapsed_ms": i}}
        lines.append(orjson.dumps(rec))
    lines.append(orjson.dumps({"ts": ts + i + 1, "event": "_meta.termination",
                               "data": {"reason": "MaxIterations", "iterations": it, "elapsed_secs": i / 1000}}))
    path.write_bytes(b"\n".join(lines) + b"\n")


def bench_inspect(root: Path) -> None:
    tools = TestTools(root)
    tools.test_setup("big")
    path = root / "big" / "session.jsonl"
    write_big_session(path)
    size_mb = path.stat().st_size / 1e6
    best, med, s = timed(lambda: tools.test_inspect("big", format="summary"), 5)
    assert s["total_events"] == RECORDS
    print(f"test_inspect summary, {RECORDS:,} records ({size_mb:.1f} MB): best {best * 1000:.1f} ms, "
          f"median {med * 1000:.1f} ms, cpu {CPU[-1] * 1000:.1f} ms — target ≤ 1000 ms")
    best, med, j = timed(
        lambda: tools.test_inspect("big", filter={"topics": ["build.*"], "after_iteration": 100}, limit=100), 5
    )
    print(f"test_inspect json + topic/iteration filter, {RECORDS:,} records: best {best * 1000:.1f} ms, "
          f"median {med * 1000:.1f} ms, cpu {CPU[-1] * 1000:.1f} ms ({j['total_matched']} matched)")


def main() -> None:
    print(f"load average: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory(prefix="autocue-bench-") as d:
        bench_test_run(Path(d) / "run")
        bench_inspect(Path(d) / "inspect")


if __name__ == "__main__":
    main()
