"""A LangGraph agent (LangChain's ``create_agent``, the successor of LangGraph's
``create_react_agent``, built on a LangGraph graph) with two real tools (get_weather,
write_file), on ``ChatOpenAI`` or on ``ChatAnthropic``.

``ChatOpenAI`` takes ``http_client`` / ``http_async_client``: it runs on autocue's MockLLM in
process. ``ChatAnthropic`` (langchain-anthropic 1.7) builds its ``anthropic`` client itself and
takes no HTTP client, only a base URL: it runs against ``autocue.mockllm.serve`` on loopback.
"""

from __future__ import annotations

from pathlib import Path

import httpx2
from langchain.agents import create_agent
from langchain_anthropic import ChatAnthropic
from langchain_core.language_models import BaseChatModel
from langchain_core.tools import BaseTool, tool
from langchain_openai import ChatOpenAI

from autocue.mockllm import MockLLMServer
from autocue.testing import MockLLM

WIRING = ("ChatOpenAI(model='gpt-4o', base_url=llm.openai_base_url, api_key=llm.api_key, "
          "http_client=httpx2.Client(transport=llm.transport()), "
          "http_async_client=httpx2.AsyncClient(transport=llm.async_transport())); "
          "ChatAnthropic takes no HTTP client: ChatAnthropic(model=..., base_url=server.base_url) "
          "with autocue.mockllm.serve")
"""The one line docs/frameworks.md shows."""
DIALECTS = "OpenAI Chat (in process), Anthropic Messages (loopback)"
"""The wire dialects the example plays the scenario over."""

WEATHER = {"paris": "sunny, 21 C", "oslo": "rain, 9 C"}


def tools(workdir: Path) -> list[BaseTool]:
    @tool
    def get_weather(city: str) -> str:
        """The current weather in a city."""
        return WEATHER.get(city.lower(), "unknown")

    @tool
    def write_file(path: str, content: str) -> str:
        """Write a text file in the working directory."""
        (workdir / path).write_text(content + "\n")
        return f"wrote {len(content) + 1} bytes to {path}"

    return [get_weather, write_file]


def openai_model(llm: MockLLM) -> BaseChatModel:
    return ChatOpenAI(model="gpt-4o", base_url=llm.openai_base_url, api_key=llm.api_key,
                      http_client=httpx2.Client(transport=llm.transport()),
                      http_async_client=httpx2.AsyncClient(transport=llm.async_transport()))


def anthropic_model(server: MockLLMServer, api_key: str) -> BaseChatModel:
    # no client hook in langchain-anthropic: a base URL on the loopback server
    return ChatAnthropic(model_name="claude-sonnet-4-6", base_url=server.base_url, api_key=api_key, timeout=30)


def run(llm: MockLLM | MockLLMServer, workdir: Path, api_key: str = "autocue-test") -> str:
    """Ask the agent the scenario's question; its final answer. A ``MockLLM`` gets ``ChatOpenAI``,
    a ``MockLLMServer`` (``serve``) ``ChatAnthropic``."""
    model = openai_model(llm) if isinstance(llm, MockLLM) else anthropic_model(llm, api_key)
    agent = create_agent(model, tools(workdir), system_prompt="Answer weather questions; save reports with write_file.")
    state = agent.invoke({"messages": [("user", "What's the weather in Paris? Save a one-line report to report.txt.")]})
    return str(state["messages"][-1].text)
