"""Benchmark: the in-process transport (``autocue.testing.MockLLM``) against the same scenario
over loopback HTTP (``autocue.mockllm.serve``, in this process) and against ``respx`` returning a
canned response, in one run, the sides alternated round after round (``interleaved.py``).

    python benchmarks/bench_transport.py [--rounds R] [--requests N]

Per request, in microseconds (median over rounds; the ratio is the median of the per-round ratios):

- warm: N chat requests on one client, each taking the next scripted reply of one session
  (whole JSON, then streamed SSE); ``httpx2`` for the transport and HTTP, ``httpx`` 0.28 for
  the transport and ``respx`` (respx mocks httpx 0.28 only), so each pair shares its client;
- cold: a new client (a new connection; a new private event loop for the transport) and a new
  session for every request (the HTTP clients share one TLS context: building one costs ~20 ms);
- openai: the official ``openai`` client's ``chat.completions.create`` on the transport and on HTTP.

Targets (issue 30): transport ≤ 0.5 × HTTP, ≤ 2 × respx. respx: ``pip install 'autocue[bench]'``.
"""

from __future__ import annotations

import argparse
import ssl
import statistics
import time
from collections.abc import Callable
from itertools import count
from typing import Any

import httpx
import httpx2
import openai
from interleaved import ratio_in_rounds, run_rounds

from autocue.llm.types import TextContent
from autocue.mockllm import MockLLMServer, serve
from autocue.script import Script, ScriptedResponse, Turn
from autocue.testing import MockLLM

PROMPT = "fix the failing test"
REPLY = "Done: the test passes now, and I checked the other tests in the module too."
CANNED = {"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "m",
          "choices": [{"index": 0, "message": {"role": "assistant", "content": REPLY}, "finish_reason": "stop"}],
          "usage": {"prompt_tokens": 5, "completion_tokens": 15, "total_tokens": 20}}
keys = count()


def script(n: int) -> Script:
    return Script([Turn(PROMPT, [ScriptedResponse([TextContent(REPLY)]) for _ in range(n)])], name="bench")


def body(stream: bool) -> dict[str, Any]:
    return {"model": "m", "stream": stream, "messages": [{"role": "user", "content": PROMPT}]}


def per_request(n: int, one: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    for _ in range(n):
        one()
    return (time.perf_counter() - t0) / n * 1e6


def warm(client: httpx2.Client | httpx.Client, url: str, n: int, stream: bool) -> Callable[[], float]:
    def measure() -> float:
        headers = {"authorization": f"Bearer k{next(keys)}"}  # a fresh session: n replies to take
        data = body(stream)

        def one() -> None:
            r = client.post(url + "/chat/completions", json=data, headers=headers)
            assert r.status_code == 200, r.text
            r.read()
        return per_request(n, one)
    return measure


def cold(make: Callable[[], httpx2.Client], url: str, n: int) -> Callable[[], float]:
    def measure() -> float:
        def one() -> None:
            with make() as client:
                r = client.post(url + "/chat/completions", json=body(False),
                                headers={"authorization": f"Bearer k{next(keys)}"})
                assert r.status_code == 200, r.text
        return per_request(n, one)
    return measure


def sdk(make: Callable[[str], openai.OpenAI], n: int) -> Callable[[], float]:
    def measure() -> float:
        c = make(f"k{next(keys)}")

        def one() -> None:
            r = c.chat.completions.create(model="m", messages=[{"role": "user", "content": PROMPT}])
            assert r.choices[0].message.content == REPLY
        return per_request(n, one)
    return measure


def respx_side(n: int) -> Callable[[], float] | None:
    try:
        import respx
    except ModuleNotFoundError:
        return None
    router = respx.mock(base_url="http://respx.test", assert_all_called=False)
    router.post("/v1/chat/completions").respond(200, json=CANNED)
    router.start()
    client = httpx.Client()
    data = body(False)

    def measure() -> float:
        def one() -> None:
            r = client.post("http://respx.test/v1/chat/completions", json=data)
            assert r.status_code == 200
        return per_request(n, one)
    return measure


def report(name: str, got: dict[Any, list[float]], base: str, other: str, target: float) -> None:
    b, o = got[base], got[other]
    ratio = ratio_in_rounds(b, o)
    print(f"{name:<28} {other:>10} {statistics.median(o):9.1f} µs   {base:>10} {statistics.median(b):9.1f} µs   "
          f"ratio {ratio:5.2f} (target ≤ {target})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--requests", type=int, default=200, help="requests per measure")
    args = ap.parse_args()
    n = args.requests
    src = script(n + 10)
    server: MockLLMServer
    tls = ssl.create_default_context()  # built once: a new client's own costs ~20 ms, which is not HTTP's cost
    with serve(src) as server, MockLLM(src) as llm:
        t_client = httpx2.Client(transport=llm.transport())
        h_client = httpx2.Client()
        x_client = httpx.Client(transport=llm.httpx_transport())
        measures: dict[Any, Callable[[], float]] = {
            ("warm", "transport"): warm(t_client, llm.openai_base_url, n, False),
            ("warm", "http"): warm(h_client, server.openai_base_url, n, False),
            ("stream", "transport"): warm(t_client, llm.openai_base_url, n, True),
            ("stream", "http"): warm(h_client, server.openai_base_url, n, True),
            ("cold", "transport"): cold(lambda: httpx2.Client(transport=llm.transport()), llm.openai_base_url, n // 4),
            ("cold", "http"): cold(lambda: httpx2.Client(verify=tls), server.openai_base_url, n // 4),
            ("openai", "transport"): sdk(lambda k: llm.openai(api_key=k, max_retries=0), n),
            ("openai", "http"): sdk(lambda k: openai.OpenAI(base_url=server.openai_base_url, api_key=k,
                                                            max_retries=0), n),
            ("httpx", "transport"): warm(x_client, llm.openai_base_url, n, False),
        }
        rx = respx_side(n)
        if rx is not None:
            measures[("httpx", "respx")] = rx
        for fn in measures.values():  # warm-up: imports, first connections, caches
            fn()
        got = run_rounds(measures, args.rounds)
        print(f"per request, median of {args.rounds} rounds of {n} requests (cold: {n // 4}); sides alternated")
        for what, label in (("warm", "warm, whole JSON (httpx2)"), ("stream", "warm, streamed SSE (httpx2)"),
                            ("cold", "cold: new client + session"), ("openai", "openai client")):
            report(label, {k[1]: v for k, v in got.items() if k[0] == what}, "http", "transport", 0.5)
        if rx is not None:
            report("warm, whole JSON (httpx 0.28)", {k[1]: v for k, v in got.items() if k[0] == "httpx"},
                   "respx", "transport", 2.0)
        else:
            print("respx is not installed: pip install 'autocue[bench]'")


if __name__ == "__main__":
    main()
