"""Malformed API requests get a 4xx in the error shape of the route's API, naming what is
wrong and where (issue 15: 43 HTTP 500s in about 10,400 malformed requests). One case per
kind of malformation; the fuzzer (test_mockllm_fuzz.py) covers the rest."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from mockllm_helpers import say

from autocue.mockllm import MockLLMServer, serve
from autocue.script import Script, Turn

CHAT = "/v1/chat/completions"
RESPONSES = "/v1/responses"
MESSAGES = "/v1/messages"
GEMINI = "/v1beta/models/g:generateContent"
USER = [{"role": "user", "content": "hi"}]


def body(**fields: Any) -> bytes:
    return json.dumps(fields).encode()


CASES: list[tuple[str, str, bytes, str, int, str]] = [
    # (id, path, body, content type, status, words of the message)
    ("bad-json", MESSAGES, b'{"model": ', "application/json", 400, "malformed JSON"),
    ("empty", CHAT, b"", "application/json", 400, "the request body is empty"),
    ("list", RESPONSES, b"[1]", "application/json", 400, "must be a JSON object, got list"),
    ("string", GEMINI, b'"hi"', "application/json", 400, "must be a JSON object, got str"),
    ("not-utf8", MESSAGES, b'{"model": "\xff"}', "application/json", 400, "malformed JSON"),
    ("text-plain", CHAT, body(model="m", messages=USER), "text/plain", 415, "must be JSON"),
    ("messages-not-list", CHAT, body(model="m", messages="hi"), "application/json", 400,
     "messages must be an array, got 'hi'"),
    ("messages-missing", MESSAGES, body(model="m", max_tokens=5), "application/json", 400, "messages is required"),
    ("contents-missing", GEMINI, body(), "application/json", 400, "contents is required"),
    ("unknown-part", CHAT, body(model="m", messages=[{"role": "user", "content": [{"type": "hologram"}]}]),
     "application/json", 400, "messages[0].content[0].type: unknown content part type 'hologram'"),
    ("unknown-block", MESSAGES, body(model="m", max_tokens=5, messages=[
        {"role": "user", "content": [{"type": "hologram"}]}]), "application/json", 400,
     "messages[0].content[0].type: unknown content block type 'hologram'"),
    ("unknown-gemini-part", GEMINI, body(contents=[{"role": "user", "parts": [{"hologram": 1}]}]),
     "application/json", 400, "contents[0].parts[0]: a part needs one of text"),
    ("parts-not-list", GEMINI, body(contents=[{"role": "user", "parts": 5}]), "application/json", 400,
     "contents[0].parts must be an array, got 5"),
    ("stream-not-bool", RESPONSES, body(model="m", input="hi", stream="yes"), "application/json", 400,
     "stream must be a boolean, got 'yes'"),
    ("max-tokens-string", MESSAGES, body(model="m", max_tokens="5", messages=USER), "application/json", 400,
     "max_tokens must be an integer, got '5'"),
    ("model-not-string", CHAT, body(model=["m"], messages=USER), "application/json", 400,
     "model must be a string, got an array"),
    ("tools-not-list", CHAT, body(model="m", messages=USER, tools={"a": 1}), "application/json", 400,
     "tools must be an array, got an object"),
    ("gemini-tools-empty-object", GEMINI, body(contents=[{"role": "user", "parts": [{"text": "hi"}]}], tools={}),
     "application/json", 400, "tools must be an array, got an object"),
    ("declarations-not-list", GEMINI, body(contents=[{"role": "user", "parts": [{"text": "hi"}]}],
                                           tools=[{"functionDeclarations": 3}]), "application/json", 400,
     "tools[0].functionDeclarations must be an array, got 3"),
    ("tool-call-id-not-string", RESPONSES, body(model="m", input=[
        {"type": "function_call", "call_id": ["x"], "name": "bash", "arguments": "{}"}]), "application/json", 400,
     "input[0].call_id must be a string"),
    # plain chat messages pass validation on a fast path; each of these differs from one in one field
    ("chat-unknown-role", CHAT, body(model="m", messages=[*USER, {"role": "robot", "content": "x"}]),
     "application/json", 400, "messages[1].role: unknown role 'robot'"),
    ("chat-content-number", CHAT, body(model="m", messages=[{"role": "user", "content": 5}]), "application/json",
     400, "messages[0].content must be a string or an array of content parts, got 5"),
    ("chat-tool-call-id-bool", CHAT, body(model="m", messages=[{"role": "tool", "content": "x", "tool_call_id": True}]),
     "application/json", 400, "messages[0].tool_call_id must be a string, got a boolean"),
    ("chat-message-not-object", CHAT, body(model="m", messages=[*USER, "hi"]), "application/json", 400,
     "messages[1] must be an object, got 'hi'"),
    ("chat-nesting-101", CHAT, b'{"model": "m", "messages": [], "x": ' + b"[" * 100 + b"]" * 100 + b"}",
     "application/json", 400, "nested deeper than 100 levels"),
    ("huge-nesting", MESSAGES, b'{"model": "m", "system": ' + b"[" * 500 + b"]" * 500 + b"}", "application/json",
     400, "nested deeper than 100 levels"),
    ("oversize", CHAT, b'{"model": "' + b"m" * 5000 + b'"}', "application/json", 413, "larger than the mock "
     "server's limit of 4096 bytes"),
]


@pytest.fixture(scope="module")
def server() -> Iterator[MockLLMServer]:
    with serve([Script([Turn("hi", [say("fine")] * 50)], name="a"), Script([Turn("other", [say("b")])], name="b")],
               max_body=4096) as s:
        yield s


def shape(path: str, status: int, data: dict[str, Any]) -> str:
    """The message of an error, after checking the API's error shape."""
    if path == MESSAGES:
        assert data["type"] == "error" and data["error"]["type"] in ("invalid_request_error", "request_too_large")
        return str(data["error"]["message"])
    err = data["error"]
    if path == GEMINI:
        assert err["code"] == status and err["status"] in ("INVALID_ARGUMENT", "FAILED_PRECONDITION")
        return str(err["message"])
    assert err["type"] == "invalid_request_error" and err["code"]
    return str(err["message"])


@pytest.mark.parametrize(("path", "raw", "ctype", "status", "words"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_malformed_request_gets_an_api_shaped_4xx(server: MockLLMServer, path: str, raw: bytes, ctype: str,
                                                  status: int, words: str) -> None:
    r = httpx2.post(server.base_url + path, content=raw, headers={"content-type": ctype, "x-api-key": "m"})
    assert r.status_code == status, r.text
    assert r.headers["x-should-retry"] == "false"
    assert words in shape(path, status, r.json())
    assert server.sessions() == [], "a malformed request starts no session"


def test_paths_and_methods_the_router_refuses_are_api_shaped(server: MockLLMServer) -> None:
    r = httpx2.post(server.base_url + "/v1beta/models/%0A:generateContent", json={"contents": []})
    assert r.status_code == 404 and r.json()["error"]["status"] == "NOT_FOUND", r.text
    r = httpx2.request("OPTIONS", server.base_url + "/v1/messages")
    assert r.status_code == 405 and r.json()["type"] == "error", r.text


def test_requests_real_agents_send_still_pass(server: MockLLMServer) -> None:
    """Extra fields, nulls, system messages mid-conversation, server-tool blocks, Codex's
    item types and unknown tool types are not malformed."""
    ok: list[tuple[str, dict[str, Any]]] = [
        (CHAT, {"model": "m", "stream": None, "max_tokens": None, "messages": [
            {"role": "developer", "content": "be brief"}, {"role": "user", "content": [{"type": "text", "text": "hi"}]},
            {"role": "system", "content": "mid"}], "tools": [{"type": "namespace", "name": "ns"}], "extra": {}}),
        (RESPONSES, {"model": "m", "instructions": "x", "input": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
            {"type": "ghost_snapshot", "ghost_commit": {}}, {"type": "reasoning", "summary": []}],
            "tools": [{"type": "web_search"}], "include": ["reasoning.encrypted_content"]}),
        (MESSAGES, {"model": "m", "max_tokens": 5, "system": [{"type": "text", "text": "s"}], "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [{"type": "server_tool_use", "id": "s", "name": "web_search",
                                               "input": {}},
                                              {"type": "web_search_tool_result", "tool_use_id": "s", "content": []}]},
            {"role": "user", "content": [{"type": "text", "text": "and?", "cache_control": {"type": "ephemeral"}}]}]}),
        (GEMINI, {"contents": [{"role": "user", "parts": [{"text": "hi"}]}], "systemInstruction": {
            "parts": [{"text": "s"}]}, "generationConfig": {"temperature": 0}}),
    ]
    for n, (path, data) in enumerate(ok):
        r = httpx2.post(server.base_url + path, json=data, headers={"x-api-key": f"ok{n}", "x-goog-api-key": f"ok{n}",
                                                                    "x-scenario-name": "a"})
        assert r.status_code == 200, (path, r.text)
