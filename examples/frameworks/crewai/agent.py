"""A CrewAI crew of one agent with two real tools, on CrewAI's native Gemini provider.

CrewAI's OpenAI and Anthropic providers pass ``client_params`` to the sync and the async SDK
client alike (a sync ``http_client`` breaks the async one), but its Gemini provider hands them
to one ``google.genai.Client``, whose ``HttpOptions`` take a sync and an async ``httpx`` client
together: both on the in-process transports."""

from __future__ import annotations

from pathlib import Path

import httpx
from crewai import LLM, Agent, Crew, Task
from crewai.tools import BaseTool, tool
from google.genai import types

from autocue.testing import MockLLM

WIRING = ('LLM(model="gemini/gemini-2.5-flash", api_key=llm.api_key, client_params={"http_options": types.HttpOptions('
          'base_url=llm.base_url, httpx_client=httpx.Client(transport=llm.httpx_transport()), '
          'httpx_async_client=httpx.AsyncClient(transport=llm.async_httpx_transport()))})')
DIALECTS = "Gemini generateContent"

PROMPT = "What's the weather in Paris? Save a one-line report to report.txt."


@tool("get_weather")
def get_weather(city: str) -> str:
    """The current weather in a city."""
    return "sunny, 21 C" if city == "Paris" else "unknown"


def file_writer(workdir: Path) -> BaseTool:
    @tool("write_file")
    def write_file(path: str, content: str) -> str:
        """Write a text file (path relative to the working directory)."""
        (workdir / path).write_text(content + "\n")
        return f"wrote {len(content) + 1} bytes to {path}"

    return write_file


def run(llm: MockLLM, workdir: Path) -> str:
    options = types.HttpOptions(base_url=llm.base_url, httpx_client=httpx.Client(transport=llm.httpx_transport()),
                                httpx_async_client=httpx.AsyncClient(transport=llm.async_httpx_transport()))
    model = LLM(model="gemini/gemini-2.5-flash", api_key=llm.api_key, client_params={"http_options": options})
    reporter = Agent(role="Weather reporter", goal="Report the weather and save reports where asked.",
                     backstory="You use your tools for facts and files.", llm=model,
                     tools=[get_weather, file_writer(workdir)], max_iter=5, verbose=False)
    task = Task(description=PROMPT, expected_output="One sentence saying what was saved.", agent=reporter)
    return str(Crew(agents=[reporter], tasks=[task], verbose=False).kickoff()).strip()
