"""Model listings: each client lists the scenarios the server plays (and ``autocue-mock``)."""

from __future__ import annotations

import anthropic
import openai
import pytest

from autocue.mockllm import MockLLMServer


@pytest.mark.surface("GET /v1/models", client="openai")
def test_openai_and_anthropic_clients_list_the_playable_scenarios(tools_server: MockLLMServer) -> None:
    oa = openai.OpenAI(base_url=tools_server.openai_base_url, api_key="k", max_retries=0)
    ids = [m.id for m in oa.models.list()]
    assert ids == ["autocue-mock", "tools"]
    assert oa.models.retrieve("tools").id == "tools"
    an = anthropic.Anthropic(base_url=tools_server.base_url, api_key="k", max_retries=0)
    assert [m.id for m in an.models.list()] == ["autocue-mock", "tools"]
