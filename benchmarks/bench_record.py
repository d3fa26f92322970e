"""Cost of recording and of strict replay, side by side with vcrpy in the same run.

Run: ``python benchmarks/bench_record.py [--requests N] [--rounds R] [--sessions 10,1000,10000]
[--turns 1000]``. Prints figures; asserts nothing (targets: the proxy adds ≤ 1.0× vcrpy's time per
request, flat from 10 to 10,000 sessions; a 1,000-turn recording replays in < 2 s of the server's CPU).

1. **Recording.** The upstream is ``autocue serve`` and the proxy ``autocue record`` (each its own
   process, as a user runs them). The official openai SDK sends streamed Chat Completions requests,
   each under a fresh API key (a new session, so every request is recorded), three ways, one request
   of each in turn (the order rotating), so that every side meets the same load of a shared
   machine: straight to the upstream, through the proxy, and straight to the upstream inside
   ``vcr.use_cassette`` (record mode ``all``, a new cassette per request, written when the cassette
   closes: what vcrpy users pay). Added time = a side's median minus the direct median. Measured
   after the proxy has recorded each of ``--sessions`` sessions in all (filler sessions in between),
   with the proxy process's CPU per request (``clock_getcpuclockid``: all its threads, over the whole
   checkpoint).
2. **Strict replay.** A recording of ``--turns`` model replies (an agent loop: each request carries the
   whole conversation; written by autocue's recording writer with request fingerprints) is replayed
   by two ``autocue serve`` processes, ``--match strict`` and ``--match off``, request by request in
   alternation; the figure is each server process's CPU time for the whole replay.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx2

SCENARIO = """\
name: bench
initialPrompt: hello
timeline:
  - llmResponse:
      - assistant: [[0, "Hello! This is a short streamed reply of a few words."]]
"""
MESSAGES: Any = [{"role": "user", "content": "hello"}]


def _start(args: list[str], log: Path) -> tuple[subprocess.Popen[bytes], str]:
    """An ``autocue`` command whose stdout goes to a file (a pipe nobody reads would fill up)."""
    out = log.open("wb")
    proc = subprocess.Popen([sys.executable, "-m", "autocue.cli.main", *args, "--json"], stdout=out,
                            stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        first = log.read_text().partition("\n")
        if first[1]:
            return proc, str(json.loads(first[0])["url"])
        if proc.poll() is not None:
            break
        time.sleep(0.02)
    raise SystemExit(f"could not start autocue {args[0]}")


_LIBC: Any = None


def _cpu(pid: int) -> float:
    """CPU seconds of process ``pid`` (all threads; ``clock_getcpuclockid``: ns resolution, not /proc's ticks)."""
    global _LIBC
    import ctypes
    import ctypes.util

    if _LIBC is None:
        _LIBC = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    clock = ctypes.c_int()
    if _LIBC.clock_getcpuclockid(pid, ctypes.byref(clock)) != 0:
        raise OSError(f"clock_getcpuclockid({pid}) failed")
    return time.clock_gettime(clock.value)


def _timed(call: Any) -> float:
    t0 = time.perf_counter()
    call()
    return time.perf_counter() - t0


def _ask(client: Any, key: str) -> None:
    stream = client.chat.completions.create(model="m", messages=MESSAGES, stream=True,
                                            extra_headers={"authorization": f"Bearer {key}"})
    for _ in stream:
        pass


def recording_cost(requests: int, rounds: int, checkpoints: list[int]) -> None:
    import openai
    import vcr

    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        (root / "bench.yaml").write_text(SCENARIO)
        upstream, up_url = _start(["serve", str(root / "bench.yaml"), "--max-sessions", "100"], root / "up.log")
        proxy, proxy_url = _start(["record", "--upstream", up_url, "-o", str(root / "rec")], root / "proxy.log")
        cassettes = root / "cassettes"
        cassettes.mkdir()
        recorder = vcr.VCR(record_mode="all")
        direct = openai.OpenAI(base_url=up_url + "/v1", api_key="bench", max_retries=0)
        proxied = openai.OpenAI(base_url=proxy_url + "/v1", api_key="bench", max_retries=0)
        n = 0

        def key() -> str:
            nonlocal n
            n += 1
            return f"bench-key-{n:08d}"

        def with_vcr() -> None:
            k = key()
            with recorder.use_cassette(str(cassettes / f"{k}.yaml")):
                _ask(direct, k)

        sessions = 0
        print(f"recording: {rounds * requests} openai-SDK streamed chat requests per side, one of each side in turn; "
              "each request a new session")
        try:
            with httpx2.Client(timeout=30) as raw:
                for _ in range(10):  # warm-up, every side
                    _ask(direct, key())
                    _ask(proxied, key())
                    with_vcr()
                    sessions += 1
                for target in checkpoints:
                    while sessions < target - rounds * requests:  # filler sessions, recorded by the proxy
                        raw.post(proxy_url + "/v1/chat/completions", json={"model": "m", "messages": MESSAGES},
                                 headers={"authorization": f"Bearer {key()}"})
                        sessions += 1
                    times: dict[str, list[float]] = {"direct": [], "proxy": [], "vcrpy": []}
                    c0 = _cpu(proxy.pid)
                    for i in range(rounds * requests):
                        order = ["direct", "proxy", "vcrpy"]
                        for side in order[i % 3:] + order[:i % 3]:
                            if side == "direct":
                                times[side].append(_timed(lambda: _ask(direct, key())))
                            elif side == "vcrpy":
                                times[side].append(_timed(with_vcr))
                            else:
                                times[side].append(_timed(lambda: _ask(proxied, key())))
                                sessions += 1
                    cpu = _cpu(proxy.pid) - c0  # the proxy's only work meanwhile is its requests
                    med = {k: statistics.median(v) * 1000 for k, v in times.items()}
                    a_proxy, a_vcr = med["proxy"] - med["direct"], med["vcrpy"] - med["direct"]
                    ratio = a_proxy / a_vcr if a_vcr > 0 else float("inf")
                    print(f"  after {sessions:6d} sessions recorded: direct {med['direct']:6.3f} ms; added by "
                          f"proxy {a_proxy:6.3f} ms, by vcrpy {a_vcr:6.3f} ms: proxy/vcrpy {ratio:4.2f} "
                          f"(target ≤ 1.0: {'met' if ratio <= 1.0 else 'MISSED'}); proxy CPU "
                          f"{cpu / (rounds * requests) * 1000:6.3f} ms/request")
        finally:
            for p in (proxy, upstream):
                p.terminate()
                p.wait(10)
        recorded = len(list((root / "rec").glob("*.yaml")))
        print(f"  sessions recorded by the proxy: {recorded}")


# ---------------------------------------------------------------------------- strict replay


def long_recording(path: Path, turns: int) -> list[bytes]:
    """A recording of ``turns`` replies of an agent loop (each request carries the whole conversation:
    the user's prompt, then per turn the assistant's tool call and its result), written with autocue's
    recording writer and request fingerprints exactly as ``autocue record`` writes them; the request
    bodies the agent sends, in order."""
    from autocue.llm.types import AssistantMessage, TextContent, ToolCall
    from autocue.mockllm.fingerprint import Conversation, fingerprint
    from autocue.mockllm.incoming import Incoming
    from autocue.scenario.redact import Redactor
    from autocue.scenario.writer import Recording, TimedReply

    tools = [{"type": "function", "function": {"name": "bash", "description": "run a command",
                                               "parameters": {"type": "object"}}}]
    rec = Recording(path.stem, Redactor(), match="strict")
    conv = Conversation()
    prev = None
    msgs: list[Any] = [{"role": "system", "content": "You are a coding agent."},
                       {"role": "user", "content": "count the files, one directory at a time"}]
    bodies: list[bytes] = []
    import orjson

    for t in range(turns):
        body = {"model": "gpt-bench", "messages": list(msgs), "tools": tools}
        raw = orjson.dumps(body)
        bodies.append(raw)
        req = Incoming(api="chat", body=orjson.loads(raw), headers={}, path="/v1/chat/completions",
                       raw_size=len(raw), stream=False, model="gpt-bench", session_key="bench")
        fp = fingerprint(req, conv)
        rec.request(req.first_user_text(), req.last_user_text(), fp.to_json(prev))
        prev = fp
        if t < turns - 1:
            cid = f"call_{t}"
            msg = AssistantMessage([TextContent(f"Step {t}."), ToolCall(cid, "bash", {"command": f"ls dir{t}"})])
            rec.reply(TimedReply(msg, [0.0, 0.0], 0.0))
            msgs.append({"role": "assistant", "content": f"Step {t}.", "tool_calls": [
                {"id": cid, "type": "function", "function": {"name": "bash", "arguments":
                                                             orjson.dumps({"command": f"ls dir{t}"}).decode()}}]})
            msgs.append({"role": "tool", "tool_call_id": cid, "content": f"{t} files"})
        else:
            rec.reply(TimedReply(AssistantMessage([TextContent("Done.")]), [0.0], 0.0))
    rec.write(path)
    return bodies


def replay_cost(turns: int) -> None:
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        path = root / "long.yaml"
        t0 = time.perf_counter()
        bodies = long_recording(path, turns)
        size = path.stat().st_size
        sent = sum(len(b) for b in bodies)
        print(f"strict replay: a recording of {turns} replies ({size / 1024:.0f} KiB; the agent sends "
              f"{sent / 1e6:.1f} MB of requests in all), written in {time.perf_counter() - t0:.2f} s")
        servers = {m: _start(["serve", str(path), "--match", m], root / f"{m}.log") for m in ("strict", "off")}
        cpu = {m: 0.0 for m in servers}
        errors = {m: 0 for m in servers}
        try:
            with httpx2.Client(timeout=60) as client:
                for i, body in enumerate(bodies):
                    for m in (("strict", "off") if i % 2 == 0 else ("off", "strict")):
                        proc, url = servers[m]
                        c0 = _cpu(proc.pid)
                        r = client.post(url + "/v1/chat/completions", content=body,
                                        headers={"authorization": "Bearer replay", "content-type": "application/json"})
                        cpu[m] += _cpu(proc.pid) - c0
                        errors[m] += r.status_code != 200
        finally:
            for proc, _ in servers.values():
                proc.terminate()
                proc.wait(10)
        for m in ("strict", "off"):
            print(f"  --match {m:6s}: server CPU {cpu[m]:6.3f} s for {turns} replies ({cpu[m] / turns * 1000:6.3f} "
                  f"ms/request), {errors[m]} error replies")
        extra = (cpu["strict"] - cpu["off"]) / turns * 1000
        print(f"  strict matching adds {extra:6.3f} ms of server CPU per request; the strict replay of {turns} turns "
              f"takes {cpu['strict']:.2f} s of server CPU (target < 2 s at 1,000 turns: "
              f"{'met' if cpu['strict'] < 2 * turns / 1000 else 'MISSED'})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--requests", type=int, default=40, help="requests per side per round (default 40)")
    ap.add_argument("--rounds", type=int, default=3,
                    help="rounds per checkpoint (default 3): rounds × requests requests per side, interleaved")
    ap.add_argument("--sessions", default="10,1000,10000",
                    help="measure after the proxy has recorded this many sessions (default 10,1000,10000)")
    ap.add_argument("--turns", type=int, default=1000, help="replies in the strict-replay recording (default 1000)")
    args = ap.parse_args()
    os.environ.setdefault("PYTHONHASHSEED", "0")
    checkpoints = sorted(int(s) for s in args.sessions.split(",") if s.strip())
    recording_cost(args.requests, args.rounds, checkpoints)
    replay_cost(args.turns)


if __name__ == "__main__":
    main()
