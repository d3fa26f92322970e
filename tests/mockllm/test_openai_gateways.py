"""OpenRouter-style ``/api/v1`` and Azure OpenAI paths (deployments with ``?api-version=``, the v1
API) are routes onto Chat Completions and Responses, judged by the official ``openai`` clients."""

from __future__ import annotations

from typing import Any

import openai
import pytest
from mockllm_helpers import retry_script, say, tools_script

from autocue.mockllm import serve
from autocue.mockllm.embeddings import vector
from autocue.script import Script, Turn

API_VERSION = "2024-10-21"


@pytest.mark.surface("POST /openai/deployments/{deployment}/chat/completions", client="openai")
def test_azure_deployment_chat_tool_round_trip_and_embeddings() -> None:
    with serve(tools_script()) as server:
        client = openai.AzureOpenAI(azure_endpoint=server.base_url, api_version=API_VERSION, api_key="az-key")
        msgs: list[Any] = [{"role": "user", "content": "list the files"}]
        first = client.chat.completions.create(model="gpt4o-deploy", messages=msgs)
        assert first.model == "gpt4o-deploy" and first.choices[0].finish_reason == "tool_calls"
        call = (first.choices[0].message.tool_calls or [])[0]
        assert call.function.name == "bash" and call.function.arguments == '{"command":"ls"}'
        journal = server.requests("az-key")  # the api-key header names the session
        assert journal[0]["path"] == "/openai/deployments/gpt4o-deploy/chat/completions"
        assert journal[0]["headers"]["api-key"] == "<redacted>"
        emb = client.embeddings.create(model="embed-deploy", input="the cat sat", dimensions=16,
                                       encoding_format="float")
        assert emb.data[0].embedding == vector("the cat sat", 16) and emb.model == "embed-deploy"


@pytest.mark.surface("POST /openai/responses", client="openai")
def test_azure_v1_api_and_responses() -> None:
    with serve(Script([Turn("hello", [say("hi from responses"), say("hi from the v1 API")])], name="two")) as server:
        azure = openai.AzureOpenAI(azure_endpoint=server.base_url, api_version=API_VERSION, api_key="az2")
        got = azure.responses.create(model="resp-deploy", input="hello")
        assert got.output_text == "hi from responses"
        v1 = openai.OpenAI(base_url=server.base_url + "/openai/v1", api_key="az2")
        chat = v1.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hello"}])
        assert chat.choices[0].message.content == "hi from the v1 API"
        paths = [r["path"] for r in server.requests("az2")]
        assert paths == ["/openai/responses", "/openai/v1/chat/completions"]
        assert [m.id for m in v1.models.list()] == ["autocue-mock", "two"]


@pytest.mark.surface("POST /api/v1/chat/completions", client="openai")
def test_openrouter_chat_stream_retry_models_and_embeddings() -> None:
    with serve(retry_script()) as server:
        client = openai.OpenAI(base_url=server.base_url + "/api/v1", api_key="or-key", max_retries=2)
        stream = client.chat.completions.create(model="anthropic/claude-sonnet-4",
                                                messages=[{"role": "user", "content": "hello"}], stream=True)
        assert "".join(c.choices[0].delta.content or "" for c in stream if c.choices) == "made it"
        statuses = [r["status"] for r in server.requests("or-key")]
        assert statuses == [429, 200], "the client's own retry got past the scripted 429"
        assert [m.id for m in client.models.list()] == ["autocue-mock", "retry"]
        emb = client.embeddings.create(model="openai/text-embedding-3-small", input=["a", "b"], dimensions=8)
        assert len(emb.data) == 2 and all(len(d.embedding) == 8 for d in emb.data)


def test_every_dialect_lists_the_loaded_scenarios() -> None:
    import anthropic
    import ollama

    with serve([tools_script(), retry_script()]) as server:
        want = ["autocue-mock", "tools", "retry"]
        assert [m.id for m in openai.OpenAI(base_url=server.openai_base_url, api_key="k").models.list()] == want
        assert [m.id for m in anthropic.Anthropic(base_url=server.base_url, api_key="k").models.list()] == want
        assert [m.id for m in openai.OpenAI(base_url=server.base_url + "/api/v1", api_key="k").models.list()] == want
        assert [m.model for m in ollama.Client(host=server.base_url).list().models] == want
