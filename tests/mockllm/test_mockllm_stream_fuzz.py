"""Stream fuzzing (``--fuzz SEED``, ``serve(fuzz=...)``, the ``/fuzz/{spec}/`` prefix): the same
content as valid but adversarial streams. autocue's four providers read every seed to the
same transcript as the plain stream (25 seeds per API by default, 1,000 with
``--fuzz-long``); the official SDKs' stream accumulators, the reference for what is valid,
parse them to the same reply."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from typing import Any

import anthropic
import httpx2
import openai
import pytest
from fuzz_helpers import PROMPT, agent_transcript, fuzz_script
from hypothesis import settings

from autocue.mockllm import MockLLMServer, serve
from autocue.mockllm.wire.fuzz import FEATURES, Fuzzer, FuzzSpec, FuzzSpecError, parse_fuzz

LONG = settings.get_current_profile_name() == "autocue-long" or os.environ.get("AUTOCUE_FUZZ_LONG") == "1"
SEEDS_PER_CHUNK = 250 if LONG else 25
CHUNKS = 4 if LONG else 1
"""1,000 seeds per API with --fuzz-long (four tests of 250, each within the per-test timeout)."""


@pytest.fixture(scope="module")
def server() -> Iterator[MockLLMServer]:
    with serve(fuzz_script()) as s:
        yield s


# ---------------------------------------------------------------------------- the spec and the cuts


def test_spec_round_trips_and_bad_specs_say_why() -> None:
    spec = parse_fuzz("17,splits=2,ping=0,tcp=0")
    assert (spec.seed, spec.splits, spec.ping, spec.tcp, spec.crlf) == (17, 2, False, False, True)
    assert parse_fuzz(spec.text) == spec and spec.text == "17,splits=2,ping=0,tcp=0"
    for bad, says in (("x", "'x' is not a seed"), ("3,pings=0", "unknown option 'pings'"),
                      ("3,ping=2", "'ping=2' needs 0 or 1")):
        with pytest.raises(FuzzSpecError, match=says):
            parse_fuzz(bad)


def test_pieces_cut_at_code_points_and_rejoin() -> None:
    text = "a😀é日本\"\\"
    seen: set[int] = set()
    for seed in range(300):
        pieces = Fuzzer(FuzzSpec(seed, splits=4), "k").pieces(text)
        assert "".join(pieces) == text
        pos = 0
        for p in pieces[:-1]:
            pos += len(p)
            seen.add(pos)
    assert seen == set(range(len(text) + 1))  # every code point boundary, both ends (empty deltas) included


def test_tcp_pieces_cut_inside_utf8_sequences() -> None:
    body = "é😀".encode()
    inside = set()
    for seed in range(200):
        parts = Fuzzer(FuzzSpec(seed), "k").tcp_pieces(body)
        assert b"".join(parts) == body
        inside.update(len(parts[0]) for _ in [0] if len(parts) > 1)
    assert {1, 3, 4, 5} <= inside  # inside é (2 bytes) and inside 😀 (4 bytes)


def raw(server: MockLLMServer, spec: str, body: dict[str, Any], path: str = "/v1/chat/completions") -> bytes:
    """The first reply's bytes for ``spec`` (the same session each time, ``created`` blanked)."""
    server.reset(f"raw-{spec}")
    r = httpx2.post(f"{server.base_url}/fuzz/{spec}/s/raw-{spec}{path}", json=body,
                    headers={"authorization": "Bearer r"})
    assert r.status_code == 200
    assert r.headers["x-autocue-fuzz"] == parse_fuzz(spec).text
    return re.sub(rb'"created":\d+', b'"created":0', r.content)


def test_the_same_spec_gives_the_same_bytes_and_features_show(server: MockLLMServer) -> None:
    body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": PROMPT}]}
    assert raw(server, "5", body) == raw(server, "5", body)
    assert raw(server, "5", body) != raw(server, "6", body)
    streams = b"".join(raw(server, str(seed), body) for seed in range(40))
    assert b": keep-alive" in streams and b"\r\n" in streams and b"\\u" in streams
    plain = raw(server, "5," + ",".join(f"{f}=0" for f in FEATURES), body)
    assert b": keep-alive" not in plain and b"\r\n" not in plain
    anth = b"".join(raw(server, str(seed), {"model": "m", "max_tokens": 99, "stream": True, "messages": [
        {"role": "user", "content": PROMPT}]}, "/v1/messages").count(b"event: ping").to_bytes(2, "big")
        for seed in range(20))
    assert max(anth) > 1  # pings between events, not only the one after the first block starts


def test_parallel_tool_call_deltas_interleave_in_chat(server: MockLLMServer) -> None:
    interleaved = 0
    for seed in range(30):
        key = f"il{seed}"
        url = f"{server.base_url}/fuzz/{seed},splits=6/s/{key}/v1/chat/completions"
        msgs: list[Any] = [{"role": "user", "content": PROMPT}]
        httpx2.post(url, json={"model": "m", "messages": msgs}, headers={"authorization": "Bearer x"})  # step 1
        r = httpx2.post(url, json={"model": "m", "stream": True, "messages": msgs},
                        headers={"authorization": "Bearer x"})
        order = [c["index"] for line in r.text.replace("\r\n", "\n").split("\n") if line.startswith("data: {")
                 for ch in json.loads(line[6:])["choices"] for c in ch["delta"].get("tool_calls") or []]
        firsts = [i for k, i in enumerate(order) if k == 0 or order[k - 1] != i]
        interleaved += len(firsts) > 2
    assert interleaved > 5


# ---------------------------------------------------------------------------- autocue's providers


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(CHUNKS))
@pytest.mark.parametrize("api", ["chat", "responses", "anthropic", "gemini"])
def test_autocue_providers_read_every_seed_to_the_plain_transcript(server: MockLLMServer, api: str,
                                                                     chunk: int) -> None:
    expected = agent_transcript(server, api, "", f"plain-{api}-{chunk}")
    assert [m[1] for m in expected if m[0] == "assistant"] == ["toolUse", "toolUse", "stop"]
    for seed in range(chunk * SEEDS_PER_CHUNK, (chunk + 1) * SEEDS_PER_CHUNK):
        got = agent_transcript(server, api, f"/fuzz/{seed}", f"seed-{api}-{seed}")
        assert got == expected, (f"{api}: fuzz seed {seed} breaks autocue's provider; reproduce with "
                                 f"`autocue serve SCENARIO --fuzz {seed}`")


# ---------------------------------------------------------------------------- the official SDKs


def sdk_chat(server: MockLLMServer, prefix: str, key: str) -> list[Any]:
    c = openai.OpenAI(base_url=server.base_url + prefix + "/v1", api_key=key, max_retries=0)
    msgs: list[Any] = [{"role": "user", "content": PROMPT}]
    out: list[Any] = []
    for _ in range(3):
        with c.chat.completions.stream(model="m", messages=msgs) as s:
            m = s.get_final_completion().choices[0].message
        calls = [(t.function.name, json.loads(t.function.arguments)) for t in m.tool_calls or []]
        out.append((m.content, calls))
        msgs.append({"role": "assistant", "content": m.content,
                     **({"tool_calls": [t.model_dump() for t in m.tool_calls]} if m.tool_calls else {})})
        msgs += [{"role": "tool", "tool_call_id": t.id, "content": "ok"} for t in m.tool_calls or []]
    return out


def sdk_anthropic(server: MockLLMServer, prefix: str, key: str) -> list[Any]:
    c = anthropic.Anthropic(base_url=server.base_url + prefix, api_key=key, max_retries=0)
    msgs: list[Any] = [{"role": "user", "content": PROMPT}]
    out: list[Any] = []
    for _ in range(3):
        with c.messages.stream(model="m", max_tokens=1000, messages=msgs) as s:
            m = s.get_final_message()
        blocks = [b.model_dump(exclude={"citations", "caller"}) for b in m.content]
        out.append((m.stop_reason, [{k: v for k, v in b.items() if k not in ("id", "signature")} for b in blocks]))
        msgs.append({"role": "assistant", "content": blocks})
        uses = [b for b in blocks if b["type"] == "tool_use"]
        msgs.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": u["id"], "content": "ok"}
                                                 for u in uses] or "go on"})
    return out


def sdk_responses(server: MockLLMServer, prefix: str, key: str) -> list[Any]:
    c = openai.OpenAI(base_url=server.base_url + prefix + "/v1", api_key=key, max_retries=0)
    items: list[Any] = [{"role": "user", "content": PROMPT}]
    out: list[Any] = []
    for _ in range(3):
        with c.responses.stream(model="m", input=items) as s:
            r = s.get_final_response()
        got = []
        for it in r.output:
            if it.type == "function_call":
                got.append(("call", it.name, json.loads(it.arguments)))
                items.append({"type": "function_call_output", "call_id": it.call_id, "output": "ok"})
            elif it.type == "message":
                got.append(("text", it.content[0].text))  # type: ignore[union-attr]
            elif it.type == "reasoning":
                got.append(("reasoning", [s.text for s in it.summary]))
        out.append(got)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("sdk", [sdk_chat, sdk_anthropic, sdk_responses], ids=["chat", "anthropic", "responses"])
def test_official_sdks_parse_fuzzed_streams_to_the_plain_reply(server: MockLLMServer, sdk: Any) -> None:
    name = sdk.__name__
    expected = sdk(server, "", f"plain-{name}")
    for seed in range(SEEDS_PER_CHUNK):
        assert sdk(server, f"/fuzz/{seed}", f"{name}-{seed}") == expected, f"{name}: fuzz seed {seed}"
