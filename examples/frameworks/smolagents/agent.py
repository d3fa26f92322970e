"""A smolagents ``ToolCallingAgent`` with two real tools, its model an ``OpenAIServerModel``
whose OpenAI client runs on autocue's in-process transport (``client_kwargs`` go to
``openai.OpenAI``, so ``http_client=`` is the hook: no server, no patching)."""

from __future__ import annotations

from pathlib import Path

import httpx2
from smolagents import OpenAIServerModel, Tool, ToolCallingAgent, tool

from autocue.testing import MockLLM

WIRING = ('OpenAIServerModel("gpt-4o", api_base=llm.openai_base_url, api_key=llm.api_key, '
          'client_kwargs={"http_client": httpx2.Client(transport=llm.transport())})')
DIALECTS = "OpenAI Chat"


@tool
def get_weather(city: str) -> str:
    """The current weather in a city.

    Args:
        city: The city's name.
    """
    return "sunny, 21 C" if city == "Paris" else "unknown"


def file_writer(workdir: Path) -> Tool:
    """The ``write_file`` tool, writing under ``workdir``."""

    @tool
    def write_file(path: str, content: str) -> str:
        """Write a text file.

        Args:
            path: The file's path, relative to the working directory.
            content: The text to write.
        """
        target = workdir / path
        target.write_text(content + "\n")
        return f"wrote {len(content) + 1} bytes to {path}"

    return write_file


def run(llm: MockLLM, workdir: Path) -> str:
    model = OpenAIServerModel("gpt-4o", api_base=llm.openai_base_url, api_key=llm.api_key,
                              client_kwargs={"http_client": httpx2.Client(transport=llm.transport()),
                                             "max_retries": 0})
    agent = ToolCallingAgent(tools=[get_weather, file_writer(workdir)], model=model, max_steps=5,
                             verbosity_level=0)
    return str(agent.run("What's the weather in Paris? Save a one-line report to report.txt."))
