"""``MockLLM``: the mock server's app answering the official clients in process (issue 30
requirements 1 and 5). No socket and no thread; streams pulled lazily (scripted delays play in
time, a client closing early is a disconnect for the app); chaos errors and resets reach the
client as over HTTP; the sync transport refuses a running loop in one line; a request the
scenario cannot answer gets the dialect's error and the test's failure names it first."""

from __future__ import annotations

import asyncio
import logging
import socket
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import anthropic
import httpx
import httpx2
import ollama
import openai
import pytest
from google import genai
from google.genai import types as gtypes

from autocue.scenario import load_scenario_text
from autocue.testing import MockLLM
from autocue.testing.mock_llm.driver import IN_LOOP

WEATHER = Path(__file__).resolve().parent.parent / "fixtures" / "dialects" / "weather.yaml"
HELLO = """
name: hello
timeline:
  - userInputs: [[0, hi]]
  - assistant: [[0, "Hello there, how can I help you today?"]]
  - userInputs: [[0, again]]
  - assistant: [[0, "Hello again."]]
"""
SLOW = """
name: slow
timeline:
  - assistant: [[0, "one"], [300, "two"], [300, "three"]]
"""
HANGS = """
name: hangs
timeline:
  - assistant: [[0, "one"], [30000, "never"]]
"""
GREETING = "Hello there, how can I help you today?"
CHAT = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}


def scenario(text: str) -> Any:
    return load_scenario_text(textwrap.dedent(text), "test.yaml")


def hi(c: openai.OpenAI, text: str = "hi") -> str:
    r = c.chat.completions.create(model="m", messages=[{"role": "user", "content": text}])
    return r.choices[0].message.content or ""


# ---------------------------------------------------------------------------- the clients


def test_every_official_client_is_answered_through_its_public_arguments() -> None:
    with MockLLM(scenario(HELLO)) as llm:
        assert hi(llm.openai(max_retries=0)) == "Hello there, how can I help you today?"
        msg = llm.anthropic(max_retries=0).messages.create(
            model="m", max_tokens=50, messages=[{"role": "user", "content": "again"}])
        assert msg.content[0].text == "Hello again."  # type: ignore[union-attr]
        assert llm.session("autocue-test")["remaining"] == 0
        assert [e.path for e in llm.exchanges] == ["/v1/chat/completions", "/v1/messages"]


def test_the_async_clients_run_in_the_callers_loop() -> None:
    async def main(llm: MockLLM) -> list[str]:
        c = llm.async_openai(max_retries=0)
        first = await c.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
        a = llm.async_anthropic(max_retries=0)
        async with a.messages.stream(model="m", max_tokens=50, messages=[{"role": "user", "content": "again"}]) as s:
            second = await s.get_final_text()
        return [first.choices[0].message.content or "", second]

    with MockLLM(scenario(HELLO)) as llm:
        assert asyncio.run(main(llm)) == ["Hello there, how can I help you today?", "Hello again."]
    llm.assert_all_consumed()


def test_genai_sync_and_aio_and_on_httpx_028() -> None:
    with MockLLM(scenario(HELLO), api_key="g") as llm:
        c = llm.genai()
        assert c.models.generate_content(model="gemini-x", contents="hi").text == GREETING

        async def aio() -> str:
            return (await c.aio.models.generate_content(model="gemini-x", contents="again")).text or ""

        assert asyncio.run(aio()) == "Hello again."
    with MockLLM(scenario(HELLO), api_key="g") as llm:  # google-genai takes an httpx 0.28 client too
        options = gtypes.HttpOptions(base_url=llm.base_url, httpx_client=httpx.Client(transport=llm.httpx_transport()))
        c = genai.Client(api_key=llm.api_key, http_options=options)
        assert c.models.generate_content(model="gemini-x", contents="hi").text == GREETING


def test_the_ollama_client_reaches_the_app_on_httpx_028() -> None:
    with MockLLM(scenario(HELLO), api_key="o") as llm:
        try:
            llm.ollama().chat(model="m", messages=[{"role": "user", "content": "hi"}], stream=False)
        except ollama.ResponseError as e:  # no Ollama dialect on this server: its 404 reached the client
            assert e.status_code == 404 and "not an endpoint" in str(e)
        (sent,) = llm.exchanges
        assert (sent.method, sent.path) == ("POST", "/api/chat")


def test_boto3_reaches_the_app_through_botocores_before_send_event() -> None:
    import botocore.exceptions

    with MockLLM(scenario(HELLO), api_key="AKIDEXAMPLE") as llm:
        client = llm.boto3("bedrock-runtime")
        try:
            client.converse(modelId="anthropic.claude-x", messages=[{"role": "user", "content": [{"text": "hi"}]}])
        except botocore.exceptions.ClientError as e:  # no Bedrock dialect on this server: its 404 reached boto3
            assert e.response["ResponseMetadata"]["HTTPStatusCode"] == 404
        (sent,) = llm.exchanges
        assert (sent.method, sent.path) == ("POST", "/model/anthropic.claude-x/converse")


def test_no_socket_and_no_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a socket connection was attempted")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    threads = threading.active_count()
    with MockLLM(scenario(SLOW)) as llm:
        stream = llm.openai(max_retries=0).chat.completions.create(
            model="m", messages=[{"role": "user", "content": "hi"}], stream=True)
        text = "".join(ch.choices[0].delta.content or "" for ch in stream if ch.choices)
        assert threading.active_count() == threads
    assert text == "one\ntwo\nthree"


def test_the_sync_transport_refuses_a_running_loop_in_one_line() -> None:
    async def main(llm: MockLLM) -> None:
        with httpx2.Client(transport=llm.transport()) as c:
            c.post(llm.openai_base_url + "/chat/completions", json=CHAT)

    with MockLLM(scenario(HELLO)) as llm, pytest.raises(RuntimeError) as e:
        asyncio.run(main(llm))
    assert str(e.value) == IN_LOOP and "\n" not in IN_LOOP and "async_transport()" in IN_LOOP


def test_sync_clients_in_several_threads_take_turns() -> None:
    from concurrent.futures import ThreadPoolExecutor

    steps = "".join(f'  - llmResponse: [{{assistant: [[0, "reply {k}"]]}}]\n' for k in range(40))
    with MockLLM(scenario("name: many\ntimeline:\n" + steps)) as llm:
        shared = llm.openai(max_retries=0)
        with ThreadPoolExecutor(8) as pool:
            got = list(pool.map(lambda k: hi(shared if k % 2 else llm.openai(max_retries=0)), range(40)))
        assert sorted(got) == sorted(f"reply {k}" for k in range(40))
        llm.assert_all_consumed()


def test_get_and_head_go_through_the_router_too() -> None:
    with MockLLM(scenario(HELLO)) as llm, httpx2.Client(transport=llm.transport()) as c:
        models = c.get(llm.openai_base_url + "/models").json()
        assert [m["id"] for m in models["data"]] == ["autocue-mock", "hello"]
        head = c.head(llm.base_url + "/")
        assert head.status_code == 200 and head.content == b"" and int(head.headers["content-length"]) > 0


# ---------------------------------------------------------------------------- streams


def test_scripted_delays_play_in_time_chunk_by_chunk() -> None:
    with MockLLM(scenario(SLOW), speed=1.0) as llm, httpx2.Client(transport=llm.transport()) as c:
        t0 = time.monotonic()
        seen: list[tuple[float, bytes]] = []
        with c.stream("POST", llm.openai_base_url + "/chat/completions", json={**CHAT, "stream": True}) as r:
            for chunk in r.iter_raw():
                seen.append((time.monotonic() - t0, chunk))
    body = b"".join(c for _, c in seen)
    assert body.rstrip().endswith(b"data: [DONE]") and len(seen) >= 3
    first_word = next(t for t, c in seen if b'"one' in c)
    last_word = next(t for t, c in seen if b'three"' in c)
    # "three" comes after both 300 ms waits, "one" before them: the chunks arrive as played, not
    # buffered (a wait can only grow on a loaded machine, so the gap is a floor; "one" within 2 s)
    assert last_word - first_word >= 0.55 and first_word < 2.0, seen


def test_closing_a_stream_early_is_a_disconnect_for_the_app(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="autocue.mockllm.asgi")
    with MockLLM(scenario(HANGS), speed=1.0) as llm, httpx2.Client(transport=llm.transport()) as c:
        t0 = time.monotonic()
        with c.stream("POST", llm.openai_base_url + "/chat/completions", json={**CHAT, "stream": True}) as r:
            first = next(r.iter_raw())
        assert b'"one' in first and time.monotonic() - t0 < 5  # not the 30 s of the second delta
    assert any("the client left during a streamed response" in m for m in caplog.messages), caplog.messages


def test_closing_an_async_stream_early_is_a_disconnect_for_the_app(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="autocue.mockllm.asgi")

    async def main(llm: MockLLM) -> bytes:
        async with httpx2.AsyncClient(transport=llm.async_transport()) as c, c.stream(
                "POST", llm.openai_base_url + "/chat/completions", json={**CHAT, "stream": True}) as r:
            async for chunk in r.aiter_raw():
                return chunk
        return b""

    with MockLLM(scenario(HANGS), speed=1.0) as llm:
        t0 = time.monotonic()
        assert b'"one' in asyncio.run(main(llm)) and time.monotonic() - t0 < 5
    assert any("the client left during a streamed response" in m for m in caplog.messages), caplog.messages


# ---------------------------------------------------------------------------- chaos


def test_a_chaos_429_is_retried_by_the_clients_own_retry() -> None:
    with MockLLM(scenario(HELLO), chaos="error=429*2;retry-after=10ms") as llm:
        assert hi(llm.openai(max_retries=2)) == "Hello there, how can I help you today?"
        s = llm.session("autocue-test")
        assert (s["requests"], s["consumed"]) == (3, 1)
        assert [e.status for e in llm.exchanges] == [429, 429, 200]
        llm.assert_ok()  # chaos is what the test asked for


def test_a_chaos_reset_is_a_connection_error_and_a_retry_gets_the_reply() -> None:
    with MockLLM(scenario(HELLO), chaos="reset*1") as llm:
        with pytest.raises(anthropic.APIConnectionError):
            llm.anthropic(max_retries=0).messages.create(model="m", max_tokens=50,
                                                         messages=[{"role": "user", "content": "hi"}])
        r = llm.anthropic(max_retries=0).messages.create(model="m", max_tokens=50,
                                                         messages=[{"role": "user", "content": "hi"}])
        assert r.content[0].text == "Hello there, how can I help you today?"  # type: ignore[union-attr]


def test_a_mid_stream_reset_delivers_n_events_then_a_read_error() -> None:
    with MockLLM(scenario(HELLO), chaos="reset=2") as llm, httpx2.Client(transport=llm.transport()) as c:
        got: list[bytes] = []
        with pytest.raises(httpx2.ReadError), c.stream(
                "POST", llm.openai_base_url + "/chat/completions", json={**CHAT, "stream": True}) as r:
            for chunk in r.iter_raw():
                got.append(chunk)
    assert b"".join(got).count(b"data: ") == 2


# ---------------------------------------------------------------------------- bad input (requirement 5)


def test_an_exhausted_scenario_is_the_dialects_error_and_one_line_then_the_journal() -> None:
    with MockLLM(WEATHER) as llm:
        c = llm.anthropic(max_retries=0)
        for _ in range(2):
            c.messages.create(model="m", max_tokens=50, messages=[{"role": "user", "content": "weather?"}])
        with pytest.raises(anthropic.BadRequestError) as e:
            c.messages.create(model="m", max_tokens=50, messages=[{"role": "user", "content": "and tomorrow?"}])
        assert e.value.body["type"] == "error"  # type: ignore[index]  # Anthropic's own error shape
        with pytest.raises(AssertionError) as failed:
            llm.assert_ok()
    lines = str(failed.value).splitlines()
    assert lines[0].startswith("scenario 'weather' has no more scripted responses: all 2 were consumed by session "
                               "'autocue-test' (request 3)"), lines
    assert lines[1].startswith("journal of session 'autocue-test' (scenario 'weather', 2 of 2 replies played")
    assert [line.split(" ")[2:4] for line in lines[2:5]] == [["✓", "1"], ["✓", "2"], ["✗", "3"]], lines
    assert "/v1/messages → 400 exhausted · last: user: 'and tomorrow?'" in lines[4]
    assert lines[5] == "      expected: no more requests (all 2 replies were played)"
    assert lines[6].startswith("      got:      1 message, the last user: 'and tomorrow?'")


def test_an_endpoint_the_mock_has_no_answer_for_is_named_first() -> None:
    with MockLLM(WEATHER) as llm:
        with pytest.raises(openai.NotFoundError) as e:
            llm.openai(max_retries=0).completions.create(model="m", prompt="hi")
        assert e.value.body["type"] == "invalid_request_error"  # type: ignore[index]  # OpenAI's own error shape
        text = llm.failure()
    assert text is not None
    first, *rest = text.splitlines()
    assert first == ("POST /v1/completions got 404 from the mock LLM (scenario 'weather'): POST /v1/completions is "
                     "not an endpoint of the autocue mock LLM server")
    assert rest == ["requests (✗ marks the first one it could not answer):", "  ✗ 1 POST /v1/completions → 404"]


def test_scripted_errors_are_answers_not_failures() -> None:
    text = """
    name: flaky
    timeline:
      - error: {statusCode: 429, message: slow down, retryAfterSeconds: 0.01}
      - assistant: [[0, fine]]
    """
    with MockLLM(scenario(text)) as llm:
        assert hi(llm.openai(max_retries=1)) == "fine"
        assert llm.failure() is None
        llm.assert_all_consumed()


# ---------------------------------------------------------------------------- the fixture

FIXTURE_TESTS = '''
import pytest

@pytest.mark.autocue_llm("hello.yaml")
def test_marker(autocue_llm):
    c = autocue_llm.openai(max_retries=0)
    r = c.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
    assert r.choices[0].message.content == "Hello."
    autocue_llm.assert_all_consumed()


@pytest.mark.parametrize("autocue_llm", ["hello.yaml", {"source": "hello.yaml", "api_key": "k2"}], indirect=True)
def test_indirect(autocue_llm):
    c = autocue_llm.anthropic(max_retries=0)
    assert c.messages.create(model="m", max_tokens=9, messages=[{"role": "user", "content": "hi"}]).content[0].text
    assert autocue_llm.session(autocue_llm.api_key)["remaining"] == 0


@pytest.mark.autocue_llm("hello.yaml")
def test_framework_error_comes_second(autocue_llm):
    c = autocue_llm.openai(max_retries=0)
    for _ in range(2):
        c.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])


@pytest.mark.autocue_llm("hello.yaml")
def test_swallowed_error_fails_at_teardown(autocue_llm):
    c = autocue_llm.openai(max_retries=0)
    for _ in range(2):
        try:
            c.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
        except Exception:
            pass


def test_no_source(autocue_llm):
    pass
'''


@pytest.mark.slow
def test_the_autocue_llm_fixture(tmp_path: Path) -> None:
    (tmp_path / "hello.yaml").write_text("name: hello\ntimeline:\n  - assistant: [[0, Hello.]]\n")
    (tmp_path / "test_llm.py").write_text(FIXTURE_TESTS)
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-q",
                           "test_llm.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    out = proc.stdout
    assert "1 failed, 4 passed, 2 errors" in out, out + proc.stderr
    failure = out.split("_ test_framework_error_comes_second _")[1]
    report = "scenario 'hello' has no more scripted responses: all 1 were consumed by session 'autocue-test'"
    assert failure.lstrip("_ \n").startswith(report), failure  # before the client's traceback
    assert failure.index(report) < failure.index("openai.BadRequestError")
    teardown = out.split("ERROR at teardown of test_swallowed_error_fails_at_teardown")[1]
    assert report in teardown and "Traceback" not in teardown.split("___")[0]
    assert "the autocue_llm fixture needs a scenario: mark the test with @pytest.mark.autocue_llm" in out
