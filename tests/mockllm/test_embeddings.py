"""Embeddings: deterministic vectors from the text, judged by the official OpenAI client."""

from __future__ import annotations

import math

import openai
import pytest

from autocue.mockllm import MockLLMServer
from autocue.mockllm.embeddings import vector


def _cos(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


@pytest.mark.surface("POST /v1/embeddings", client="openai")
def test_openai_client_gets_unit_vectors_of_the_asked_dimensions(tools_server: MockLLMServer) -> None:
    client = openai.OpenAI(base_url=tools_server.base_url + "/v1", api_key="emb", max_retries=0)
    got = client.embeddings.create(model="text-embedding-3-small", input=["the cat sat", "tax returns"],
                                   dimensions=64)  # the SDK asks for base64 and decodes it
    assert [d.index for d in got.data] == [0, 1] and got.model == "text-embedding-3-small"
    assert all(len(d.embedding) == 64 for d in got.data)
    assert all(abs(math.sqrt(_cos(d.embedding, d.embedding)) - 1) < 1e-5 for d in got.data)
    assert got.usage.prompt_tokens == got.usage.total_tokens > 0
    # the same text gives the same vector, whether sent as floats or base64, on any run
    floats = client.embeddings.create(model="m", input="the cat sat", dimensions=64, encoding_format="float")
    assert floats.data[0].embedding == vector("the cat sat", 64)
    assert got.data[0].embedding == pytest.approx(floats.data[0].embedding, abs=1e-6)
    default = client.embeddings.create(model="m", input="x", encoding_format="float")
    assert len(default.data[0].embedding) == 1536


def test_texts_that_share_words_are_nearer() -> None:
    q = vector("where did the cat sit", 256)
    assert _cos(q, vector("the cat sat on the mat", 256)) > _cos(q, vector("quarterly revenue grew", 256))
    assert vector("Same text", 32) == vector("Same text", 32) != vector("Other text", 32)


def test_a_malformed_embeddings_request_is_a_400_in_openai_shape(tools_server: MockLLMServer) -> None:
    client = openai.OpenAI(base_url=tools_server.base_url + "/v1", api_key="emb", max_retries=0)
    with pytest.raises(openai.BadRequestError) as e:
        client.embeddings.create(model="m", input=[], encoding_format="float")
    assert "input must be a string, a non-empty list of strings, or token ids" in e.value.message
    with pytest.raises(openai.BadRequestError) as e:
        client.embeddings.create(model="m", input="x", dimensions=0, encoding_format="float")
    assert "dimensions must be a positive integer" in e.value.message
