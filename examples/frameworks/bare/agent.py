"""The same two-tool agent written straight on each official client: a plain loop that calls the
model, runs the tools it asks for, sends the results back and stops at a text answer. Each
client takes the in-process transport through its own public constructor arguments
(``http_client=``, ``HttpOptions``, ``transport=``); boto3 through botocore's ``before-send`` event."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anthropic
import boto3
import httpx2
import ollama
import openai
from google import genai
from google.genai import types

from autocue.testing import MockLLM

WIRING = ("openai.OpenAI(base_url=llm.openai_base_url, api_key=llm.api_key, "
          "http_client=httpx2.Client(transport=llm.transport()))  # the other clients: see agent.py")
DIALECTS = "OpenAI Chat, Anthropic Messages, Gemini generateContent, Ollama, Bedrock Converse"

PROMPT = "What's the weather in Paris? Save a one-line report to report.txt."
MAX_TURNS = 5
SCHEMAS: dict[str, tuple[str, dict[str, Any]]] = {
    "get_weather": ("The current weather in a city.", {
        "type": "object", "required": ["city"], "properties": {"city": {"type": "string"}}}),
    "write_file": ("Write a text file (path relative to the working directory).", {
        "type": "object", "required": ["path", "content"],
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}}}),
}


def tools(workdir: Path) -> dict[str, Callable[..., str]]:
    def get_weather(city: str) -> str:
        return "sunny, 21 C" if city == "Paris" else "unknown"

    def write_file(path: str, content: str) -> str:
        (workdir / path).write_text(content + "\n")
        return f"wrote {len(content) + 1} bytes to {path}"

    return {"get_weather": get_weather, "write_file": write_file}


def run_openai(llm: MockLLM, workdir: Path) -> str:
    client = openai.OpenAI(base_url=llm.openai_base_url, api_key=llm.api_key, max_retries=0,
                           http_client=httpx2.Client(transport=llm.transport()))
    declared: Any = [{"type": "function", "function": {"name": n, "description": d, "parameters": p}}
                     for n, (d, p) in SCHEMAS.items()]
    functions, messages = tools(workdir), [{"role": "user", "content": PROMPT}]
    for _ in range(MAX_TURNS):
        message = client.chat.completions.create(model="gpt-4o", messages=messages, tools=declared).choices[0].message
        if not message.tool_calls:
            return message.content or ""
        messages.append(message.model_dump(exclude_none=True))
        for call in message.tool_calls:
            assert call.type == "function"
            result = functions[call.function.name](**json.loads(call.function.arguments))
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
    raise RuntimeError(f"no answer after {MAX_TURNS} turns")


def run_anthropic(llm: MockLLM, workdir: Path) -> str:
    client = anthropic.Anthropic(base_url=llm.base_url, api_key=llm.api_key, max_retries=0,
                                 http_client=httpx2.Client(transport=llm.transport()))
    declared: Any = [{"name": n, "description": d, "input_schema": p} for n, (d, p) in SCHEMAS.items()]
    functions, messages = tools(workdir), [{"role": "user", "content": PROMPT}]
    for _ in range(MAX_TURNS):
        reply = client.messages.create(model="claude-x", max_tokens=1024, messages=messages, tools=declared)
        if reply.stop_reason != "tool_use":
            return "".join(b.text for b in reply.content if b.type == "text")
        messages.append({"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in reply.content]})
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": b.id, "content": functions[b.name](**b.input)}
            for b in reply.content if b.type == "tool_use"]})
    raise RuntimeError(f"no answer after {MAX_TURNS} turns")


def run_genai(llm: MockLLM, workdir: Path) -> str:
    client = genai.Client(api_key=llm.api_key, http_options=types.HttpOptions(
        base_url=llm.base_url, httpx_client=httpx2.Client(transport=llm.transport())))
    config = types.GenerateContentConfig(
        tools=[types.Tool(function_declarations=[types.FunctionDeclaration(name=n, description=d,
                                                                           parameters_json_schema=p)
                                                 for n, (d, p) in SCHEMAS.items()])],
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True))
    functions = tools(workdir)
    contents: list[Any] = [types.Content(role="user", parts=[types.Part(text=PROMPT)])]
    for _ in range(MAX_TURNS):
        reply = client.models.generate_content(model="gemini-2.5-flash", contents=contents, config=config)
        if not reply.function_calls:
            return reply.text or ""
        contents.append(reply.candidates[0].content if reply.candidates else None)
        contents.append(types.Content(role="user", parts=[
            types.Part(function_response=types.FunctionResponse(
                id=c.id, name=c.name, response={"result": functions[c.name or ""](**(c.args or {}))}))
            for c in reply.function_calls]))
    raise RuntimeError(f"no answer after {MAX_TURNS} turns")


def run_ollama(llm: MockLLM, workdir: Path) -> str:
    client = ollama.Client(host=llm.base_url, transport=llm.httpx_transport(),
                           headers={"authorization": f"Bearer {llm.api_key}"})  # the session key
    declared: Any = [{"type": "function", "function": {"name": n, "description": d, "parameters": p}}
                     for n, (d, p) in SCHEMAS.items()]
    functions, messages = tools(workdir), [{"role": "user", "content": PROMPT}]
    for _ in range(MAX_TURNS):
        message = client.chat(model="llama3.2", messages=messages, tools=declared, stream=False).message
        if not message.tool_calls:
            return message.content or ""
        messages.append(message)
        for call in message.tool_calls:
            result = functions[call.function.name](**call.function.arguments)
            messages.append({"role": "tool", "tool_name": call.function.name, "content": result})
    raise RuntimeError(f"no answer after {MAX_TURNS} turns")


def run_bedrock(llm: MockLLM, workdir: Path) -> str:
    client = boto3.client("bedrock-runtime", endpoint_url=llm.base_url, region_name="us-east-1",
                          aws_access_key_id=llm.api_key, aws_secret_access_key="autocue")
    client.meta.events.register("before-send", llm.botocore_hook())  # botocore sends with urllib3, not httpx
    config = {"tools": [{"toolSpec": {"name": n, "description": d, "inputSchema": {"json": p}}}
                        for n, (d, p) in SCHEMAS.items()]}
    functions, messages = tools(workdir), [{"role": "user", "content": [{"text": PROMPT}]}]
    for _ in range(MAX_TURNS):
        reply = client.converse(modelId="anthropic.claude-x", messages=messages, toolConfig=config)
        message = reply["output"]["message"]
        if reply["stopReason"] != "tool_use":
            return "".join(b.get("text", "") for b in message["content"])
        messages.append(message)
        messages.append({"role": "user", "content": [
            {"toolResult": {"toolUseId": b["toolUse"]["toolUseId"],
                            "content": [{"text": functions[b["toolUse"]["name"]](**b["toolUse"]["input"])}]}}
            for b in message["content"] if "toolUse" in b]})
    raise RuntimeError(f"no answer after {MAX_TURNS} turns")


CLIENTS: dict[str, Callable[[MockLLM, Path], str]] = {
    "openai": run_openai, "anthropic": run_anthropic, "google-genai": run_genai, "ollama": run_ollama,
    "boto3": run_bedrock,
}


def run(llm: MockLLM, workdir: Path, client: str = "openai") -> str:
    return CLIENTS[client](llm, workdir)
