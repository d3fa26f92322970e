"""Gemini generateContent, embeddings and the model list, judged by the official google-genai client."""

from __future__ import annotations

import math
from collections.abc import Iterator

import httpx2
import pytest
from google import genai
from google.genai import types
from mockllm_helpers import retry_script, thinking_script

from autocue.mockllm import MockLLMServer, serve
from autocue.mockllm.embeddings import vector


def client(server: MockLLMServer, key: str, version: str | None = None) -> genai.Client:
    return genai.Client(api_key=key, http_options=types.HttpOptions(
        base_url=server.base_url, api_version=version,
        retry_options=types.HttpRetryOptions(attempts=3, initial_delay=0.01, max_delay=0.05)))


@pytest.fixture
def server() -> Iterator[MockLLMServer]:
    with serve(thinking_script()) as s:
        yield s


@pytest.mark.surface("POST /v1beta/models/{model}:generateContent", client="google-genai")
@pytest.mark.surface("POST /v1beta/models/{model}:streamGenerateContent", client="google-genai")
def test_generate_content_plain_and_streamed(server: MockLLMServer) -> None:
    c = client(server, "gen-1")
    cfg = types.GenerateContentConfig(thinking_config=types.ThinkingConfig(include_thoughts=True))
    r = c.models.generate_content(model="gemini-2.5-pro", contents="think about it", config=cfg)
    assert r.text == "The answer is 42."
    parts = r.candidates[0].content.parts
    assert parts[0].thought and parts[0].text == "Deep thought about the question."
    assert r.usage_metadata.thoughts_token_count > 0 and r.usage_metadata.prompt_token_count > 0
    c2 = client(server, "gen-2")
    chunks = list(c2.models.generate_content_stream(model="gemini-2.5-pro", contents="think about it", config=cfg))
    text = "".join(p.text or "" for ch in chunks for p in ch.candidates[0].content.parts if not p.thought)
    assert text == "The answer is 42." and chunks[-1].candidates[0].finish_reason == "STOP"


def test_a_scripted_429_is_retried_by_the_client() -> None:
    with serve(retry_script()) as s:
        c = client(s, "retry")  # held: a client that is collected closes its connections
        r = c.models.generate_content(model="gemini-2.5-flash", contents="hello")
        assert r.text == "made it"
        assert [j["status"] for j in s.session("retry")["journal"]] == [429, 200]


@pytest.mark.surface("POST /v1beta/models/{model}:batchEmbedContents", client="google-genai")
def test_embed_content_through_the_sdk(server: MockLLMServer) -> None:
    c = client(server, "emb")
    got = c.models.embed_content(model="text-embedding-004", contents=["the cat sat", "tax returns"],
                                 config=types.EmbedContentConfig(output_dimensionality=64))
    vals = [e.values for e in got.embeddings]
    assert vals == [vector("the cat sat", 64), vector("tax returns", 64)]
    assert all(abs(math.sqrt(sum(x * x for x in v)) - 1) < 1e-6 for v in vals)
    one = c.models.embed_content(model="text-embedding-004", contents="the cat sat")
    assert len(one.embeddings[0].values) == 768


def test_embed_content_rest_and_its_errors(server: MockLLMServer) -> None:
    base = server.base_url + "/v1beta/models/gemini-embedding-001"
    h = {"x-goog-api-key": "rest"}
    r = httpx2.post(base + ":embedContent", headers=h,
                    json={"content": {"parts": [{"text": "the cat"}, {"text": "sat"}]}, "outputDimensionality": 8})
    assert r.status_code == 200 and r.json() == {"embedding": {"values": vector("the cat\nsat", 8)}}
    r = httpx2.post(base + ":batchEmbedContents", headers=h, json={"requests": [
        {"model": "models/gemini-embedding-001", "content": {"parts": [{"text": "a"}]}},
        {"model": "models/gemini-embedding-001", "content": {"parts": [{"text": "b"}]}}]})
    assert [len(e["values"]) for e in r.json()["embeddings"]] == [768, 768]
    bad = httpx2.post(base + ":embedContent", headers=h, json={"content": {"parts": [{"text": "x"}]},
                                                               "outputDimensionality": 0})
    assert bad.status_code == 400 and bad.json()["error"]["status"] == "INVALID_ARGUMENT"
    assert "outputDimensionality must be a positive integer" in bad.json()["error"]["message"]
    bad = httpx2.post(base + ":batchEmbedContents", headers=h, json={"requests": []})
    assert bad.status_code == 400 and "at least one" in bad.json()["error"]["message"]


@pytest.mark.surface("GET /v1beta/models", client="google-genai")
@pytest.mark.parametrize("version", [None, "v1beta"])
def test_model_list_through_the_sdk(server: MockLLMServer, version: str | None) -> None:
    c = client(server, "list", version)
    names = [m.name for m in c.models.list()]
    assert names == ["models/autocue-mock", "models/thinking"]


def test_openai_list_is_unchanged_at_v1_models(server: MockLLMServer) -> None:
    r = httpx2.get(server.base_url + "/v1/models", headers={"authorization": "Bearer k"})
    assert r.json()["object"] == "list" and r.json()["data"][0]["id"] == "autocue-mock"


@pytest.mark.surface("POST /v1beta/models/{model}:countTokens", client="google-genai")
def test_count_tokens_through_the_sdk(server: MockLLMServer) -> None:
    c = client(server, "count", "v1beta")
    got = c.models.count_tokens(model="gemini-2.5-flash", contents="count these words please, all of them")
    assert got.total_tokens and got.total_tokens > 0
    assert not any(s["key"] == "count" for s in server.sessions()), "a count is no model call"
