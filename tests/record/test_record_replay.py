"""Recording through ``autocue record`` and replaying the recording through ``autocue serve``.

The upstream is a real mock server on loopback playing a scripted tool loop (thinking, text, a
call, two parallel calls, a 429 with retry-after, a second user turn). Real clients (the
official ``openai`` and ``anthropic`` SDKs, autocue's providers for all four APIs) run the
loop through the recording proxy; the scenario written for their session must pass
``scenario check --strict``, hold no secret, and replay to the same replies, every step in
order.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from record_clients import (
    LOOP_PROMPTS,
    Reply,
    anthropic_messages,
    autocue_provider,
    openai_chat,
    openai_responses,
    openai_responses_websocket,
    upstream_loop,
)

from autocue.mockllm.server import serve
from autocue.record import RecordingServer, Redactor
from autocue.scenario import load_scenario

UPSTREAM = upstream_loop("upstream-loop")
PROMPTS = LOOP_PROMPTS
KEY = "sk-live-0123456789abcdefghijklmnop"

Client = Callable[[str, str, list[str]], list[Reply]]
CLIENTS: dict[str, Client] = {
    "openai-sdk-chat": openai_chat,
    "openai-sdk-responses": openai_responses,
    "openai-sdk-responses-websocket": openai_responses_websocket,
    "anthropic-sdk": anthropic_messages,
    "provider-chat": lambda u, k, p: autocue_provider("chat", u, k, p),
    "provider-responses": lambda u, k, p: autocue_provider("responses", u, k, p),
    "provider-anthropic": lambda u, k, p: autocue_provider("anthropic", u, k, p),
    "provider-gemini": lambda u, k, p: autocue_provider("gemini", u, k, p),
}


def record(tmp_path: Path, client: Client) -> tuple[list[Reply], list[Reply], Path]:
    """(replies straight from the upstream, replies through the proxy, the recorded file)."""
    upstream = tmp_path / "upstream.yaml"
    upstream.write_text(UPSTREAM, encoding="utf-8")
    out = tmp_path / "rec"
    with serve(upstream) as up:
        direct = client(up.base_url, KEY + "-direct", PROMPTS)
        with RecordingServer(upstream=up.base_url, out_dir=out, redactor=Redactor([r"TOKEN-[A-Z0-9-]+"])) as rec:
            proxied = client(rec.base_url, KEY, PROMPTS)
            files = rec.files
        assert up.session(KEY)["errors"] == []
    assert len(files) == 1, files
    return direct, proxied, files[0]


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CLIENTS))
def test_recording_replays_the_same_replies_in_order(name: str, tmp_path: Path) -> None:
    client = CLIENTS[name]
    direct, proxied, path = record(tmp_path, client)
    assert proxied == direct, "the proxy changed what the client saw"
    assert [r.get("error") for r in proxied] == [None, None, 429, None, None]
    assert proxied[0]["calls"] and len(proxied[1]["calls"]) == 2

    text = path.read_text(encoding="utf-8")
    assert KEY not in text and "TOKEN-XYZZY" not in text and "[REDACTED]" in text
    sc = load_scenario(path)
    assert sc.warnings == []
    assert sc.initial_prompt == "list the files, my token is [REDACTED]"
    script = sc.compile()
    assert [len(t.steps) for t in script.turns] == [4, 1]
    assert script.turns[1].prompt == "now summarize"

    with serve(path) as replay:
        replayed = client(replay.base_url, "replay-key-123", PROMPTS)
        status = replay.session("replay-key-123")
    assert replayed == proxied
    assert status["errors"] == [] and (status["consumed"], status["remaining"]) == (5, 0), status


def test_recorded_file_passes_scenario_check_strict_and_keeps_timings_usage_and_errors(tmp_path: Path) -> None:
    from autocue.cli.main import main

    path = record(tmp_path, openai_chat)[2]
    assert main(["scenario", "check", "--strict", str(path)]) == 0
    sc = load_scenario(path)
    replies = sc.compile().all_steps()
    first = replies[0]
    assert first.chunk_delays_ms is not None and all(ms >= 0 for ms in first.chunk_delays_ms)
    err = replies[2].error
    assert err is not None and (err.status, err.retry_after, err.message) == (429, 0.0, "slow down")
    timeline = sc.timeline
    meta = [ev.meta for ev in timeline if getattr(ev, "meta", None)]
    assert meta[0] is not None and meta[0]["stopReason"] == "toolUse" and meta[0]["usage"]["output"] > 0
    assert meta[-1] is not None and meta[-1]["stopReason"] == "stop"


def test_env_var_values_and_header_credentials_never_reach_the_file(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_SECRET_FOR_TEST", "XYZZY-123")
    upstream = tmp_path / "upstream.yaml"
    upstream.write_text(UPSTREAM.replace("Both files say hello.", f"Your key is {KEY}."), encoding="utf-8")
    with serve(upstream) as up, RecordingServer(upstream=up.base_url, out_dir=tmp_path / "rec",
                                                redactor=Redactor(env_names=["MY_SECRET_FOR_TEST"],
                                                                  defaults=False)) as rec:
        openai_chat(rec.base_url, KEY, PROMPTS)
        files = rec.files
    text = files[0].read_text(encoding="utf-8")
    assert "XYZZY-123" not in text and KEY not in text
    assert "Your key is [REDACTED]." in text and "my token is TOKEN-[REDACTED]" in text
    assert files[0].name.startswith("session-") and KEY not in files[0].name


def test_sessions_get_one_file_each_and_existing_files_are_never_overwritten(tmp_path: Path) -> None:
    upstream = tmp_path / "upstream.yaml"
    upstream.write_text(UPSTREAM, encoding="utf-8")
    out = tmp_path / "rec"
    out.mkdir()
    mine = out / "alpha.yaml"
    mine.write_text("not autocue's\n")
    with serve(upstream) as up, RecordingServer(upstream=up.base_url, out_dir=out) as rec:
        openai_chat(rec.base_url + "/s/alpha", "key-one-123456", PROMPTS[:1])
        openai_chat(rec.base_url + "/s/beta", "key-two-123456", PROMPTS[:1])
        files = rec.files
    assert mine.read_text() == "not autocue's\n"
    assert sorted(p.name for p in files) == ["alpha-2.yaml", "beta.yaml"]
    for p in files:
        assert load_scenario(p).compile().step_count == 4


def test_unreachable_upstream_is_one_api_shaped_502(tmp_path: Path) -> None:
    import socket

    import openai

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    with RecordingServer(upstream=f"http://127.0.0.1:{port}", out_dir=tmp_path / "rec") as rec:
        client = openai.OpenAI(base_url=rec.openai_base_url, api_key="k", max_retries=0)
        with pytest.raises(openai.APIStatusError) as info:
            client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
    assert info.value.status_code == 502
    assert f"cannot reach the upstream http://127.0.0.1:{port}/v1/chat/completions" in info.value.message
    assert not os.listdir(tmp_path / "rec")


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_a_client_that_has_its_reply_finds_it_in_the_recording(stream: bool, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A whole reply has a content-length, so its client is done with its last byte: the proxy holds
    that back until the reply is recorded. The writer is slowed down so a reply that ended first would
    be caught every time."""
    import time

    import openai

    from autocue.scenario.writer import Recording

    write = Recording.write

    def slow_write(self: Recording, path: Path) -> None:
        time.sleep(0.3)
        write(self, path)

    monkeypatch.setattr(Recording, "write", slow_write)
    (tmp_path / "up.yaml").write_text("name: up\ntimeline:\n  - llmResponse:\n      - assistant: [[0, \"hello\"]]\n")
    with serve(tmp_path / "up.yaml") as up, RecordingServer(upstream=up.base_url, out_dir=tmp_path / "recs") as proxy:
        client = openai.OpenAI(base_url=proxy.base_url + "/v1", api_key="sk-x", max_retries=0)
        if stream:
            text = "".join(c.choices[0].delta.content or "" for c in client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "hi"}], stream=True) if c.choices)
        else:
            text = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}]) \
                .choices[0].message.content or ""
        files = proxy.files
        assert text == "hello"
        assert len(files) == 1 and '"hello"' in files[0].read_text()
