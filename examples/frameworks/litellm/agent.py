"""A litellm tool loop: ``litellm.completion`` with two tools, run until the model answers in
text. litellm's OpenAI provider takes a ready ``openai.OpenAI`` as ``client=``, and that client
takes the in-process transport as its ``http_client``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx2
import litellm
import openai

from autocue.testing import MockLLM

WIRING = ('litellm.completion(model="openai/gpt-4o", messages=..., client=openai.OpenAI(base_url=llm.openai_base_url, '
          'api_key=llm.api_key, http_client=httpx2.Client(transport=llm.transport())))')
DIALECTS = "OpenAI Chat"

PROMPT = "What's the weather in Paris? Save a one-line report to report.txt."


def _function(name: str, description: str, **params: str) -> dict[str, Any]:
    return {"type": "function", "function": {
        "name": name, "description": description,
        "parameters": {"type": "object", "required": list(params),
                       "properties": {p: {"type": "string", "description": d} for p, d in params.items()}}}}


TOOLS = [
    _function("get_weather", "The current weather in a city.", city="The city's name."),
    _function("write_file", "Write a text file.", path="The file's path, relative to the working directory.",
              content="The text to write."),
]


def tools(workdir: Path) -> dict[str, Callable[..., str]]:
    def get_weather(city: str) -> str:
        return "sunny, 21 C" if city == "Paris" else "unknown"

    def write_file(path: str, content: str) -> str:
        (workdir / path).write_text(content + "\n")
        return f"wrote {len(content) + 1} bytes to {path}"

    return {"get_weather": get_weather, "write_file": write_file}


def run(llm: MockLLM, workdir: Path, max_turns: int = 5) -> str:
    client = openai.OpenAI(base_url=llm.openai_base_url, api_key=llm.api_key, max_retries=0,
                           http_client=httpx2.Client(transport=llm.transport()))
    functions = tools(workdir)
    messages: list[Any] = [{"role": "user", "content": PROMPT}]
    for _ in range(max_turns):
        response = litellm.completion(model="openai/gpt-4o", messages=messages, tools=TOOLS, client=client)
        message = response.choices[0].message
        if not message.tool_calls:
            return str(message.content)
        messages.append(message.model_dump(exclude_none=True))
        for call in message.tool_calls:
            result = functions[call.function.name](**json.loads(call.function.arguments))
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
    raise RuntimeError(f"no final answer after {max_turns} turns")
