"""A LlamaIndex ``FunctionAgent`` with two real tools (get_weather, write_file) on
llama-index-llms-openai's ``OpenAI`` LLM, given httpx clients on autocue's MockLLM.
llama-index-llms-openai 0.8 requires ``openai`` 2.x, which sends with ``httpx`` 0.28 (not
``httpx2``): hence the MockLLM's ``httpx_transport()`` / ``async_httpx_transport()``."""

from __future__ import annotations

from pathlib import Path

import httpx
from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.tools import FunctionTool
from llama_index.llms.openai import OpenAI

from autocue.testing import MockLLM

WIRING = ("OpenAI(model='gpt-4o', api_base=llm.openai_base_url, api_key=llm.api_key, "
          "http_client=httpx.Client(transport=llm.httpx_transport()), "
          "async_http_client=httpx.AsyncClient(transport=llm.async_httpx_transport()))")
"""The one line docs/frameworks.md shows."""
DIALECTS = "OpenAI Chat (streamed)"
"""The wire dialects the example plays the scenario over."""

WEATHER = {"paris": "sunny, 21 C", "oslo": "rain, 9 C"}


def tools(workdir: Path) -> list[FunctionTool]:
    def get_weather(city: str) -> str:
        """The current weather in a city."""
        return WEATHER.get(city.lower(), "unknown")

    def write_file(path: str, content: str) -> str:
        """Write a text file in the working directory."""
        (workdir / path).write_text(content + "\n")
        return f"wrote {len(content) + 1} bytes to {path}"

    return [FunctionTool.from_defaults(get_weather), FunctionTool.from_defaults(write_file)]


def model(llm: MockLLM) -> OpenAI:
    return OpenAI(model="gpt-4o", api_base=llm.openai_base_url, api_key=llm.api_key,
                  http_client=httpx.Client(transport=llm.httpx_transport()),
                  async_http_client=httpx.AsyncClient(transport=llm.async_httpx_transport()))


async def run(llm: MockLLM, workdir: Path) -> str:
    """Ask the agent the scenario's question; its final answer."""
    agent = FunctionAgent(tools=tools(workdir), llm=model(llm),
                          system_prompt="Answer weather questions; save reports with write_file.")
    result = await agent.run("What's the weather in Paris? Save a one-line report to report.txt.")
    return str(result)
