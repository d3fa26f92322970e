"""Ollama's native API, judged by the official ``ollama`` Python client: chat streamed (NDJSON, the
default) and whole, a tool round trip, thinking, generate, embed, list, show, version, ps, errors."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import ollama
import pytest

from autocue.mockllm import MockLLMServer, serve
from autocue.mockllm.embeddings import vector

SCENARIO = """
name: weather
server: {llmApiStyle: ollama}
initialPrompt: "What is the weather in Paris?"
timeline:
  - llmResponse:
      - think: [[0, "The user wants the weather; I have a tool for that."]]
      - assistant: [[0, "Let me check."]]
      - agentToolUse: {toolName: get_weather, args: {city: Paris}}
  - llmResponse:
      - assistant: [[0, "It is sunny in Paris, 21 degrees."]]
"""
RATE_LIMITED = """
name: limited
initialPrompt: "hello"
timeline:
  - error: {statusCode: 429, message: "slow down", retryAfterSeconds: 0.01}
  - assistant: [[0, "hi there"]]
"""
TOOLS = [{"type": "function", "function": {"name": "get_weather", "description": "weather of a city",
                                           "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                                                          "required": ["city"]}}}]
PROMPT = [{"role": "user", "content": "What is the weather in Paris?"}]


@pytest.fixture
def weather(tmp_path: Path) -> Iterator[MockLLMServer]:
    f = tmp_path / "weather.yaml"
    f.write_text(SCENARIO)
    with serve(f) as s:
        yield s


def _client(server: MockLLMServer, key: str) -> ollama.Client:
    return ollama.Client(host=server.base_url, headers={"authorization": f"Bearer {key}"})


def _round_trip(client: ollama.Client, *, stream: bool) -> tuple[ollama.Message, ollama.ChatResponse, str]:
    """The first reply (joined from its chunks when streamed), the last chunk, and the second reply's text."""
    if stream:
        parts = list(client.chat(model="llama3.2", messages=PROMPT, tools=TOOLS, think=True, stream=True))
        assert [p.done for p in parts] == [False] * (len(parts) - 1) + [True]
        first = ollama.Message(role="assistant", content="".join(p.message.content or "" for p in parts),
                               thinking="".join(p.message.thinking or "" for p in parts),
                               tool_calls=[tc for p in parts for tc in p.message.tool_calls or []])
        last = parts[-1]
    else:
        last = client.chat(model="llama3.2", messages=PROMPT, tools=TOOLS, think=True, stream=False)
        first = last.message
    call = (first.tool_calls or [])[0]
    history: list[Any] = [*PROMPT, first,
                          {"role": "tool", "tool_name": call.function.name, "content": "sunny, 21 C"}]
    second = client.chat(model="llama3.2", messages=history, tools=TOOLS, stream=False)
    assert second.done_reason == "stop" and second.message.tool_calls is None
    return first, last, second.message.content or ""


@pytest.mark.surface("POST /api/chat", client="ollama")
@pytest.mark.parametrize("stream", [True, False])
def test_chat_tool_round_trip_with_thinking(weather: MockLLMServer, stream: bool) -> None:
    client = _client(weather, f"k-{stream}")
    first, last, answer = _round_trip(client, stream=stream)
    assert first.thinking == "The user wants the weather; I have a tool for that."
    assert first.content == "Let me check."
    assert [(c.function.name, dict(c.function.arguments)) for c in first.tool_calls or []] == \
        [("get_weather", {"city": "Paris"})]
    assert last.done and last.done_reason == "stop" and last.model == "llama3.2"
    assert (last.prompt_eval_count or 0) > 0 and (last.eval_count or 0) > 0
    assert (last.total_duration or 0) >= (last.eval_duration or 0) > 0
    assert answer == "It is sunny in Paris, 21 degrees."
    # the tool result reached the server as Ollama sends it: role tool with tool_name
    sent = weather.requests(f"k-{stream}")[-1]["body"]["messages"]
    assert sent[-1] == {"role": "tool", "content": "sunny, 21 C", "tool_name": "get_weather"}
    assert sent[-2]["tool_calls"][0]["function"]["arguments"] == {"city": "Paris"}


def test_stream_is_ndjson_by_default_and_think_false_hides_thinking(weather: MockLLMServer) -> None:
    r = httpx2.post(weather.base_url + "/api/chat", json={"model": "m", "messages": PROMPT, "think": False},
                    headers={"authorization": "Bearer raw"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/x-ndjson")
    lines = [json.loads(x) for x in r.text.splitlines()]
    assert all(set(x) >= {"model", "created_at", "message", "done"} for x in lines)
    assert not any("thinking" in x["message"] for x in lines)
    calls = [tc for x in lines for tc in x["message"].get("tool_calls", [])]
    assert calls[0]["function"] == {"index": 0, "name": "get_weather", "arguments": {"city": "Paris"}}
    assert lines[-1]["done"] is True and lines[-1]["done_reason"] == "stop"
    assert {"total_duration", "load_duration", "prompt_eval_count", "prompt_eval_duration", "eval_count",
            "eval_duration"} <= set(lines[-1])


@pytest.mark.surface("POST /api/generate", client="ollama")
def test_generate_streams_response_pieces(weather: MockLLMServer) -> None:
    client = _client(weather, "gen")
    parts = list(client.generate(model="llama3.2", prompt="What is the weather in Paris?", think=True, stream=True))
    assert "".join(p.thinking or "" for p in parts) == "The user wants the weather; I have a tool for that."
    assert "".join(p.response or "" for p in parts) == "Let me check."
    assert parts[-1].done and parts[-1].done_reason == "stop"
    whole = client.generate(model="llama3.2", prompt="again", stream=False)
    assert whole.response == "It is sunny in Paris, 21 degrees." and whole.done


@pytest.mark.surface("POST /api/embed", client="ollama")
@pytest.mark.surface("GET /api/tags", client="ollama")
@pytest.mark.surface("POST /api/show", client="ollama")
def test_embed_list_show_ps_and_version(weather: MockLLMServer) -> None:
    client = _client(weather, "meta")
    got = client.embed(model="nomic-embed-text", input=["the cat sat", "tax returns"], dimensions=32)
    assert got.embeddings == [vector("the cat sat", 32), vector("tax returns", 32)]
    assert got.model == "nomic-embed-text" and (got.prompt_eval_count or 0) > 0
    assert len(client.embed(model="e", input="one").embeddings[0]) == 1536
    assert client.embeddings(model="e", prompt="the cat sat").embedding == vector("the cat sat")
    assert [m.model for m in client.list().models] == ["autocue-mock", "weather"]
    assert [m.model for m in client.ps().models] == ["autocue-mock", "weather"]
    shown = client.show("llama3.2")
    assert shown.capabilities is not None and "tools" in shown.capabilities and shown.modelinfo is not None
    assert httpx2.get(weather.base_url + "/api/version").json() == {"version": "0.13.0"}


def test_errors_reach_the_client_as_ollama_sends_them(tmp_path: Path, weather: MockLLMServer) -> None:
    f = tmp_path / "limited.yaml"
    f.write_text(RATE_LIMITED)
    with serve(f) as server:
        client = _client(server, "lim")
        with pytest.raises(ollama.ResponseError) as e:  # the ollama client does not retry: it sees the 429
            client.chat(model="m", messages=[{"role": "user", "content": "hello"}], stream=False)
        assert (e.value.status_code, e.value.error) == (429, "slow down")
        again = client.chat(model="m", messages=[{"role": "user", "content": "hello"}], stream=False)
        assert again.message.content == "hi there"
        with pytest.raises(ollama.ResponseError) as e:  # streamed: the status arrives before any line
            list(client.chat(model="m", messages=[{"role": "user", "content": "hello"}], stream=True))
        assert e.value.status_code == 400 and "has no more scripted responses" in e.value.error
    bad = {"model": "m", "stream": False, "messages": [  # OpenAI's habit: arguments as a JSON string
        {"role": "user", "content": "x"}, {"role": "assistant", "tool_calls": [{"function": {"name": "f",
                                                                                           "arguments": "{}"}}]}]}
    r = httpx2.post(weather.base_url + "/api/chat", json=bad)
    assert (r.status_code, r.json()) == (400, {"error": "malformed Ollama request: messages[1].tool_calls[0]"
                                                        ".function.arguments must be an object, got '{}'"})
    r = httpx2.post(weather.base_url + "/api/embed", json={"input": "x"})
    assert (r.status_code, r.json()) == (400, {"error": "model is required"})
    r = httpx2.post(weather.base_url + "/api/pull", json={"model": "x"})
    assert r.status_code == 404 and isinstance(r.json()["error"], str)
