"""autocue's mock server side by side with aimock (npm ``@copilotkit/aimock``), for bench_mockllm.

Both servers run as the user runs them: ``autocue serve SCENARIO.yaml --port P`` and aimock's
``llmock -p P -f FIXTURES.json`` (aimock installed by ``npm install`` into a temp dir, or
``--aimock-dir``), each in its own process, started fresh for every measurement and
alternated: autocue, aimock, autocue, aimock, ... so a change of machine speed hits both.
Both script the same replies: autocue an ordered scenario per session, aimock one fixture per
``turnIndex`` (the number of assistant messages in the request), its way of telling the
steps of a tool loop apart.

1. Start-up to first answer: from ``Popen`` to the first 200 answer to a chat request
   (polled every millisecond); median of ``--start-rounds`` alternated starts (default 15).
2. Server CPU per request with 50 concurrent clients on short conversations (a prompt, a
   tool call, its result, the final text: two requests, a fresh session key each), from
   ``/proc/PID/stat`` (user + system) over the run; median of the rounds.
3. Memory over many requests with fresh session keys: the server's RSS (``/proc/PID/status``)
   at checkpoints.
4. The agent-loop step: N = 200 and 800 sequential tool-call steps on one conversation,
   growing as a real agent's (bench_mockllm's client loop), server CPU and wall time per step.
5. Warm: server CPU per request after ``--warm-requests`` (20,000) warm-up requests (aimock's
   JIT has compiled by then), over ``--warm-measured`` more, from a cheap raw-socket client
   (50 keep-alive connections, pre-built requests: short conversations with fresh keys), so
   the server, not the client, is the bound; the same fresh server measured, median of rounds.

More sides (``--sides``): ``autocue-uvicorn`` is this checkout on uvicorn's own httptools
protocol (what served before ``mockllm/protocol.py``), ``autocue-before`` the checkout whose
``src`` is ``--before-src`` (e.g. main's), both alternated with the others in the same rounds.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx2
import orjson

AIMOCK = "@copilotkit/aimock@1.43"
PROMPT = "fix the failing test"
TOOLS = [{"type": "function", "function": {"name": "bash", "parameters": {"type": "object"}}}]
SERVERS: tuple[str, ...] = ("autocue", "aimock")
SIDES = ("autocue", "autocue-uvicorn", "autocue-before", "aimock")
BEFORE_SRC: Path | None = None
"""The ``src`` of the ``autocue-before`` side."""
_UVICORN_PROTOCOL = ("import sys, autocue.mockllm.server as s; "
                     "s.PARSERS['httptools'] = lambda: s.TransportHttpToolsProtocol; "
                     "from autocue.cli.main import main; sys.exit(main())")


# ---------------------------------------------------------------------------- set-up

def install_aimock(root: Path) -> Path:
    """aimock's ``llmock`` CLI under ``root`` (``npm install`` there unless it is already)."""
    cli = root / "node_modules" / ".bin" / "llmock"
    if not cli.exists():
        npm = shutil.which("npm")
        if npm is None:
            raise SystemExit("--aimock needs npm (Node.js) on PATH")
        root.mkdir(parents=True, exist_ok=True)
        print(f"installing {AIMOCK} into {root} ...", flush=True)
        subprocess.run([npm, "install", "--prefix", str(root), "--no-audit", "--no-fund", "--silent", AIMOCK],
                       check=True, timeout=600)
    return cli


def aimock_version(root: Path) -> str:
    pkg = root / "node_modules" / "@copilotkit" / "aimock" / "package.json"
    version: str = json.loads(pkg.read_text())["version"]
    return version


def step_text(i: int) -> str:
    return f"Step {i}: running the next command."


def step_args(i: int) -> dict[str, Any]:
    return {"command": f"pytest -x tests/test_{i}.py", "timeout": 60}


def write_scenario(path: Path, n: int) -> Path:
    """An autocue scenario: ``n`` tool-call replies, then the final text."""
    lines = [f"name: tools-{n}", f"initialPrompt: {json.dumps(PROMPT)}", "timeline:"]
    for i in range(n):
        lines += ["  - llmResponse:", f"      - assistant: [[0, {json.dumps(step_text(i))}]]",
                  f"      - agentToolUse: {{toolName: bash, args: {json.dumps(step_args(i))}}}"]
    lines += ["  - llmResponse:", '      - assistant: [[0, "All tests pass now."]]']
    path.write_text("\n".join(lines) + "\n")
    return path


def write_fixtures(path: Path, n: int) -> Path:
    """The same replies for aimock: one fixture per ``turnIndex``."""
    fixtures: list[dict[str, Any]] = [
        {"match": {"turnIndex": i},
         "response": {"content": step_text(i), "toolCalls": [{"name": "bash", "arguments": step_args(i)}]}}
        for i in range(n)]
    fixtures.append({"match": {"turnIndex": n}, "response": {"content": "All tests pass now."}})
    path.write_text(json.dumps({"fixtures": fixtures}))
    return path


def autocue_command() -> list[str]:
    exe = Path(sys.executable).parent / "autocue"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "autocue.cli.main"]


def server_env(tmp: Path) -> dict[str, str]:
    """The servers' environment: Python bytecode cached under ``tmp`` as an installed package
    has it (``PYTHONDONTWRITEBYTECODE=1`` would make every autocue start compile its sources;
    the first start of a run writes the cache, and is not measured)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
    return env


class Server:
    """One server process on a free port (``kind``: autocue or aimock) serving ``n`` steps."""

    def __init__(self, kind: str, n: int, tmp: Path, aimock_cli: Path) -> None:
        from bench_mockllm import free_port

        self.kind = kind
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        if kind not in SIDES:
            raise SystemExit(f"unknown side {kind!r}: use {', '.join(SIDES)}")
        scenario = tmp / f"tools-{n}.yaml"
        if kind.startswith("autocue") and not scenario.exists():
            write_scenario(scenario, n)
        cmd = [*autocue_command(), "serve", str(scenario), "--port", str(self.port)]
        if kind == "autocue-uvicorn":
            cmd = [sys.executable, "-c", _UVICORN_PROTOCOL, "serve", str(scenario), "--port", str(self.port)]
        if kind == "aimock":
            fixtures = tmp / f"aimock-{n}.json"
            if not fixtures.exists():
                write_fixtures(fixtures, n)
            cmd = ["node", str(aimock_cli), "-p", str(self.port), "-f", str(fixtures), "--log-level", "silent"]
        self.t0 = time.perf_counter()
        env = server_env(tmp)
        if kind == "autocue-before":
            if BEFORE_SRC is None:
                raise SystemExit("the autocue-before side needs --before-src")
            env["PYTHONPATH"] = str(BEFORE_SRC)
            env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache-before")
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, env=env)

    def first_answer(self, timeout: float = 30.0) -> float:
        """Seconds from ``Popen`` to the first 200 answer to a chat request."""
        body = orjson.dumps({"model": "m", "messages": [{"role": "user", "content": PROMPT}], "tools": TOOLS})
        deadline = self.t0 + timeout
        with httpx2.Client(timeout=5) as client:
            while time.perf_counter() < deadline:
                try:
                    r = client.post(self.base + "/v1/chat/completions", content=body,
                                    headers={"authorization": "Bearer start", "content-type": "application/json"})
                except httpx2.TransportError:
                    if self.proc.poll() is not None:
                        break
                    time.sleep(0.001)
                    continue
                if r.status_code != 200:
                    raise RuntimeError(f"{self.kind}: HTTP {r.status_code}: {r.text[:300]}")
                return time.perf_counter() - self.t0
        err = self.proc.stderr.read().decode(errors="replace")[-2000:] if self.proc.poll() is not None and \
            self.proc.stderr is not None else ""
        raise RuntimeError(f"{self.kind} did not answer within {timeout:.0f} s {err}")

    def cpu(self) -> float:
        from bench_mockllm import cpu_seconds

        got = cpu_seconds(self.proc.pid)
        return got if got is not None else float("nan")

    def rss_mb(self) -> float:
        try:
            for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        except OSError:
            pass
        return float("nan")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stderr is not None:
            self.proc.stderr.close()

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


# ---------------------------------------------------------------------------- workloads

async def short_conversations(base: str, clients: int, conversations: int, prefix: str,
                              on_progress: Callable[[int], None] | None = None) -> int:
    """``conversations`` two-request tool loops over ``clients`` connections, a fresh session
    key each; returns the number of requests."""
    limits = httpx2.Limits(max_connections=clients, max_keepalive_connections=clients)
    done = 0
    next_conv = 0
    async with httpx2.AsyncClient(timeout=60, limits=limits) as client:
        async def worker() -> None:
            nonlocal done, next_conv
            while next_conv < conversations:
                k = next_conv
                next_conv += 1
                headers = {"authorization": f"Bearer {prefix}-{k}", "content-type": "application/json"}
                messages: list[Any] = [{"role": "user", "content": PROMPT}]
                r = await client.post(base + "/v1/chat/completions", headers=headers,
                                      content=orjson.dumps({"model": "m", "messages": messages, "tools": TOOLS}))
                assert r.status_code == 200, r.text
                msg = r.json()["choices"][0]["message"]
                call = msg["tool_calls"][0]
                messages += [msg, {"role": "tool", "tool_call_id": call["id"], "content": "1 passed"}]
                r = await client.post(base + "/v1/chat/completions", headers=headers,
                                      content=orjson.dumps({"model": "m", "messages": messages, "tools": TOOLS}))
                assert r.status_code == 200 and r.json()["choices"][0]["message"]["content"] == \
                    "All tests pass now.", r.text
                done += 2
                if on_progress is not None:
                    on_progress(done)

        await asyncio.gather(*(worker() for _ in range(clients)))
    return done


def _raw_request(port: int, key: str, second: bool) -> bytes:
    messages: list[Any] = [{"role": "user", "content": PROMPT}]
    if second:
        call = {"id": "call_1", "type": "function", "function": {"name": "bash", "arguments": "{}"}}
        messages += [{"role": "assistant", "content": step_text(0), "tool_calls": [call]},
                     {"role": "tool", "tool_call_id": "call_1", "content": "1 passed"}]
    body = orjson.dumps({"model": "m", "messages": messages, "tools": TOOLS})
    return (f"POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\nauthorization: Bearer {key}\r\n"
            f"content-type: application/json\r\ncontent-length: {len(body)}\r\n\r\n").encode() + body


class _RawClient(asyncio.Protocol):
    """One keep-alive connection sending pre-built requests one after another."""

    def __init__(self, requests: list[bytes], done: asyncio.Future[None]) -> None:
        self.requests = requests
        self.done = done
        self.buf = b""
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self._next()

    def _next(self) -> None:
        assert self.transport is not None
        if not self.requests:
            self.transport.close()
            if not self.done.done():
                self.done.set_result(None)
            return
        self.transport.write(self.requests.pop())

    def data_received(self, data: bytes) -> None:
        self.buf += data
        while True:
            end = self.buf.find(b"\r\n\r\n")
            if end < 0:
                return
            head = self.buf[:end].lower()
            if not head.startswith(b"http/1.1 200"):
                raise RuntimeError(f"raw client: {self.buf[:300]!r}")
            at = head.find(b"content-length:")
            if at >= 0:
                size = int(head[at + 15:head.find(b"\r\n", at) if head.find(b"\r\n", at) > 0 else None])
                if len(self.buf) < end + 4 + size:
                    return
                self.buf = self.buf[end + 4 + size:]
            else:  # chunked
                stop = self.buf.find(b"\r\n0\r\n\r\n", end)
                if stop < 0:
                    return
                self.buf = self.buf[stop + 7:]
            self._next()

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.done.done():
            self.done.set_exception(RuntimeError(f"raw client: connection lost ({exc}) with "
                                                 f"{len(self.requests)} requests to send"))


async def raw_requests(port: int, count: int, prefix: str, conns: int = 50) -> int:
    """``count`` requests (two-request conversations, a fresh key each) over ``conns``
    keep-alive connections, built before they are sent; returns the number sent."""
    loop = asyncio.get_running_loop()
    per = [[] for _ in range(conns)]  # type: list[list[bytes]]
    for k in range(count // 2):
        key = f"{prefix}-{k}"
        per[k % conns] += [_raw_request(port, key, True), _raw_request(port, key, False)]  # popped from the end
    futures = []
    for requests in per:
        done: asyncio.Future[None] = loop.create_future()
        futures.append(done)
        await loop.create_connection(lambda r=requests, d=done: _RawClient(r, d), "127.0.0.1", port)
    await asyncio.gather(*futures)
    return 2 * (count // 2)


def state_memory(tmp: Path, requests: int, max_sessions: int | None = None) -> None:
    """RSS of this process while autocue's ``MockState`` (the server without HTTP) answers
    ``requests`` requests of short conversations with fresh session keys: what the session
    bound keeps flat, at a rate HTTP on this machine cannot reach (1,000,000 in minutes)."""
    import gc

    from autocue.mockllm.incoming import Incoming
    from autocue.mockllm.options import MAX_SESSIONS, ServerOptions
    from autocue.mockllm.state import MockState

    scenario = write_scenario(tmp / "memory.yaml", 1)
    cap = MAX_SESSIONS if max_sessions is None else max_sessions
    state = MockState([scenario], ServerOptions(max_sessions=cap))
    headers = {"host": "127.0.0.1", "content-type": "application/json", "user-agent": "bench"}
    call = {"id": "call_1", "type": "function", "function": {"name": "bash", "arguments": "{}"}}

    def ask(key: str, messages: list[Any]) -> None:
        body = {"model": "m", "messages": messages, "tools": TOOLS}
        req = Incoming(api="chat", body=body, headers={**headers, "authorization": f"Bearer {key}"},
                       path="/v1/chat/completions", raw_size=300, stream=False, model="m", session_key=key,
                       scenario=None, profile=None, query={})
        assert state.respond(req).status == 200

    def rss() -> float:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    marks: list[tuple[int, float, int]] = []
    step = max(2, requests // 10)
    t0 = time.perf_counter()
    for k in range(requests // 2):
        key = f"mem-{k}"
        first: list[Any] = [{"role": "user", "content": PROMPT}]
        ask(key, first)
        ask(key, [*first, {"role": "assistant", "content": step_text(0), "tool_calls": [call]},
                  {"role": "tool", "tool_call_id": "call_1", "content": "1 passed"}])
        if (2 * k + 2) % step == 0:
            gc.collect()
            marks.append((2 * k + 2, rss(), len(state.sessions)))
    shown = ", ".join(f"{n // 1000:,}k {mb:.0f}" for n, mb, _ in marks)
    print(f"  memory of MockState without HTTP (RSS MB after N requests, fresh session keys, max_sessions {cap}): "
          f"{shown}; {marks[-1][2] if marks else 0} sessions kept, {state.expired:,} expired; "
          f"{(time.perf_counter() - t0) * 1e6 / max(1, requests):.0f} µs/request", flush=True)


def _median(xs: list[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def run(tmp: Path, aimock_root: Path, *, rounds: int, conversations: int, memory_requests: int,
        loop_ns: list[int], client_file: Path, start_rounds: int = 15, warm_requests: int = 20_000,
        warm_measured: int = 20_000, sides: tuple[str, ...] = SERVERS, measures: str = "start,cpu,memory,loop,warm",
        before_src: Path | None = None) -> None:
    from bench_mockllm import run_client

    global SERVERS, BEFORE_SRC
    SERVERS, BEFORE_SRC = sides, before_src
    want = set(measures.split(","))
    cli = install_aimock(aimock_root)
    print(f"\nside by side with aimock {aimock_version(aimock_root)} (node {_node_version()}), alternating the "
          f"servers, {rounds} rounds; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs", flush=True)

    # 1. start-up to first answer (one start of each first, unmeasured: caches, page cache)
    if "start" in want:
        _startup(tmp, cli, start_rounds)
    if "cpu" in want:
        _cpu(tmp, cli, rounds, conversations)
    if "memory" in want and memory_requests:
        _memory(tmp, cli, memory_requests)
    if "loop" in want:
        _loop(tmp, cli, rounds, loop_ns, client_file, run_client)
    if "warm" in want and warm_requests + warm_measured:
        _warm(tmp, cli, rounds, warm_requests, warm_measured)


def _ratios(values: dict[str, list[float]], fmt: str = "{:.3f}") -> str:
    """Each side's median, and each other side's ratio to aimock (or to the last side)."""
    base = "aimock" if "aimock" in values else SERVERS[-1]
    shown = ", ".join(f"{k} {fmt.format(_median(v))}" for k, v in values.items())
    ratios = ", ".join(f"{k} / {base} {_median(v) / _median(values[base]):.2f}x" for k, v in values.items()
                       if k != base)
    return f"{shown}; {ratios}"


def _warm(tmp: Path, cli: Path, rounds: int, warm: int, measured: int) -> None:
    cpu: dict[str, list[float]] = {k: [] for k in SERVERS}
    rps: dict[str, list[float]] = {k: [] for k in SERVERS}
    for r in range(rounds):
        for kind in (SERVERS if r % 2 == 0 else SERVERS[::-1]):
            with Server(kind, 1, tmp, cli) as s:
                s.first_answer()
                asyncio.run(raw_requests(s.port, warm, f"w{r}"))
                c0, t0 = s.cpu(), time.perf_counter()
                n = asyncio.run(raw_requests(s.port, measured, f"m{r}"))
                c1, t1 = s.cpu(), time.perf_counter()
                cpu[kind].append((c1 - c0) * 1e6 / n)
                rps[kind].append(n / (t1 - t0))
    print(f"  warm: server CPU µs per request after {warm:,} warm-up requests, {measured:,} measured (raw-socket "
          f"client, 50 connections, short conversations, fresh keys), median of {rounds} rounds: "
          f"{_ratios(cpu, '{:.1f}')} (requests/s: {', '.join(f'{k} {_median(v):,.0f}' for k, v in rps.items())})",
          flush=True)


def _startup(tmp: Path, cli: Path, start_rounds: int) -> None:
    for kind in SERVERS:
        with Server(kind, 1, tmp, cli) as s:
            s.first_answer()
    starts: dict[str, list[float]] = {k: [] for k in SERVERS}
    for _ in range(start_rounds):
        for kind in SERVERS:
            with Server(kind, 1, tmp, cli) as s:
                starts[kind].append(s.first_answer())
    ms = {k: [x * 1000 for x in v] for k, v in starts.items()}
    print(f"  start-up to first answer (median of {start_rounds} starts, ms): {_ratios(ms, '{:.0f}')}", flush=True)


def _cpu(tmp: Path, cli: Path, rounds: int, conversations: int) -> None:
    # 2. server CPU per request, 50 concurrent clients, short conversations
    cpu: dict[str, list[float]] = {k: [] for k in SERVERS}
    rps: dict[str, list[float]] = {k: [] for k in SERVERS}
    for r in range(rounds):
        for kind in SERVERS:
            with Server(kind, 1, tmp, cli) as s:
                s.first_answer()
                asyncio.run(short_conversations(s.base, 50, 100, f"warm{r}"))
                c0, t0 = s.cpu(), time.perf_counter()
                n = asyncio.run(short_conversations(s.base, 50, conversations, f"c{r}"))
                c1, t1 = s.cpu(), time.perf_counter()
                cpu[kind].append((c1 - c0) / n)
                rps[kind].append(n / (t1 - t0))
    ms = {k: [x * 1000 for x in v] for k, v in cpu.items()}
    print(f"  server CPU s per 1,000 requests, 50 concurrent clients, {conversations:,} short conversations "
          f"(2 requests, fresh key each), median: {_ratios(ms)} (requests/s: "
          f"{', '.join(f'{k} {_median(v):,.0f}' for k, v in rps.items())}; the client shares the machine)", flush=True)


def _memory(tmp: Path, cli: Path, memory_requests: int) -> None:
    # 3. memory over many requests with fresh session keys
    if memory_requests:
        for kind in SERVERS:
            with Server(kind, 1, tmp, cli) as s:
                s.first_answer()
                marks: list[tuple[int, float]] = [(0, s.rss_mb())]
                step = max(2, memory_requests // 10)

                def progress(done: int, s: Server = s, marks: list[tuple[int, float]] = marks,
                             step: int = step) -> None:
                    if done // step > (done - 2) // step:
                        marks.append((done, s.rss_mb()))

                asyncio.run(short_conversations(s.base, 50, memory_requests // 2, "mem", progress))
                shown = ", ".join(f"{n // 1000:,}k {mb:.0f}" for n, mb in marks)
                print(f"  memory (RSS MB after N requests, fresh session keys) {kind}: {shown}", flush=True)

def _loop(tmp: Path, cli: Path, rounds: int, loop_ns: list[int], client_file: Path,
          run_client: Callable[..., dict[str, Any]]) -> None:
    # 4. agent-loop step cost
    for n in loop_ns:
        per: dict[str, list[float]] = {k: [] for k in SERVERS}
        wall: dict[str, list[float]] = {k: [] for k in SERVERS}
        for r in range(rounds):
            for kind in (SERVERS if r % 2 == 0 else SERVERS[::-1]):
                with Server(kind, n, tmp, cli) as s:
                    s.first_answer()
                    cfg = {"api": "chat", "n": n, "stream": False, "workload": "tool", "prompt": PROMPT,
                           "url": f"{s.base}/v1/chat/completions", "headers": {"authorization": f"Bearer loop{r}"}}
                    c0 = s.cpu()
                    got = run_client(sys.executable, cfg, client_file)
                    per[kind].append((s.cpu() - c0) * 1000 / n)
                    wall[kind].append(got["ms_per_step"])
        print(f"  agent loop N = {n}: server CPU ms/step {_ratios(per)}; wall ms/step "
              f"{', '.join(f'{k} {_median(v):.3f}' for k, v in wall.items())}", flush=True)


def _node_version() -> str:
    try:
        return subprocess.run(["node", "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
    except OSError:
        return "?"
