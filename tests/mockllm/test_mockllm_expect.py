"""``expectRequest``: what the agent sent, checked on all four wire APIs; a mismatch is a 422 with a diff."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx2
import pytest

from autocue.mockllm import serve
from autocue.scenario import load_scenario_text

SCENARIO = """\
name: ex
initialPrompt: fix the bug
timeline:
  - expectRequest:
      model: m1
      tools: [read]
      systemContains: be careful
      lastMessage: {role: user, contains: fix the bug}
  - llmResponse:
      - agentToolUse: {toolName: read, toolCallId: c1, args: {path: a.txt}}
  - expectRequest:
      lastMessage: {role: tool, toolResultContains: hello world}
  - llmResponse:
      - assistant: [[0, done]]
"""


def _first(api: str) -> tuple[str, dict[str, Any]]:
    if api == "chat":
        return "/v1/chat/completions", {"model": "m1", "messages": [
            {"role": "system", "content": "be careful"}, {"role": "user", "content": "fix the bug"}],
            "tools": [{"type": "function", "function": {"name": "read", "parameters": {"type": "object"}}}]}
    if api == "responses":
        return "/v1/responses", {"model": "m1", "instructions": "be careful",
                                 "input": [{"role": "user", "content": "fix the bug"}],
                                 "tools": [{"type": "function", "name": "read", "parameters": {"type": "object"}}]}
    if api == "anthropic":
        return "/v1/messages", {"model": "m1", "max_tokens": 100, "system": "be careful",
                                "messages": [{"role": "user", "content": "fix the bug"}],
                                "tools": [{"name": "read", "input_schema": {"type": "object"}}]}
    return "/v1beta/models/m1:generateContent", {
        "systemInstruction": {"parts": [{"text": "be careful"}]},
        "contents": [{"role": "user", "parts": [{"text": "fix the bug"}]}],
        "tools": [{"functionDeclarations": [{"name": "read"}]}]}


def _second(api: str, result: str) -> tuple[str, dict[str, Any]]:
    path, body = _first(api)
    if api == "chat":
        body["messages"] += [{"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "read", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": result}]
    elif api == "responses":
        body["input"] += [{"type": "function_call", "call_id": "c1", "name": "read", "arguments": "{}"},
                          {"type": "function_call_output", "call_id": "c1", "output": result}]
    elif api == "anthropic":
        body["messages"] += [{"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "read",
                                                                 "input": {}}]},
                             {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1",
                                                           "content": [{"type": "text", "text": result}]}]}]
    else:
        body["contents"] += [{"role": "model", "parts": [{"functionCall": {"name": "read", "args": {}}}]},
                             {"role": "user", "parts": [{"functionResponse": {"name": "read",
                                                                              "response": {"content": result}}}]}]
    return path, body


def _post(base: str, path: str, body: dict[str, Any], key: str) -> httpx2.Response:
    return httpx2.post(base + path, json=body, headers={"authorization": f"Bearer {key}", "x-api-key": key,
                                                        "x-goog-api-key": key})


@pytest.mark.parametrize("api", ["chat", "responses", "anthropic", "gemini"])
def test_expect_request_passes_and_fails_on_every_api(api: str, tmp_path: Path) -> None:
    with serve(load_scenario_text(SCENARIO, str(tmp_path / "ex.yaml"))) as server:
        base = server.base_url
        assert _post(base, *_first(api), "k").status_code == 200
        r = _post(base, *_second(api, "goodbye"), "k")
        assert r.status_code == 422, r.text
        text = r.text
        assert "request 2 of session 'k'" in text and "lastMessage.toolResultContains" in text
        assert "hello world" in text and "goodbye" in text and "ex.yaml:11" in text
        assert r.headers["x-autocue-error"] == "expectation"
        status = server.session("k")
        failed = [a for a in status["assertions"] if not a["passed"]]
        assert failed[0]["request"] == 2
        assert failed[0]["diff"] == [{"path": "lastMessage.toolResultContains", "expected": "hello world",
                                      "actual": "goodbye" if api != "gemini" else '{"content":"goodbye"}'}]
        assert status["consumed"] == 1 and status["journal"][-1]["outcome"] == "expectation"
        r = _post(base, *_second(api, "it said hello  world"), "k")
        assert r.status_code == 200, r.text


def test_first_divergence_names_every_difference(tmp_path: Path) -> None:
    with serve(load_scenario_text(SCENARIO, str(tmp_path / "ex.yaml"))) as server:
        path, body = _first("chat")
        body["model"] = "m2"
        body["tools"] = []
        body["messages"] = [{"role": "user", "content": "something else"}]
        r = _post(server.base_url, path, body, "k")
        assert r.status_code == 422
        diff = server.session("k")["assertions"][0]["diff"]
        assert [d["path"] for d in diff] == ["model", "tools", "system.contains", "lastMessage.contains"]
        assert diff[0] == {"path": "model", "expected": "m1", "actual": "m2"}


def test_pointer_equality_on_the_raw_body(tmp_path: Path) -> None:
    text = ("name: p\ntimeline:\n  - expectRequest:\n"
            "      pointer: {/temperature: 0, /stream_options/include_usage: true}\n  - assistant: [[0, ok]]\n")
    with serve(load_scenario_text(text, str(tmp_path / "p.yaml"))) as server:
        path, body = _first("chat")
        r = _post(server.base_url, path, {**body, "temperature": 0.7}, "k")
        assert r.status_code == 422
        diff = server.session("k")["assertions"][0]["diff"]
        assert diff == [{"path": "body/temperature", "expected": 0, "actual": 0.7},
                        {"path": "body/stream_options/include_usage", "expected": True, "actual": "<absent>"}]
        r = _post(server.base_url, path, {**body, "temperature": 0, "stream_options": {"include_usage": True}}, "k")
        assert r.status_code == 200, r.text
