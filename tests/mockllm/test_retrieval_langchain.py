"""A retrieval test in a real framework: LangChain's ``InMemoryVectorStore`` indexes passages with
``langchain_openai.OpenAIEmbeddings`` served by the mock server and retrieves the right one, first
by the hash vectors (shared words are near), then by vectors the scenario scripts."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.vectorstores import InMemoryVectorStore
from langchain_openai import OpenAIEmbeddings

from autocue.mockllm import MockLLMServer, serve

PASSAGES = [
    "The cat sat on the warm mat by the kitchen door.",
    "Quarterly revenue grew by twelve percent in Europe.",
    "Open Settings, then Account, then Security, and choose Start over.",
    "The train to Lyon leaves from platform nine at noon.",
]
QUERY = "How do I reset my password on the train app?"
SCRIPTED = f"""
name: support-bot
server:
  embeddings:
    vectors:
      {QUERY!r}: {{like: {PASSAGES[2]!r}}}
timeline:
  - assistant: [[0, "Open Settings."]]
"""


def _store(server: MockLLMServer, key: str) -> InMemoryVectorStore:
    embeddings = OpenAIEmbeddings(model="text-embedding-3-small", base_url=server.base_url + "/v1", api_key=key,
                                  dimensions=256, check_embedding_ctx_length=False, max_retries=0)
    return InMemoryVectorStore.from_texts(PASSAGES, embeddings)


@pytest.mark.parametrize(("query", "expected"), [
    ("where did the cat sit on the mat", PASSAGES[0]),
    ("how much did revenue grow in Europe", PASSAGES[1]),
    ("which platform does the Lyon train leave from", PASSAGES[3]),
])
def test_hash_vectors_retrieve_the_passage_that_shares_the_query_words(tools_server: MockLLMServer, query: str,
                                                                       expected: str) -> None:
    hits = _store(tools_server, "rag").similarity_search(query, k=1)
    assert [h.page_content for h in hits] == [expected]


def test_scripted_vectors_retrieve_what_the_scenario_says(tmp_path: Path, tools_server: MockLLMServer) -> None:
    # the query shares no word with the passage it should find, and one with another: hash vectors miss it ...
    assert _store(tools_server, "plain").similarity_search(QUERY, k=1)[0].page_content == PASSAGES[3]
    f = tmp_path / "support.yaml"
    f.write_text(SCRIPTED)
    with serve(f) as server:  # ... the scenario's vector for the query finds it
        store = _store(server, "scripted")
        hits = store.similarity_search_with_score(QUERY, k=2)
        assert hits[0][0].page_content == PASSAGES[2] and hits[0][1] == pytest.approx(1.0)
        assert hits[1][1] < 0.5
        assert [r["outcome"] for r in server.requests("scripted")] == ["embeddings", "embeddings"]
