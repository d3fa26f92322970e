"""A pydantic-ai agent with two real tools (get_weather, write_file), on OpenAI's chat model or on
Anthropic's, each pointed at autocue's MockLLM through its provider's ``http_client``."""

from __future__ import annotations

from pathlib import Path

import httpx2
from pydantic_ai import Agent
from pydantic_ai.models.anthropic import AnthropicModel
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.anthropic import AnthropicProvider
from pydantic_ai.providers.openai import OpenAIProvider

from autocue.testing import MockLLM

WIRING = ("OpenAIChatModel('gpt-4o', provider=OpenAIProvider(base_url=llm.openai_base_url, api_key=llm.api_key, "
          "http_client=httpx2.AsyncClient(transport=llm.async_transport())))")
"""The one line docs/frameworks.md shows (AnthropicProvider takes the same ``http_client``)."""
DIALECTS = "OpenAI Chat, Anthropic Messages"
"""The wire dialects the example plays the scenario over."""

WEATHER = {"paris": "sunny, 21 C", "oslo": "rain, 9 C"}


def tools(workdir: Path) -> list[object]:
    def get_weather(city: str) -> str:
        """The current weather in a city."""
        return WEATHER.get(city.lower(), "unknown")

    def write_file(path: str, content: str) -> str:
        """Write a text file in the working directory."""
        target = workdir / path
        target.write_text(content + "\n")
        return f"wrote {len(content) + 1} bytes to {path}"

    return [get_weather, write_file]


def model(llm: MockLLM, dialect: str) -> OpenAIChatModel | AnthropicModel:
    client = httpx2.AsyncClient(transport=llm.async_transport())
    if dialect == "anthropic":
        return AnthropicModel("claude-sonnet-4-6", provider=AnthropicProvider(
            base_url=llm.base_url, api_key=llm.api_key, http_client=client))
    return OpenAIChatModel("gpt-4o", provider=OpenAIProvider(
        base_url=llm.openai_base_url, api_key=llm.api_key, http_client=client))


async def run(llm: MockLLM, workdir: Path, dialect: str = "openai") -> str:
    """Ask the agent the scenario's question; its final answer."""
    agent = Agent(model(llm, dialect), tools=tools(workdir),
                  instructions="Answer weather questions; save reports with write_file.")
    result = await agent.run("What's the weather in Paris? Save a one-line report to report.txt.")
    return result.output
