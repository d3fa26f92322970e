"""A Google ADK ``LlmAgent`` with two real tools, run by an ADK ``Runner``. Its ``Gemini`` model
takes a ready ``google.genai.Client`` as ``client=``; that client takes the in-process
transport through its ``HttpOptions`` (``httpx_async_client``: ADK calls the model
asynchronously)."""

from __future__ import annotations

from pathlib import Path

import httpx2
from google import genai
from google.adk.agents import LlmAgent
from google.adk.models import Gemini
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types

from autocue.testing import MockLLM

WIRING = ('Gemini(model="gemini-2.5-flash", client=genai.Client(api_key=llm.api_key, http_options=types.HttpOptions('
          'base_url=llm.base_url, httpx_async_client=httpx2.AsyncClient(transport=llm.async_transport()))))')
DIALECTS = "Gemini generateContent"

PROMPT = "What's the weather in Paris? Save a one-line report to report.txt."


def get_weather(city: str) -> str:
    """The current weather in a city.

    Args:
        city: The city's name.
    """
    return "sunny, 21 C" if city == "Paris" else "unknown"


def build_agent(client: genai.Client, workdir: Path) -> LlmAgent:
    def write_file(path: str, content: str) -> str:
        """Write a text file.

        Args:
            path: The file's path, relative to the working directory.
            content: The text to write.
        """
        (workdir / path).write_text(content + "\n")
        return f"wrote {len(content) + 1} bytes to {path}"

    return LlmAgent(name="weather", model=Gemini(model="gemini-2.5-flash", client=client),
                    instruction="Answer with the tools; save reports where the user says.",
                    tools=[get_weather, write_file])


async def run(llm: MockLLM, workdir: Path) -> str:
    options = types.HttpOptions(base_url=llm.base_url,
                                httpx_async_client=httpx2.AsyncClient(transport=llm.async_transport()))
    client = genai.Client(api_key=llm.api_key, http_options=options)
    runner = Runner(app_name="weather", agent=build_agent(client, workdir), session_service=InMemorySessionService())
    session = await runner.session_service.create_session(app_name="weather", user_id="user")
    answer = ""
    async for event in runner.run_async(user_id="user", session_id=session.id,
                                        new_message=types.Content(role="user", parts=[types.Part(text=PROMPT)])):
        if event.is_final_response() and event.content and event.content.parts:
            answer = "".join(p.text or "" for p in event.content.parts)
    return answer
