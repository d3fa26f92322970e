"""An OpenAI Agents SDK agent with two real tools (get_weather, write_file), on the Responses model
or on the Chat Completions model, each given an ``AsyncOpenAI`` client on autocue's MockLLM."""

from __future__ import annotations

from pathlib import Path

import httpx2
from agents import (
    Agent,
    FunctionTool,
    Model,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    RunConfig,
    Runner,
    function_tool,
)
from openai import AsyncOpenAI

from autocue.testing import MockLLM

WIRING = ("OpenAIResponsesModel('gpt-4o', openai_client=AsyncOpenAI(base_url=llm.openai_base_url, "
          "api_key=llm.api_key, http_client=httpx2.AsyncClient(transport=llm.async_transport())))")
"""The one line docs/frameworks.md shows (OpenAIChatCompletionsModel takes the same client)."""
DIALECTS = "OpenAI Responses, OpenAI Chat"
"""The wire dialects the example plays the scenario over."""

WEATHER = {"paris": "sunny, 21 C", "oslo": "rain, 9 C"}


def tools(workdir: Path) -> list[FunctionTool]:
    @function_tool
    def get_weather(city: str) -> str:
        """The current weather in a city."""
        return WEATHER.get(city.lower(), "unknown")

    @function_tool
    def write_file(path: str, content: str) -> str:
        """Write a text file in the working directory."""
        (workdir / path).write_text(content + "\n")
        return f"wrote {len(content) + 1} bytes to {path}"

    return [get_weather, write_file]


def model(llm: MockLLM, api: str) -> Model:
    client = AsyncOpenAI(base_url=llm.openai_base_url, api_key=llm.api_key,
                         http_client=httpx2.AsyncClient(transport=llm.async_transport()))
    if api == "chat":
        return OpenAIChatCompletionsModel("gpt-4o", openai_client=client)
    return OpenAIResponsesModel("gpt-4o", openai_client=client)


async def run(llm: MockLLM, workdir: Path, api: str = "responses") -> str:
    """Ask the agent the scenario's question; its final answer."""
    agent = Agent(name="weather", instructions="Answer weather questions; save reports with write_file.",
                  model=model(llm, api), tools=tools(workdir))
    # no tracing: the SDK would export the run's spans to OpenAI's servers
    result = await Runner.run(agent, "What's the weather in Paris? Save a one-line report to report.txt.",
                              run_config=RunConfig(tracing_disabled=True))
    return str(result.final_output)
