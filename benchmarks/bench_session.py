"""Session data layer benchmarks: append cost per entry, and open + build_session_context of a
100,000-entry session file (target < 1 s).

Run: ``python benchmarks/bench_session.py [entries]``. Prints figures; asserts nothing.
The file mimics a pi tool loop: user → (assistant tool call → tool result) × 3 → assistant
text, repeated, with realistic usage blocks and 60–300 character texts (about 450 bytes a line).
"""

from __future__ import annotations

import gc
import os
import sys
import tempfile
import time
from pathlib import Path

import orjson

from autocue.llm import AssistantMessage, TextContent, ToolCall, ToolResultMessage, Usage, UserMessage
from autocue.session.manager import SessionManager

N = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000


def _messages(i: int) -> list[object]:
    """One pi-style turn of 8 messages."""
    u = UserMessage([TextContent(f"Request {i}: please look at module_{i}.py and fix the failing test. " * 2)])
    out: list[object] = [u]
    for k in range(3):
        call = ToolCall(f"toolu_{i:06d}{k}xxxxxxxxxxxxxxx", "read", {"path": f"src/module_{i}_{k}.py"})
        out.append(AssistantMessage([TextContent("Let me check that file."), call], api="anthropic-messages",
                                    provider="anthropic", model="claude-sonnet-4-5", usage=Usage.of(1200, 40),
                                    stop_reason="toolUse", response_id=f"msg_{i:06d}{k}"))
        out.append(ToolResultMessage(call.id, "read", [TextContent(f"def f_{i}_{k}():\n    return {i}\n" * 4)]))
    out.append(AssistantMessage([TextContent(f"Fixed module_{i}.py: the test passes now. " * 3)],
                                api="anthropic-messages", provider="anthropic", model="claude-sonnet-4-5",
                                usage=Usage.of(1500, 60), stop_reason="stop", response_id=f"msg_{i:06d}z"))
    return out


def bench_append(dirname: str) -> None:
    msgs = [m for i in range(250) for m in _messages(i)]  # 2,000 messages
    for label, make in (("in memory", lambda: SessionManager.in_memory(dirname)),
                        ("persisted (O_APPEND write per entry)", lambda: SessionManager.create(dirname, dirname))):
        best = float("inf")
        for _ in range(3):
            sm = make()
            sm.append_message(msgs[1])  # an assistant message first: every later append is written at once
            t = time.perf_counter()
            for m in msgs:
                sm.append_message(m)  # type: ignore[arg-type]
            best = min(best, time.perf_counter() - t)
            sm.close()
        print(f"append, {label}: {best / len(msgs) * 1e6:.1f} µs per entry (best of 3, {len(msgs)} entries)")


def write_file(path: Path, n: int, compact_every: int | None) -> None:
    sm = SessionManager.create_at(path, path.parent)
    sm.append_model_change("anthropic", "claude-sonnet-4-5")
    sm.append_thinking_level_change("off")
    i = 0
    count = 2
    while count < n:
        turn = [sm.append_message(m) for m in _messages(i)]  # type: ignore[arg-type]
        count += len(turn)
        i += 1
        if compact_every and i % compact_every == 0:
            # keep the last turn verbatim, like a compaction with a small keep-recent budget
            sm.append_compaction(f"summary after turn {i}", turn[0], 50_000, {"readFiles": [], "modifiedFiles": []})
            count += 1
    sm.close()


def bench_floor(path: Path) -> None:
    """The floor on this machine: orjson.loads of every line, nothing else (GC off)."""
    data = path.read_bytes()
    best = float("inf")
    for _ in range(3):
        gc.collect()
        gc.disable()
        t = time.perf_counter()
        parsed = [orjson.loads(x) for x in data.split(b"\n") if x]
        best = min(best, time.perf_counter() - t)
        gc.enable()
        del parsed
    print(f"floor: orjson.loads of every line of that file alone: {best * 1000:.0f} ms  [best of 3]")


def bench_open(path: Path, label: str) -> None:
    size = path.stat().st_size
    times: list[tuple[float, float, float, float, int, int]] = []
    for _ in range(3):
        gc.collect()
        c0 = time.process_time()
        t0 = time.perf_counter()
        sm = SessionManager.open(path)
        t1 = time.perf_counter()
        ctx = sm.build_session_context()
        t2 = time.perf_counter()
        c2 = time.process_time()
        sm.build_session_context()
        t3 = time.perf_counter()
        times.append((t1 - t0, t2 - t1, t3 - t2, c2 - c0, len(sm.get_entries()), len(ctx.messages)))
        del sm, ctx
    o, b, b2, cpu, n, m = min(times, key=lambda x: x[0] + x[1])
    print(f"{label}: {n:,} entries, {size / 1e6:.1f} MB")
    print(f"  open {o * 1000:.0f} ms + build_session_context {b * 1000:.0f} ms = {(o + b) * 1000:.0f} ms "
          f"(process CPU {cpu * 1000:.0f} ms; {m:,} context messages); "
          f"build again (messages cached) {b2 * 1000:.0f} ms  [best of 3]")


def main() -> None:
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpu(s)")
    with tempfile.TemporaryDirectory() as d:
        bench_append(d)
        linear = Path(d) / "linear.jsonl"
        write_file(linear, N, None)
        bench_open(linear, "linear session, no compaction (worst case: every message is in the context)")
        bench_floor(linear)
        compacted = Path(d) / "compacted.jsonl"
        write_file(compacted, N, 100)
        bench_open(compacted, "session compacted every 100 turns")


if __name__ == "__main__":
    main()
