"""An instructor agent: each turn the model's tool calls come back as validated pydantic objects
(``Mode.PARALLEL_TOOLS`` over ``Iterable[get_weather | write_file | final_answer]``), the agent
runs them and sends the results back, until the model calls ``final_answer``. instructor wraps
an ``openai.OpenAI`` client, which takes the in-process transport as its ``http_client``."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import httpx2
import instructor
import openai
from pydantic import BaseModel, Field

from autocue.testing import MockLLM

WIRING = ('instructor.from_openai(openai.OpenAI(base_url=llm.openai_base_url, api_key=llm.api_key, '
          'http_client=httpx2.Client(transport=llm.transport())), mode=instructor.Mode.PARALLEL_TOOLS)')
DIALECTS = "OpenAI Chat"

PROMPT = "What's the weather in Paris? Save a one-line report to report.txt."


# A class's name is its tool's name.
class get_weather(BaseModel):
    """The current weather in a city."""

    city: str = Field(description="The city's name.")

    def run(self, workdir: Path) -> str:
        return "sunny, 21 C" if self.city == "Paris" else "unknown"


class write_file(BaseModel):
    """Write a text file."""

    path: str = Field(description="The file's path, relative to the working directory.")
    content: str = Field(description="The text to write.")

    def run(self, workdir: Path) -> str:
        (workdir / self.path).write_text(self.content + "\n")
        return f"wrote {len(self.content) + 1} bytes to {self.path}"


class final_answer(BaseModel):
    """Give the user the final answer, once the work is done."""

    text: str = Field(description="The answer.")


Action = get_weather | write_file | final_answer


def run(llm: MockLLM, workdir: Path, max_turns: int = 5) -> str:
    client = instructor.from_openai(
        openai.OpenAI(base_url=llm.openai_base_url, api_key=llm.api_key, max_retries=0,
                      http_client=httpx2.Client(transport=llm.transport())),
        mode=instructor.Mode.PARALLEL_TOOLS)
    completions: list[Any] = []  # an Iterable response keeps no raw completion: a hook gets it
    client.on("completion:response", completions.append)
    messages: list[Any] = [{"role": "user", "content": PROMPT}]
    for _ in range(max_turns):
        actions = list(client.chat.completions.create(
            model="gpt-4o", response_model=Iterable[Action], messages=messages, max_retries=0))
        message = completions[-1].choices[0].message
        messages.append({"role": "assistant", "content": message.content or "",
                         "tool_calls": [c.model_dump() for c in message.tool_calls or []]})
        for call, action in zip(message.tool_calls or [], actions, strict=True):
            if isinstance(action, final_answer):
                return action.text
            messages.append({"role": "tool", "tool_call_id": call.id, "content": action.run(workdir)})
    raise RuntimeError(f"no final answer after {max_turns} turns")
