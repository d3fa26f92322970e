"""One driver per wire API: the official client of each dialect plays the two-step tool loop of
``tests/fixtures/dialects/weather.yaml`` (two ``get_weather`` calls, then an answer) and returns the
tool calls it saw and the final text. A driver is written against ``Clients`` (the client factories
``autocue.testing.MockLLM`` has); ``HttpClients`` builds the same clients on a server's base URLs.
``tests/mockllm/test_every_dialect.py`` plays them over HTTP, ``tests/testing/test_mock_llm_journals.py``
over HTTP and in process side by side."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import anthropic
import boto3
import botocore.config
import ollama
import openai
from google import genai
from google.genai import types as gtypes

from autocue.mockllm import MockLLMServer

SCENARIO = Path(__file__).resolve().parent.parent / "fixtures" / "dialects" / "weather.yaml"
PROMPT = "What's the weather in Paris and in Oslo?"
SCHEMA: dict[str, Any] = {"type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
                          "required": ["city"]}
WEATHER = {"Paris": "sunny, 21 C", "Oslo": "rainy, 9 C"}
CALLS = [("get_weather", {"city": "Paris", "unit": "celsius"}), ("get_weather", {"city": "Oslo", "unit": "celsius"})]
Calls = list[tuple[str, dict[str, Any]]]
"""The tool calls a client saw: ``(name, arguments)``."""
FINAL = "Paris is sunny at 21 °C; Oslo is rainy at 9 °C."


class Clients(Protocol):
    def openai(self, **kwargs: Any) -> openai.OpenAI: ...

    def anthropic(self, **kwargs: Any) -> anthropic.Anthropic: ...

    def genai(self, **kwargs: Any) -> genai.Client: ...

    def boto3(self, service: str = "bedrock-runtime", **kwargs: Any) -> Any: ...

    def ollama(self, **kwargs: Any) -> ollama.Client: ...


class HttpClients:
    """The official clients pointed at a server's base URLs, with ``MockLLM``'s factory names."""

    def __init__(self, server: MockLLMServer, key: str) -> None:
        self.server, self.key = server, key

    def openai(self, **kwargs: Any) -> openai.OpenAI:
        return openai.OpenAI(base_url=self.server.openai_base_url, api_key=self.key, **kwargs)

    def anthropic(self, **kwargs: Any) -> anthropic.Anthropic:
        return anthropic.Anthropic(base_url=self.server.base_url, api_key=self.key, **kwargs)

    def genai(self, **kwargs: Any) -> genai.Client:
        return genai.Client(api_key=self.key, http_options=gtypes.HttpOptions(base_url=self.server.base_url), **kwargs)

    def boto3(self, service: str = "bedrock-runtime", **kwargs: Any) -> Any:
        return boto3.client(service, endpoint_url=self.server.base_url, region_name="us-east-1",
                            aws_access_key_id=self.key, aws_secret_access_key="autocue", **kwargs)

    def ollama(self, **kwargs: Any) -> ollama.Client:
        return ollama.Client(host=self.server.base_url, headers={"authorization": f"Bearer {self.key}"}, **kwargs)


def _chat(clients: Clients) -> tuple[Calls, str]:
    c = clients.openai(max_retries=0)
    tools: Any = [{"type": "function", "function": {"name": "get_weather", "parameters": SCHEMA}}]
    msgs: list[Any] = [{"role": "user", "content": PROMPT}]
    first = c.chat.completions.create(model="gpt-x", messages=msgs, tools=tools).choices[0].message
    calls = [(t.function.name, json.loads(t.function.arguments)) for t in first.tool_calls or []  # type: ignore[union-attr]
             ]
    msgs.append(first.model_dump(exclude_none=True))
    msgs += [{"role": "tool", "tool_call_id": t.id, "content": WEATHER[json.loads(t.function.arguments)["city"]]}  # type: ignore[union-attr]
             for t in first.tool_calls or []]
    final = c.chat.completions.create(model="gpt-x", messages=msgs, tools=tools, stream=True)
    return calls, "".join(ch.choices[0].delta.content or "" for ch in final if ch.choices)


def _responses(clients: Clients) -> tuple[Calls, str]:
    c = clients.openai(max_retries=0)
    tools: Any = [{"type": "function", "name": "get_weather", "parameters": SCHEMA, "strict": False}]
    items: list[Any] = [{"role": "user", "content": PROMPT}]
    first = c.responses.create(model="gpt-x", input=items, tools=tools)
    fcs = [o for o in first.output if o.type == "function_call"]
    items += [o.model_dump(exclude_none=True) for o in first.output]
    items += [{"type": "function_call_output", "call_id": f.call_id, "output": WEATHER[json.loads(f.arguments)["city"]]}
              for f in fcs]
    with c.responses.stream(model="gpt-x", input=items, tools=tools) as s:
        final = s.get_final_response()
    return [(f.name, json.loads(f.arguments)) for f in fcs], final.output_text


def _anthropic(clients: Clients) -> tuple[Calls, str]:
    c = clients.anthropic(max_retries=0)
    tools: Any = [{"name": "get_weather", "input_schema": SCHEMA}]
    msgs: list[Any] = [{"role": "user", "content": PROMPT}]
    first = c.messages.create(model="claude-x", max_tokens=512, messages=msgs, tools=tools)
    uses = [b for b in first.content if b.type == "tool_use"]
    msgs += [{"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in first.content]},
             {"role": "user", "content": [{"type": "tool_result", "tool_use_id": u.id,
                                           "content": WEATHER[dict(u.input)["city"]]} for u in uses]}]
    with c.messages.stream(model="claude-x", max_tokens=512, messages=msgs, tools=tools) as s:
        text = s.get_final_text()
    return [(u.name, dict(u.input)) for u in uses], text


def _gemini(clients: Clients) -> tuple[Calls, str]:
    c = clients.genai()
    config = gtypes.GenerateContentConfig(
        tools=[gtypes.Tool(function_declarations=[gtypes.FunctionDeclaration(
            name="get_weather", parameters_json_schema=SCHEMA)])],
        automatic_function_calling=gtypes.AutomaticFunctionCallingConfig(disable=True))
    contents: list[Any] = [gtypes.Content(role="user", parts=[gtypes.Part(text=PROMPT)])]
    first = c.models.generate_content(model="gemini-x", contents=contents, config=config)
    fcs = first.function_calls or []
    contents.append(first.candidates[0].content if first.candidates else None)
    contents.append(gtypes.Content(role="user", parts=[gtypes.Part.from_function_response(
        name=f.name or "", response={"result": WEATHER[(f.args or {})["city"]]}) for f in fcs]))
    text = "".join(ch.text or "" for ch in c.models.generate_content_stream(model="gemini-x", contents=contents,
                                                                           config=config))
    return [(f.name or "", dict(f.args or {})) for f in fcs], text


def _bedrock(clients: Clients) -> tuple[Calls, str]:
    c = clients.boto3("bedrock-runtime", config=botocore.config.Config(retries={"total_max_attempts": 1}))
    tools = {"tools": [{"toolSpec": {"name": "get_weather", "inputSchema": {"json": SCHEMA}}}]}
    msgs: list[Any] = [{"role": "user", "content": [{"text": PROMPT}]}]
    first = c.converse(modelId="anthropic.claude-x", messages=msgs, toolConfig=tools)["output"]["message"]
    uses = [b["toolUse"] for b in first["content"] if "toolUse" in b]
    msgs += [first, {"role": "user", "content": [{"toolResult": {"toolUseId": u["toolUseId"], "content": [
        {"text": WEATHER[u["input"]["city"]]}]}} for u in uses]}]
    stream = c.converse_stream(modelId="anthropic.claude-x", messages=msgs, toolConfig=tools)["stream"]
    text = "".join(e["contentBlockDelta"]["delta"].get("text", "") for e in stream if "contentBlockDelta" in e)
    return [(u["name"], u["input"]) for u in uses], text


def _interactions(clients: Clients) -> tuple[Calls, str]:
    c = clients.genai()
    tools: Any = [{"type": "function", "name": "get_weather", "parameters": SCHEMA}]
    first = c.interactions.create(model="gemini-x", input=PROMPT, tools=tools)
    fcs = [s for s in first.steps if s.type == "function_call"]
    results: Any = [{"type": "function_result", "call_id": f.id, "name": f.name, "result": WEATHER[f.arguments["city"]]}
                    for f in fcs]
    stream = c.interactions.create(model="gemini-x", input=results, previous_interaction_id=first.id, tools=tools,
                                   stream=True)
    text = "".join(e.delta.text for e in stream if e.event_type == "step.delta" and e.delta.type == "text")
    return [(f.name, dict(f.arguments)) for f in fcs], text


def _ollama(clients: Clients) -> tuple[Calls, str]:
    c = clients.ollama()
    tools: Any = [{"type": "function", "function": {"name": "get_weather", "parameters": SCHEMA}}]
    msgs: list[Any] = [{"role": "user", "content": PROMPT}]
    first = c.chat(model="llama-x", messages=msgs, tools=tools, stream=False).message
    calls = [(t.function.name, dict(t.function.arguments)) for t in first.tool_calls or []]
    msgs.append(first)
    msgs += [{"role": "tool", "tool_name": name, "content": WEATHER[args["city"]]} for name, args in calls]
    text = "".join(ch.message.content or "" for ch in c.chat(model="llama-x", messages=msgs, tools=tools, stream=True))
    return calls, text


DRIVERS: dict[str, Callable[[Clients], tuple[Calls, str]]] = {
    "chat": _chat,
    "responses": _responses,
    "anthropic": _anthropic,
    "gemini": _gemini,
    "bedrock": _bedrock,
    "ollama": _ollama,
    "interactions": _interactions,
}
"""One driver per wire API (``autocue.mockllm.wire.registry.all_apis()``): a new dialect adds its own."""
