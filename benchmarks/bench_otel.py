"""Benchmark: the mock server's cost per request with OpenTelemetry on vs off (docs/telemetry.md).

    python benchmarks/bench_otel.py [--rounds R] [--steps N] [--sessions S]

Two ``autocue serve`` processes play the same scenario (N tool-call steps, then a text answer):
one plain, one with ``--otel`` exporting over OTLP/HTTP to a loopback sink in this process (it
reads each export and answers 200, as a collector does). A client (``httpx``) plays S sessions of
N+1 requests against each, the history growing as an agent's does (each request carries the
previous tool call and its result, so every request also closes a tool span). Rounds are
interleaved (``interleaved.py``); per request: the client's wall time and the server process's
CPU time (``/proc/PID/stat``, utime + stime), each side's median over rounds, and the added cost.
The exporter's batch thread runs inside the server process, so its work is in the CPU figure.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
from interleaved import run_rounds

TICK = os.sysconf("SC_CLK_TCK")


class _Sink(BaseHTTPRequestHandler):
    exports = 0

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", "0")))
        type(self).exports += 1
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


def scenario(steps: int) -> str:
    lines = ["name: otel_bench", "timeline:"]
    for i in range(steps):
        lines += ["  - llmResponse:", f"      - assistant: [[0, \"Step {i}: running the tests.\"]]",
                  "      - agentToolUse:", "          toolName: bash", f"          toolCallId: call_{i}",
                  f"          args: {{command: \"pytest -x tests/test_{i}.py\"}}"]
    lines += ["  - llmResponse:", "      - assistant: [[0, \"All tests pass.\"]]"]
    return "\n".join(lines) + "\n"


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / TICK


class Server:
    def __init__(self, path: Path, env: dict[str, str], *args: str) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "autocue", "serve", str(path), "--json", *args],
                                     stdout=subprocess.PIPE, text=True, env=env)
        assert self.proc.stdout is not None
        self.url = json.loads(self.proc.stdout.readline())["url"]
        self.client = httpx.Client(base_url=self.url + "/v1", timeout=30)
        self.sessions = 0

    def play(self, sessions: int, steps: int) -> tuple[float, float]:
        """Wall and server CPU seconds per request over ``sessions`` conversations."""
        cpu0, t0, n = cpu_seconds(self.proc.pid), time.perf_counter(), 0
        for _ in range(sessions):
            self.sessions += 1
            headers = {"authorization": f"Bearer bench-{self.sessions}"}
            messages: list[dict[str, Any]] = [{"role": "user", "content": "fix the failing tests"}]
            for _ in range(steps + 1):
                r = self.client.post("/chat/completions", json={"model": "m", "messages": messages, "tools": [
                    {"type": "function", "function": {"name": "bash", "parameters": {"type": "object"}}}]},
                    headers=headers)
                n += 1
                msg = r.json()["choices"][0]["message"]
                messages.append(msg)
                for call in msg.get("tool_calls") or []:
                    messages.append({"role": "tool", "tool_call_id": call["id"], "content": "1 passed"})
        wall = time.perf_counter() - t0
        time.sleep(0.7)  # the exporter's batch (every 0.5 s) of these requests is counted in this round
        return wall / n, (cpu_seconds(self.proc.pid) - cpu0) / n

    def close(self) -> None:
        self.client.close()
        self.proc.terminate()
        self.proc.wait(30)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--steps", type=int, default=25)
    ap.add_argument("--sessions", type=int, default=8)
    args = ap.parse_args()
    sink = ThreadingHTTPServer(("127.0.0.1", 0), _Sink)
    threading.Thread(target=sink.serve_forever, daemon=True).start()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.yaml"
        path.write_text(scenario(args.steps))
        env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
        off = Server(path, env)
        on = Server(path, {**env, "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{sink.server_address[1]}"},
                    "--otel")
        cpu: dict[str, list[float]] = {"off": [], "on": []}

        def measure(name: str, server: Server) -> float:
            wall, used = server.play(args.sessions, args.steps)
            cpu[name].append(used)
            return wall

        try:
            walls = run_rounds({"off": lambda: measure("off", off), "on": lambda: measure("on", on)}, args.rounds)
        finally:
            off.close()
            on.close()
            sink.shutdown()
    wall = {k: statistics.median(v) * 1000 for k, v in walls.items()}
    cpu_ms = {k: statistics.median(v) * 1000 for k, v in cpu.items()}
    n = args.sessions * (args.steps + 1)
    print(f"{n} requests per round, {args.rounds} rounds interleaved, {args.steps} tool calls per session; "
          f"{_Sink.exports} OTLP exports received")
    for label, f in (("client wall", wall), ("server CPU ", cpu_ms)):
        print(f"{label} ms/request: off {f['off']:.3f}, on {f['on']:.3f}, added {f['on'] - f['off']:+.3f}")


if __name__ == "__main__":
    main()
