"""A DSPy ``ReAct`` agent with two real tools, on ``dspy.LM`` with its LiteLLM engine.

DSPy deep-copies a call's keyword arguments, so litellm's ``client=`` (an ``openai.OpenAI``)
cannot go through ``dspy.LM``; litellm's public ``litellm.client_session`` can: the ``httpx``
client its OpenAI provider gives the clients it builds, here on the in-process transport."""

from __future__ import annotations

from pathlib import Path

import dspy
import httpx
import litellm

from autocue.testing import MockLLM

WIRING = ('litellm.client_session = httpx.Client(transport=llm.httpx_transport()); dspy.LM("openai/gpt-4o", '
          'engine="litellm", api_base=llm.openai_base_url, api_key=llm.api_key)')
DIALECTS = "OpenAI Chat (text fields, no tool calls)"

PROMPT = "What's the weather in Paris? Save a one-line report to report.txt."


def get_weather(city: str) -> str:
    """The current weather in a city."""
    return "sunny, 21 C" if city == "Paris" else "unknown"


def file_writer(workdir: Path) -> dspy.Tool:
    def write_file(path: str, content: str) -> str:
        """Write a text file (path relative to the working directory)."""
        (workdir / path).write_text(content + "\n")
        return f"wrote {len(content) + 1} bytes to {path}"

    return dspy.Tool(write_file)


def run(llm: MockLLM, workdir: Path) -> str:
    lm = dspy.LM("openai/gpt-4o", engine="litellm", api_base=llm.openai_base_url, api_key=llm.api_key,
                 cache=False, num_retries=0)
    react = dspy.ReAct("question -> answer", tools=[get_weather, file_writer(workdir)], max_iters=5)
    before, litellm.client_session = litellm.client_session, httpx.Client(transport=llm.httpx_transport())
    try:
        with dspy.context(lm=lm):
            return str(react(question=PROMPT).answer)
    finally:
        litellm.client_session = before
