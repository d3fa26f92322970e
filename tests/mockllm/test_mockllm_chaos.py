"""Chaos in the mock server (``serve(chaos=...)``, ``--chaos``, the ``x-autocue-chaos`` header,
a step's ``chaos:`` key): latency, API-shaped errors with retry-after, a cut, a malformed
frame, a stall and a TCP reset, seen through the official SDKs and autocue's providers."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import anthropic
import httpx2
import openai
import pytest
from mockllm_helpers import say

from autocue.llm.providers import create_provider
from autocue.llm.stream import StreamOptions
from autocue.llm.types import Context, Model, UserMessage
from autocue.mockllm import MockLLMServer, serve
from autocue.scenario import compile_scenario, load_scenario_text
from autocue.script import Script, Turn
from autocue.script.chaos import ChaosSpecError, parse_chaos

API_OF = {"chat": "openai-completions", "responses": "openai-responses", "anthropic": "anthropic-messages",
          "gemini": "google-generative"}


def hello(n: int = 1) -> Script:
    steps = [say(f"reply {k + 1} with a longer text to stream in several deltas") for k in range(n)]
    return Script([Turn("hi", steps)], name="hello")


def chat_body(stream: bool = True) -> dict[str, Any]:
    return {"model": "m", "stream": stream, "messages": [{"role": "user", "content": "hi"}]}


# ---------------------------------------------------------------------------- the spec


def test_the_documented_spec_parses() -> None:
    s = parse_chaos("latency=200ms,tps=50,jitter=0.2;error=429@0.1;cut=5;stall=2s;reset@0.05;seed=7")
    assert (s.latency, s.tps, s.jitter, s.seed) == (0.2, 50.0, 0.2, 7)
    assert (s.faults["error"].value, s.faults["error"].p) == (429, 0.1)
    assert (s.faults["cut"].value, s.faults["stall"].value) == (5, 2.0)
    assert (s.faults["reset"].value, s.faults["reset"].p) == (0, 0.05)
    t = parse_chaos("error=503*2;retry-after=none;reset=3;malformed=2;stall-at=4")
    assert (t.faults["error"].times, t.retry_after, t.faults["reset"].value, t.stall_at) == (2, None, 3, 4)


@pytest.mark.parametrize(("spec", "says"), [
    ("latency=200", "item 'latency=200' (col 1): '200' is not a duration; write it with a unit"),
    ("tps=50,eror=429", "item 'eror=429' (col 8): unknown item 'eror'"),
    ("error=200", "'200' must be between 400 and 599"),
    ("jitter=2", "'2' must be between 0 and 1"),
    ("latency=1s@0.5", "only faults (error, reset, cut, malformed, stall) take @probability"),
    ("error=429@1.5", "'1.5' must be between 0 and 1"),
    ("cut", "cut needs a value, e.g. cut=5"),
    ("", "chaos spec is empty"),
])
def test_a_bad_spec_names_the_item_and_column(spec: str, says: str) -> None:
    with pytest.raises(ChaosSpecError) as e:
        parse_chaos(spec)
    assert says in str(e.value)


# ---------------------------------------------------------------------------- errors


def test_openai_sdk_retries_an_injected_429_and_gets_the_same_reply() -> None:
    with serve(hello(2), chaos="error=429*2;retry-after=10ms") as server:
        c = openai.OpenAI(base_url=server.openai_base_url, api_key="k", max_retries=2)
        r = c.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
        assert r.choices[0].message.content == "reply 1 with a longer text to stream in several deltas"
        s = server.session("k")
        assert (s["requests"], s["consumed"]) == (3, 1)


def test_openai_sdk_sees_an_api_shaped_rate_limit_error() -> None:
    with serve(hello(), chaos="error=429;retry-after=2s") as server:
        c = openai.OpenAI(base_url=server.openai_base_url, api_key="k", max_retries=0)
        with pytest.raises(openai.RateLimitError) as e:
            c.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
        assert e.value.code == "rate_limit_exceeded"
        assert e.value.response.headers["retry-after"] == "2"
        assert e.value.response.headers["retry-after-ms"] == "2000"
        assert server.session("k")["consumed"] == 0


def test_anthropic_sdk_sees_overloaded_then_retries_into_the_reply() -> None:
    with serve(hello(), chaos="error=529*1;retry-after=10ms") as server:
        c = anthropic.Anthropic(base_url=server.base_url, api_key="k", max_retries=0)
        with pytest.raises(anthropic.APIStatusError) as e:
            c.messages.create(model="m", max_tokens=50, messages=[{"role": "user", "content": "hi"}])
        assert e.value.status_code == 529
        assert e.value.body["error"]["type"] == "overloaded_error"  # type: ignore[index]
        r = c.messages.create(model="m", max_tokens=50, messages=[{"role": "user", "content": "hi"}])
        assert r.content[0].text.startswith("reply 1")  # type: ignore[union-attr]


@pytest.mark.parametrize("api", list(API_OF))
def test_autocue_providers_see_status_and_retry_after(api: str) -> None:
    with serve(hello(), chaos="error=503;retry-after=1500ms") as server:
        msg = asyncio.run(complete(server, api))
    assert msg.stop_reason == "error"
    assert msg.error_status == 503
    assert msg.retry_after == 1.5


async def complete(server: MockLLMServer, api: str, key: str = "prov") -> Any:
    base = server.openai_base_url if api in ("chat", "responses") else server.base_url
    model = Model(id="m", api=API_OF[api], provider="mock", base_url=base)
    provider = create_provider(API_OF[api], api_key_resolver=lambda _n: key)
    try:
        stream = provider.stream(model, Context(system_prompt="", messages=[UserMessage("hi")]), StreamOptions())
        async for _ in stream:
            pass
        return await stream.result()
    finally:
        await provider.aclose()  # type: ignore[attr-defined]


# ---------------------------------------------------------------------------- stream faults


@pytest.mark.parametrize("api", list(API_OF))
def test_autocue_providers_report_a_cut_a_malformed_frame_and_a_reset(api: str) -> None:
    for spec, says in (("cut=2", "ended before"), ("malformed=2", ""), ("reset=2", "")):
        with serve(hello(), chaos=spec) as server:
            msg = asyncio.run(complete(server, api))
            assert msg.stop_reason == "error", (spec, msg)
            assert says in (msg.error_message or ""), (spec, msg.error_message)
            assert server.session("prov")["consumed"] == 0  # the reply stays next: a retry gets it


def test_a_cut_stream_ends_cleanly_without_done() -> None:
    with serve(hello(), chaos="cut=3") as server:
        r = httpx2.post(server.openai_base_url + "/chat/completions", json=chat_body(), headers={"authorization":
                                                                                                 "Bearer k"})
    frames = [f for f in r.text.split("\n\n") if f]
    assert r.status_code == 200 and len(frames) == 3
    assert "[DONE]" not in r.text


def test_a_malformed_frame_breaks_the_openai_sdk_parser() -> None:
    with serve(hello(), chaos="malformed=2") as server:
        c = openai.OpenAI(base_url=server.openai_base_url, api_key="k", max_retries=0)
        stream = c.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}], stream=True)
        with pytest.raises(ValueError):  # json.JSONDecodeError
            for _ in stream:
                pass


def test_a_reset_before_the_reply_is_a_connection_error_and_a_retry_gets_the_reply() -> None:
    with serve(hello(), chaos="reset*1") as server:
        c = anthropic.Anthropic(base_url=server.base_url, api_key="k", max_retries=0)
        with pytest.raises(anthropic.APIConnectionError):
            c.messages.create(model="m", max_tokens=50, messages=[{"role": "user", "content": "hi"}])
        c2 = anthropic.Anthropic(base_url=server.base_url, api_key="k", max_retries=1)
        r = c2.messages.create(model="m", max_tokens=50, messages=[{"role": "user", "content": "hi"}])
        assert r.content[0].text.startswith("reply 1")  # type: ignore[union-attr]


def test_a_mid_stream_reset_delivers_n_events_then_resets() -> None:
    with serve(hello(), chaos="reset=2") as server:
        got: list[bytes] = []
        with pytest.raises((httpx2.ReadError, httpx2.RemoteProtocolError)), httpx2.stream(
                "POST", server.openai_base_url + "/chat/completions", json=chat_body(),
                headers={"authorization": "Bearer k"}) as r:
            for chunk in r.iter_raw():
                got.append(chunk)
    assert b"".join(got).count(b"data: ") == 2


@pytest.mark.slow
def test_latency_and_stall_shape_the_stream_in_time() -> None:
    with serve(hello(), chaos="latency=300ms;stall=400ms;stall-at=2") as server:
        t0 = time.monotonic()
        times: list[float] = []
        with httpx2.stream("POST", server.openai_base_url + "/chat/completions", json=chat_body(),
                           headers={"authorization": "Bearer k"}) as r:
            buf = b""
            for chunk in r.iter_raw():
                buf += chunk
                while b"\n\n" in buf:
                    _, buf = buf.split(b"\n\n", 1)
                    times.append(time.monotonic() - t0)
    assert times[0] >= 0.3
    # The stall holds the third frame 0.4 s after the second was sent; the client reads a frame
    # a little after it is sent, more so on a loaded machine, hence a few ms of slack.
    assert times[2] - times[0] >= 0.38
    assert times[1] - times[0] < 0.2


@pytest.mark.slow
def test_tokens_per_second_spread_the_reply() -> None:
    with serve(hello(), chaos="tps=40") as server:  # ~15 output tokens: about 0.4 s
        t0 = time.monotonic()
        r = httpx2.post(server.openai_base_url + "/chat/completions", json=chat_body(False),
                        headers={"authorization": "Bearer k"})
        took = time.monotonic() - t0
    tokens = r.json()["usage"]["completion_tokens"]
    assert took >= tokens / 40 * 0.9


# ---------------------------------------------------------------------------- seeds, sessions, steps


def outcomes(seed: int, n: int = 24) -> list[int]:
    with serve(hello(n), chaos=f"error=500@0.5;seed={seed}") as server:
        return [httpx2.post(server.openai_base_url + "/chat/completions", json=chat_body(False),
                            headers={"authorization": "Bearer k"}).status_code for _ in range(n)]


def test_the_same_seed_replays_the_same_faults() -> None:
    a, b, c = outcomes(7), outcomes(7), outcomes(8)
    assert a == b
    assert a != c
    assert 500 in a and 200 in a


def test_the_header_sets_chaos_per_session_and_a_bad_header_is_a_400() -> None:
    with serve(hello(2)) as server:
        url = server.openai_base_url + "/chat/completions"
        calm = httpx2.post(url, json=chat_body(False), headers={"authorization": "Bearer a"})
        wild = httpx2.post(url, json=chat_body(False), headers={"authorization": "Bearer b",
                                                                "x-autocue-chaos": "error=418"})
        bad = httpx2.post(url, json=chat_body(False), headers={"authorization": "Bearer c",
                                                               "x-autocue-chaos": "error=4x"})
    assert (calm.status_code, wild.status_code) == (200, 418)
    assert bad.status_code == 400
    assert "x-autocue-chaos header: chaos spec 'error=4x'" in bad.json()["error"]["message"]


STEP_CHAOS = """\
name: flaky
initialPrompt: hi
timeline:
  - llmResponse:
      - assistant: [[0, "first"]]
    chaos: "error=503*1;retry-after=10ms"
  - userInputs: [[0, "again"]]
  - llmResponse:
      - assistant: [[0, "second"]]
"""


def test_a_steps_chaos_key_loads_without_warning_and_fails_that_step_once() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sc = load_scenario_text(STEP_CHAOS, "flaky.yaml")
    assert sc.warnings == []
    with serve(compile_scenario(sc)) as server:
        c = openai.OpenAI(base_url=server.openai_base_url, api_key="k", max_retries=0)
        ask = [{"role": "user", "content": "hi"}]
        with pytest.raises(openai.InternalServerError):
            c.chat.completions.create(model="m", messages=ask)  # type: ignore[arg-type]
        first = c.chat.completions.create(model="m", messages=ask)  # type: ignore[arg-type]
        second = c.chat.completions.create(model="m", messages=[*ask, {"role": "assistant", "content": "first"},
                                                                {"role": "user", "content": "again"}])
    assert (first.choices[0].message.content, second.choices[0].message.content) == ("first", "second")


def test_a_bad_step_chaos_is_a_scenario_error_with_its_position() -> None:
    from autocue.scenario import ScenarioError

    with pytest.raises(ScenarioError) as e:
        load_scenario_text(STEP_CHAOS.replace("error=503*1", "error=503*0"), "flaky.yaml")
    assert "flaky.yaml:6:12" in str(e.value)
    assert "'0' must be 1 or more" in str(e.value)


def test_serve_cli_refuses_a_bad_chaos_spec_in_one_line(tmp_path: Path) -> None:
    p = subprocess.run([sys.executable, "-m", "autocue", "serve", "--chaos", "stall=2"], capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "--chaos: chaos spec 'stall=2'" in lines[0] and "Traceback" not in p.stderr
