"""One scenario file plays identically on every dialect that carries its content: each official
client runs the same two-step tool loop against ``autocue serve`` and sees the same tool calls
and the same final answer (issue 29 requirement 7). A dialect is one driver here."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anthropic
import boto3
import ollama
import openai
import pytest
from google import genai
from google.genai import types as gtypes

from autocue.mockllm import MockLLMServer, serve

SCENARIO = Path(__file__).resolve().parent.parent / "fixtures" / "dialects" / "weather.yaml"
PROMPT = "What's the weather in Paris and in Oslo?"
SCHEMA: dict[str, Any] = {"type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
                          "required": ["city"]}
WEATHER = {"Paris": "sunny, 21 C", "Oslo": "rainy, 9 C"}
Calls = list[tuple[str, dict[str, Any]]]
Driver = Callable[[MockLLMServer, str], tuple[Calls, str]]
"""``(server, session key) -> (tool calls the client saw, final text)``."""


def _chat(server: MockLLMServer, key: str) -> tuple[Calls, str]:
    c = openai.OpenAI(base_url=server.openai_base_url, api_key=key, max_retries=0)
    tools: Any = [{"type": "function", "function": {"name": "get_weather", "parameters": SCHEMA}}]
    msgs: list[Any] = [{"role": "user", "content": PROMPT}]
    first = c.chat.completions.create(model="gpt-x", messages=msgs, tools=tools).choices[0].message
    calls = [(t.function.name, json.loads(t.function.arguments)) for t in first.tool_calls or []]
    msgs.append(first.model_dump(exclude_none=True))
    msgs += [{"role": "tool", "tool_call_id": t.id, "content": WEATHER[json.loads(t.function.arguments)["city"]]}
             for t in first.tool_calls or []]
    final = c.chat.completions.create(model="gpt-x", messages=msgs, tools=tools, stream=True)
    return calls, "".join(ch.choices[0].delta.content or "" for ch in final if ch.choices)


def _responses(server: MockLLMServer, key: str) -> tuple[Calls, str]:
    c = openai.OpenAI(base_url=server.openai_base_url, api_key=key, max_retries=0)
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


def _responses_websocket(server: MockLLMServer, key: str) -> tuple[Calls, str]:
    c = openai.OpenAI(base_url=server.openai_base_url, api_key=key, max_retries=0)
    tools: Any = [{"type": "function", "name": "get_weather", "parameters": SCHEMA, "strict": False}]

    def until_done(conn: Any) -> Any:
        for event in conn:
            if event.type == "response.completed":
                return event.response
            assert event.type != "error", event
        raise AssertionError("the socket closed before response.completed")

    with c.responses.connect() as conn:
        conn.response.create(model="gpt-x", input=PROMPT, tools=tools)
        first = until_done(conn)
        fcs = [o for o in first.output if o.type == "function_call"]
        conn.response.create(model="gpt-x", previous_response_id=first.id, tools=tools, input=[
            {"type": "function_call_output", "call_id": f.call_id, "output": WEATHER[json.loads(f.arguments)["city"]]}
            for f in fcs])
        final = until_done(conn)
    return [(f.name, json.loads(f.arguments)) for f in fcs], final.output_text


def _anthropic(server: MockLLMServer, key: str) -> tuple[Calls, str]:
    c = anthropic.Anthropic(base_url=server.base_url, api_key=key, max_retries=0)
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


def _gemini(server: MockLLMServer, key: str) -> tuple[Calls, str]:
    c = genai.Client(api_key=key, http_options=gtypes.HttpOptions(base_url=server.base_url))
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


def _interactions(server: MockLLMServer, key: str) -> tuple[Calls, str]:
    c = genai.Client(api_key=key, http_options=gtypes.HttpOptions(base_url=server.base_url))
    tools: Any = [{"type": "function", "name": "get_weather", "parameters": SCHEMA}]
    first = c.interactions.create(model="gemini-x", input=PROMPT, tools=tools)
    fcs = [s for s in first.steps if s.type == "function_call"]
    results = [{"type": "function_result", "call_id": f.id, "name": f.name, "result": WEATHER[f.arguments["city"]]}
               for f in fcs]
    final = c.interactions.create(model="gemini-x", input=results, previous_interaction_id=first.id, tools=tools)
    return [(f.name, dict(f.arguments)) for f in fcs], final.output_text or ""


def _bedrock(server: MockLLMServer, key: str) -> tuple[Calls, str]:
    c = boto3.client("bedrock-runtime", endpoint_url=server.base_url, region_name="us-east-1",
                     aws_access_key_id=key, aws_secret_access_key="any")
    tools: Any = {"tools": [{"toolSpec": {"name": "get_weather", "inputSchema": {"json": SCHEMA}}}]}
    msgs: list[Any] = [{"role": "user", "content": [{"text": PROMPT}]}]
    first = c.converse(modelId="anthropic.claude-x", messages=msgs, toolConfig=tools)["output"]["message"]
    uses = [b["toolUse"] for b in first["content"] if "toolUse" in b]
    msgs += [first, {"role": "user", "content": [{"toolResult": {
        "toolUseId": u["toolUseId"], "content": [{"text": WEATHER[u["input"]["city"]]}]}} for u in uses]}]
    events = c.converse_stream(modelId="anthropic.claude-x", messages=msgs, toolConfig=tools)["stream"]
    text = "".join(e["contentBlockDelta"]["delta"].get("text", "") for e in events if "contentBlockDelta" in e)
    return [(u["name"], u["input"]) for u in uses], text


def _ollama(server: MockLLMServer, key: str) -> tuple[Calls, str]:
    c = ollama.Client(host=server.base_url, headers={"authorization": f"Bearer {key}"})
    tools: Any = [{"type": "function", "function": {"name": "get_weather", "parameters": SCHEMA}}]
    msgs: list[Any] = [{"role": "user", "content": PROMPT}]
    first = c.chat(model="llama-x", messages=msgs, tools=tools, stream=False).message
    calls = [(t.function.name, dict(t.function.arguments)) for t in first.tool_calls or []]
    msgs += [first, *({"role": "tool", "tool_name": n, "content": WEATHER[a["city"]]} for n, a in calls)]
    text = "".join(ch.message.content or "" for ch in c.chat(model="llama-x", messages=msgs, tools=tools,
                                                                     stream=True))
    return calls, text


DRIVERS: dict[str, Driver] = {
    "chat": _chat,
    "responses": _responses,
    "responses-websocket": _responses_websocket,
    "anthropic": _anthropic,
    "gemini": _gemini,
    "interactions": _interactions,
    "bedrock": _bedrock,
    "ollama": _ollama,
}


@pytest.fixture(scope="module")
def server() -> Any:
    with serve(SCENARIO) as s:
        yield s


@pytest.mark.parametrize("dialect", sorted(DRIVERS))
def test_one_scenario_plays_the_same_on_every_dialect(server: MockLLMServer, dialect: str) -> None:
    key = f"every-{dialect}"
    calls, text = DRIVERS[dialect](server, key)
    assert calls == [("get_weather", {"city": "Paris", "unit": "celsius"}),
                     ("get_weather", {"city": "Oslo", "unit": "celsius"})]
    assert text == "Paris is sunny at 21 °C; Oslo is rainy at 9 °C."
    status = server.session(key)
    assert (status["consumed"], status["remaining"]) == (2, 0), status
