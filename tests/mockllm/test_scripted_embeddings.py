"""Embeddings scripted per input text in the scenario (``server.embeddings``), served on every
embeddings endpoint, journaled; the loader's errors name file:line:col."""

from __future__ import annotations

from pathlib import Path

import ollama
import openai
import pytest

from autocue.mockllm import serve
from autocue.mockllm.embeddings import vector
from autocue.scenario import ScenarioError, load_scenario_text

SCENARIO = """
name: rag
server:
  embeddings:
    vectors:
      "reset password": [1, 0, 0, 0]
      "How do I reset my password?": {like: "reset password"}
      "Where is the cat?": {like: "the cat sat on the mat"}
timeline:
  - assistant: [[0, "Use Settings."]]
"""


@pytest.fixture
def rag(tmp_path: Path) -> Path:
    f = tmp_path / "rag.yaml"
    f.write_text(SCENARIO)
    return f


def test_scripted_vectors_and_likes_on_openai_and_ollama(rag: Path) -> None:
    with serve(rag) as server:
        client = openai.OpenAI(base_url=server.base_url + "/v1", api_key="emb", max_retries=0)
        texts = ["reset password", "How do I reset my password?", "Where is the cat?", "the cat sat on the mat"]
        got = [d.embedding for d in client.embeddings.create(model="m", input=texts, encoding_format="float").data]
        assert got[0] == got[1] == [1.0, 0.0, 0.0, 0.0]
        # a like of an unscripted text shares its hash vector, at the scripted vectors' length
        assert got[2] == got[3] == vector("the cat sat on the mat", 4)
        o = ollama.Client(host=server.base_url, headers={"authorization": "Bearer emb"})
        assert o.embed(model="m", input="How do I reset my password?").embeddings == [[1.0, 0.0, 0.0, 0.0]]
        journal = server.requests("emb")
        assert [(r["path"], r["status"], r["outcome"]) for r in journal] == \
            [("/v1/embeddings", 200, "embeddings"), ("/api/embed", 200, "embeddings")]
        with pytest.raises(openai.BadRequestError) as e:
            client.embeddings.create(model="m", input="reset password", dimensions=8, encoding_format="float")
        assert "scripts a vector of 4 dimensions for 'reset password', and the request asks for 8" in e.value.message


def test_without_a_chosen_scenario_texts_get_their_hash_vectors(rag: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.yaml"
    other.write_text("name: other\ninitialPrompt: hi\ntimeline:\n  - assistant: [[0, hello]]\n")
    with serve([rag, other]) as server:
        client = openai.OpenAI(base_url=server.base_url + "/v1", api_key="k", max_retries=0)
        plain = client.embeddings.create(model="m", input="reset password", encoding_format="float")
        assert plain.data[0].embedding == vector("reset password")
        named = openai.OpenAI(base_url=server.url_for(scenario="rag", openai=True), api_key="k", max_retries=0)
        assert named.embeddings.create(model="m", input="reset password",
                                       encoding_format="float").data[0].embedding == [1.0, 0.0, 0.0, 0.0]
        missing = openai.OpenAI(base_url=server.url_for(scenario="nope", openai=True), api_key="k", max_retries=0)
        with pytest.raises(openai.NotFoundError, match="no scenario named 'nope'"):
            missing.embeddings.create(model="m", input="x")


@pytest.mark.parametrize(("block", "where", "message"), [
    ('      "a": [1, 0]\n      "b": [1, 0, 0]\n', "rag.yaml:6:12", "this vector has 3 dimensions, the others 2"),
    ('      "a": ["x"]\n', "rag.yaml:5:12", "a non-empty list of finite numbers"),
    ('      "a": [0, 0]\n', "rag.yaml:5:12", "a vector of zeros has no direction"),
    ('      "a": {like: b}\n      "b": {like: a}\n', "rag.yaml:5:12",
     "`like` goes round in a circle: 'a' -> 'b' -> 'a'"),
])
def test_malformed_scripted_vectors_name_file_line_col(block: str, where: str, message: str) -> None:
    text = "name: rag\nserver:\n  embeddings:\n    vectors:\n" + block + "timeline: []\n"
    with pytest.raises(ScenarioError) as e:
        load_scenario_text(text, "rag.yaml")
    assert str(e.value).startswith(where + ": server.embeddings.vectors.") and message in str(e.value)


def test_scripted_vectors_reach_google_genai_and_boto3_too(rag: Path) -> None:
    import json

    import boto3
    from google import genai
    from google.genai import types

    with serve(rag) as server:
        g = genai.Client(api_key="g-emb", http_options=types.HttpOptions(base_url=server.base_url))
        got = g.models.embed_content(model="text-embedding-004", contents=["How do I reset my password?"])
        assert got.embeddings is not None and got.embeddings[0].values == [1.0, 0.0, 0.0, 0.0]
        b = boto3.client("bedrock-runtime", endpoint_url=server.base_url, region_name="us-east-1",
                         aws_access_key_id="AKIDEMB", aws_secret_access_key="any")
        titan = json.loads(b.invoke_model(modelId="amazon.titan-embed-text-v2:0",
                                          body=json.dumps({"inputText": "reset password"}))["body"].read())
        assert titan["embedding"] == [1.0, 0.0, 0.0, 0.0]
        assert [r["outcome"] for r in server.requests("g-emb") + server.requests("AKIDEMB")] == ["embeddings"] * 2
