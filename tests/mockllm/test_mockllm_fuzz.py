"""The probe of issue 15, kept: generated malformed requests to every endpoint of a real
server on loopback (the four wire APIs and the admin API). Every answer is below 500 and,
when it is an error, has the error shape of the API the route belongs to; after each one the
server still plays a well-formed request. Bounded by the suite's hypothesis profile
(``--fuzz-long`` for a long hunt, with ``--timeout 0``: 5,000 examples take minutes)."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import anthropic
import httpx2
import openai
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from mockllm_helpers import say

from autocue.mockllm import MockLLMServer, serve
from autocue.mockllm.wire.anthropic import BLOCKS as ANTHROPIC_BLOCKS
from autocue.mockllm.wire.chat import PARTS as CHAT_PARTS
from autocue.mockllm.wire.gemini import PART_KEYS as GEMINI_PART_KEYS
from autocue.mockllm.wire.responses import PARTS as RESPONSES_PARTS
from autocue.script import Script, Turn

MAX_BODY = 64 * 1024

# (route, the API whose error shape it answers with, a well-formed body to mutate)
CHAT_OK: dict[str, Any] = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
RESPONSES_OK: dict[str, Any] = {"model": "m", "input": [{"role": "user", "content": [{"type": "input_text",
                                                                                      "text": "hi"}]}]}
ANTHROPIC_OK: dict[str, Any] = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": [
    {"type": "text", "text": "hi"}]}]}
GEMINI_OK: dict[str, Any] = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
ROUTES: list[tuple[str, str, dict[str, Any]]] = [
    ("/v1/chat/completions", "chat", CHAT_OK),
    ("/chat/completions", "chat", CHAT_OK),
    ("/v1/responses", "responses", RESPONSES_OK),
    ("/v1/messages", "anthropic", ANTHROPIC_OK),
    ("/v1/messages?beta=true", "anthropic", ANTHROPIC_OK),
    ("/v1/messages/count_tokens", "anthropic", ANTHROPIC_OK),
    ("/v1beta/models/gemini-x:generateContent", "gemini", GEMINI_OK),
    ("/v1beta/models/gemini-x:streamGenerateContent?alt=sse", "gemini", GEMINI_OK),
    ("/v1beta/models/gemini-x:countTokens", "gemini", GEMINI_OK),
    ("/_autocue/scenarios", "admin", {"yaml": "name: f\ntimeline: []\n", "name": "f"}),
    ("/_autocue/reset", "admin", {}),
    ("/_autocue/sessions/fuzz/reset", "admin", {}),
]
SERVER_TOOL_BLOCK = re.compile(r"[a-z_]+_tool_(use|result)")
KNOWN_PARTS = {*CHAT_PARTS, *RESPONSES_PARTS, *ANTHROPIC_BLOCKS, "web_search_tool_result"}
KEYS = ["model", "messages", "input", "contents", "stream", "max_tokens", "max_output_tokens", "tools", "system",
        "instructions", "systemInstruction", "generationConfig", "tool_choice", "yaml", "name", "path", "paths"]
INNER = ["role", "content", "type", "text", "parts", "tool_calls", "tool_call_id", "call_id", "id", "input",
         "functionCall", "functionResponse", "tool_use_id", "thinking", "function", "arguments"]

json_scalars = st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70) | \
    st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20) | \
    st.sampled_from(["text", "user", "assistant", "tool_use", "tool_result", "function_call", "image_url",
                     "input_text", "/dev/zero", "../../x", "/etc/passwd"])
json_values = st.recursive(json_scalars, lambda inner: st.lists(inner, max_size=4) |
                           st.dictionaries(st.sampled_from(INNER) | st.text(max_size=8), inner, max_size=4),
                           max_leaves=12)


def _mutate(base: dict[str, Any], data: st.DataObject) -> Any:
    """``base`` with one key (top-level, or inside its first message or part) set to any JSON
    value or removed."""
    body: Any = json.loads(json.dumps(base))
    target = body
    for key in ("messages", "input", "contents"):
        if isinstance(body.get(key), list) and body[key] and data.draw(st.booleans(), label="go inside"):
            target = body[key][0]
            for inner in ("content", "parts"):
                if isinstance(target.get(inner), list) and target[inner] and data.draw(st.booleans(), label="deeper"):
                    target = target[inner][0]
    key = data.draw(st.sampled_from(KEYS + INNER), label="key")
    if data.draw(st.booleans(), label="remove"):
        target.pop(key, None)
    else:
        target[key] = data.draw(json_values, label="value")
    return body


# Typed fields per API: (path, the JSON types it may have, required). A value of another type
# is malformed whatever else the body holds.
Path_ = tuple[str | int, ...]
TYPED: dict[str, list[tuple[Path_, tuple[type, ...], bool]]] = {
    "chat": [(("model",), (str,), False), (("stream",), (bool,), False), (("max_tokens",), (int,), False),
             (("messages",), (list,), True), (("tools",), (list,), False), (("messages", 0), (dict,), True),
             (("messages", 0, "role"), (str,), True), (("messages", 0, "content"), (str, list), False)],
    "responses": [(("model",), (str,), False), (("stream",), (bool,), False), (("max_output_tokens",), (int,), False),
                  (("input",), (str, list), False), (("tools",), (list,), False), (("instructions",), (str,), False),
                  (("input", 0), (dict,), True), (("input", 0, "content"), (str, list), True)],
    "anthropic": [(("model",), (str,), False), (("stream",), (bool,), False), (("max_tokens",), (int,), False),
                  (("messages",), (list,), True), (("tools",), (list,), False), (("system",), (str, list), False),
                  (("messages", 0, "content"), (str, list), True), (("messages", 0, "role"), (str,), True)],
    "gemini": [(("contents",), (list,), True), (("contents", 0), (dict,), True), (("tools",), (list,), False),
               (("contents", 0, "parts"), (list,), False), (("generationConfig",), (dict,), False)],
}
PART_PATHS = {"chat": ("messages", 0, "content"), "responses": ("input", 0, "content"),
              "anthropic": ("messages", 0, "content"), "gemini": ("contents", 0, "parts")}


def _set(body: Any, path: Path_, value: Any) -> None:
    for step in path[:-1]:
        body = body[step]
    body[path[-1]] = value


def _of_type(v: Any, types: tuple[type, ...]) -> bool:
    return not (isinstance(v, bool) and bool not in types) and isinstance(v, types)


@st.composite
def malformed(draw: st.DrawFn) -> tuple[str, str, bytes, str | None, bool]:
    """``(route, api, body, content type, whether it must be a 4xx)``."""
    route, api, base = draw(st.sampled_from(ROUTES), label="route")
    if "gemini-x" in route:
        route = route.replace("gemini-x", quote(draw(st.text(min_size=1, max_size=12)), safe=""))
    kinds = ["mutated", "mutated", "json", "bytes", "deep", "empty", "huge", "not-utf8"]
    if api != "admin":
        kinds += ["wrong-type", "wrong-type", "unknown-part"]
    kind = draw(st.sampled_from(kinds), label="kind")
    data = draw(st.data())
    body: Any = json.loads(json.dumps(base))
    if kind == "mutated":
        raw = json.dumps(_mutate(base, data)).encode()
    elif kind == "wrong-type":
        path, types, required = draw(st.sampled_from(TYPED[api]), label="field")
        value = draw(json_values.filter(lambda v: not _of_type(v, types) and (required or v is not None)))
        _set(body, path, value)
        raw = json.dumps(body).encode()
    elif kind == "unknown-part":
        if api == "gemini":
            key = draw(st.text(min_size=1, max_size=10).filter(lambda k: k not in GEMINI_PART_KEYS), label="key")
            part: dict[str, Any] = {key: "x"}
        else:
            typ = draw(st.text(max_size=12).filter(lambda t: t not in KNOWN_PARTS
                                                   and not SERVER_TOOL_BLOCK.fullmatch(t)), label="type")
            part = {"type": typ, "text": "hi"}
        _set(body, PART_PATHS[api], [part])
        raw = json.dumps(body).encode()
    elif kind == "json":
        raw = json.dumps(draw(json_values)).encode()
    elif kind == "bytes":
        raw = draw(st.binary(max_size=64))
    elif kind == "deep":
        depth = draw(st.integers(101, 1200))
        raw = json.dumps(base).encode()[:-1] + b', "x": ' + b"[" * depth + b"]" * depth + b"}"
    elif kind == "empty":
        raw = b""
    elif kind == "huge":
        raw = b'{"model": "' + b"m" * (MAX_BODY + draw(st.integers(1, 1000))) + b'"}'
    else:
        raw = json.dumps(base).encode()[:-1] + b', "x": "\xff\xfe"}'  # not UTF-8
    ctype = draw(st.sampled_from(["application/json", "application/json", "application/json; charset=utf-8",
                                  "text/plain", "application/x-www-form-urlencoded", None]), label="content-type")
    wrong_ctype = ctype is not None and not ctype.startswith("application/json")
    must_fail = wrong_ctype or (api != "admin" and kind not in ("mutated", "json", "bytes"))
    return route, api, raw, ctype, must_fail


def assert_error_shape(api: str, status: int, body: Any) -> None:
    if api == "anthropic":
        assert body["type"] == "error" and isinstance(body["error"]["type"], str)
        assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    elif api == "gemini":
        err = body["error"]
        assert err["code"] == status and isinstance(err["status"], str) and err["message"]
    elif api == "bedrock":
        assert isinstance(body["message"], str) and body["message"]
    elif api == "ollama":
        assert isinstance(body["error"], str) and body["error"]
    elif api == "interactions":
        err = body["error"]
        assert isinstance(err["code"], str) and isinstance(err["message"], str) and err["message"]
    else:
        err = body["error"]
        assert isinstance(err["message"], str) and err["message"] and isinstance(err["type"], str) and "code" in err


@pytest.fixture(scope="module")
def server() -> Iterator[MockLLMServer]:
    with serve(Script([Turn(None, [say("still here")])], name="fuzz"), max_body=MAX_BODY) as s:
        yield s


def well_formed(server: MockLLMServer, api: str) -> str:
    """The reply to a well-formed request of ``api`` (a fresh session each time), via the SDK."""
    key = uuid.uuid4().hex
    pick = {"x-scenario-name": "fuzz"}  # the fuzzer may have loaded another scenario through the admin API
    if api == "anthropic":
        client = anthropic.Anthropic(base_url=server.base_url, api_key=key, max_retries=0, default_headers=pick)
        msg = client.messages.create(model="m", max_tokens=5, messages=[{"role": "user", "content": "hi"}])
        return str(msg.content[0].text)  # type: ignore[union-attr]
    if api == "gemini":
        r = httpx2.post(server.base_url + "/v1beta/models/g:generateContent", json=GEMINI_OK,
                        headers={"x-goog-api-key": key, **pick})
        return str(r.json()["candidates"][0]["content"]["parts"][0]["text"])
    oa = openai.OpenAI(base_url=server.openai_base_url, api_key=key, max_retries=0, default_headers=pick)
    if api == "responses":
        return oa.responses.create(model="m", input="hi").output_text
    return str(oa.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
               .choices[0].message.content)


@pytest.mark.slow
@given(req=malformed())
def test_malformed_requests_get_api_shaped_4xx_and_the_server_keeps_serving(
        server: MockLLMServer, req: tuple[str, str, bytes, str | None, bool]) -> None:
    route, api, raw, ctype, must_fail = req
    headers = {"x-api-key": "fuzz", "x-goog-api-key": "fuzz"}
    if ctype is not None:
        headers["content-type"] = ctype
    r = httpx2.post(server.base_url + route, content=raw, headers=headers, timeout=30)
    assert r.status_code < 500, (route, raw[:300], r.status_code, r.text[:500])
    assert r.status_code >= 400 or not must_fail, (route, raw[:300], ctype, r.status_code, r.text[:300])
    if r.status_code >= 400:
        assert r.headers["content-type"].startswith("application/json"), r.text[:300]
        assert_error_shape(api, r.status_code, r.json())
    assert well_formed(server, "chat" if api == "admin" else api) == "still here"


def test_unknown_model_names_are_played_not_refused(server: MockLLMServer) -> None:
    """Any model name is a model of the mock (agents name real ones); a non-string is a 400."""
    for model in ("gpt-unknown", "", "claude-🙂", "x" * 300):
        r = httpx2.post(server.openai_base_url + "/chat/completions", json={**CHAT_OK, "model": model},
                        headers={"authorization": f"Bearer {uuid.uuid4().hex}", "x-scenario-name": "fuzz"})
        assert r.json()["choices"][0]["message"]["content"] == "still here"
    r = httpx2.post(server.base_url + "/v1beta/models/no%20such:generateContent", json=GEMINI_OK,
                    headers={"x-scenario-name": "fuzz", "x-goog-api-key": uuid.uuid4().hex})
    assert r.status_code == 200, r.text


# ---------------------------------------------------------------------- issue 27: any field, any shape
# Rich well-formed bodies (system prompts, tool calls and results, tool lists, options every reader
# looks at); the probe below puts a hostile shape at any path of one, at any depth: a non-string
# where an enum goes, a container where a scalar goes, a scalar where a container goes.
RICH: dict[str, tuple[str, dict[str, Any]]] = {
    "chat": ("/v1/chat/completions", {
        "model": "m", "max_tokens": 5, "stream_options": {"include_usage": True}, "system": "s",
        "messages": [{"role": "system", "content": "sys"},
                     {"role": "user", "content": [{"type": "text", "text": "hi"}]},
                     {"role": "assistant", "content": None, "tool_calls": [
                         {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
                     {"role": "tool", "tool_call_id": "c1", "content": "ok"}, {"role": "user", "content": "go"}],
        "tools": [{"type": "function",
                   "function": {"name": "f", "description": "d", "parameters": {"type": "object"}}}],
        "tool_choice": "auto"}),
    "responses": ("/v1/responses", {
        "model": "m", "instructions": "s", "include": ["reasoning.encrypted_content"], "max_output_tokens": 5,
        "input": [{"role": "developer", "content": "sys"},
                  {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
                  {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
                  {"type": "function_call_output", "call_id": "c1", "output": "ok"},
                  {"type": "additional_tools", "tools": [{"type": "namespace", "name": "ns", "tools": [
                      {"type": "function", "name": "exec", "description": "declare const tools: { run(x) }"}]}]},
                  {"role": "user", "content": "go"}],
        "tools": [{"type": "function", "name": "f", "parameters": {}}], "parallel_tool_calls": True}),
    "anthropic": ("/v1/messages", {
        "model": "m", "max_tokens": 5, "system": [{"type": "text", "text": "s"}],
        "output_config": {"format": {"type": "json_schema", "schema": {"properties": {"x": {}}}}},
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]},
                     {"role": "assistant", "content": [{"type": "thinking", "thinking": "t", "signature": "g"},
                                                       {"type": "tool_use", "id": "c1", "name": "f", "input": {}}]},
                     {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", "is_error": False,
                                                   "content": [{"type": "text", "text": "ok"}]}]}],
        "tools": [{"name": "f", "description": "d", "input_schema": {"type": "object"}}]}),
    "gemini": ("/v1beta/models/g:generateContent", {
        "systemInstruction": {"parts": [{"text": "s"}]},
        "generationConfig": {"maxOutputTokens": 5, "responseSchema": {"properties": {"x": {}}}},
        "contents": [{"role": "user", "parts": [{"text": "hi"}]},
                     {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}]},
                     {"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {"ok": 1}}}]}],
        "tools": [{"functionDeclarations": [{"name": "f", "description": "d", "parameters": {"type": "object"}}]}]}),
    "bedrock": ("/model/anthropic.claude-x/converse", {
        "system": [{"text": "s"}], "inferenceConfig": {"maxTokens": 5},
        "messages": [{"role": "user", "content": [{"text": "hi"}]},
                     {"role": "assistant", "content": [
                         {"reasoningContent": {"reasoningText": {"text": "t", "signature": "g"}}},
                         {"toolUse": {"toolUseId": "c1", "name": "f", "input": {}}}]},
                     {"role": "user", "content": [{"toolResult": {"toolUseId": "c1", "status": "success",
                                                                  "content": [{"text": "ok"}, {"json": {"a": 1}}]}}]}],
        "toolConfig": {"tools": [{"toolSpec": {"name": "f", "description": "d",
                                               "inputSchema": {"json": {"type": "object"}}}}]}}),
    "ollama": ("/api/chat", {
        "model": "m", "stream": False, "think": True, "options": {"num_predict": 5},
        "messages": [{"role": "system", "content": "sys"}, {"role": "user", "content": "hi"},
                     {"role": "assistant", "content": "", "thinking": "t",
                      "tool_calls": [{"function": {"name": "f", "arguments": {"x": 1}}}]},
                     {"role": "tool", "tool_name": "f", "content": "ok"}],
        "tools": [{"type": "function", "function": {"name": "f", "description": "d",
                                                    "parameters": {"type": "object"}}}]}),
    "interactions": ("/v1beta/interactions", {
        "model": "m", "system_instruction": "s", "store": False, "generation_config": {"max_output_tokens": 5},
        "input": [{"type": "user_input", "content": [{"type": "text", "text": "hi"}]},
                  {"type": "thought", "signature": "g"},
                  {"type": "function_call", "id": "c1", "name": "f", "arguments": {}},
                  {"type": "function_result", "call_id": "c1", "name": "f", "result": "ok"}],
        "tools": [{"type": "function", "name": "f", "description": "d", "parameters": {"type": "object"}}]}),
}
HOSTILE = [["user"], {"role": "user"}, {"parts": 1}, {"text": 1}, {"parts": [{"text": 1}]}, [{"parts": 1}],
           {"type": ["text"]}, [[]], [{}], [], {}, 1, -1, 2**70, 1.5, True, False, None, "", "x"]
"""Shapes that break a reader that trusts a field's type."""


def _paths(v: Any, at: Path_ = ()) -> Iterator[Path_]:
    """Every path in ``v`` (each key and index, at every depth), containers before their items."""
    if at:
        yield at
    items = v.items() if isinstance(v, dict) else enumerate(v) if isinstance(v, list) else ()
    for k, x in items:
        yield from _paths(x, (*at, k))


@st.composite
def reshaped(draw: st.DrawFn) -> tuple[str, str, dict[str, Any]]:
    """``(route, api, body)``: a rich body with one field, anywhere, given a hostile shape (or a
    new key of a known name added to any object in it)."""
    api = draw(st.sampled_from(sorted(RICH)), label="api")
    route, base = RICH[api]
    body: Any = json.loads(json.dumps(base))
    if api not in ("gemini", "bedrock") and draw(st.booleans(), label="stream"):
        body["stream"] = True
    path = draw(st.sampled_from(list(_paths(body))), label="path")
    value = draw(st.sampled_from(HOSTILE) | json_values, label="value")
    if draw(st.booleans(), label="add a key"):
        parent = path if isinstance(_get(body, path), dict) else path[:-1]
        if isinstance(_get(body, parent), dict):
            path = (*parent, draw(st.sampled_from(KEYS + INNER), label="key"))
    _set(body, path, value)
    return route, api, body


def _get(body: Any, path: Path_) -> Any:
    for step in path:
        body = body[step]
    return body


def _post(server: MockLLMServer, route: str, body: Any) -> httpx2.Response:
    headers = {"x-api-key": uuid.uuid4().hex, "x-goog-api-key": uuid.uuid4().hex, "x-scenario-name": "fuzz"}
    return httpx2.post(server.base_url + route, content=json.dumps(body).encode(), headers=headers, timeout=30)


def _reshape(api: str, path: Path_, value: Any) -> tuple[str, str, dict[str, Any]]:
    route, base = RICH[api]
    body = json.loads(json.dumps(base))
    _set(body, path, value)
    return route, api, body


@pytest.mark.slow
@given(req=reshaped())
@example(req=_reshape("chat", ("messages", 1, "role"), ["user"]))
@example(req=_reshape("chat", ("messages", 0, "parts"), 1))
@example(req=_reshape("responses", ("system",), {"parts": 1}))
def test_any_field_of_any_shape_at_any_depth_gets_a_4xx_never_a_5xx(
        server: MockLLMServer, req: tuple[str, str, dict[str, Any]]) -> None:
    route, api, body = req
    r = _post(server, route, body)
    assert r.status_code < 500, (route, json.dumps(body)[:400], r.status_code, r.text[:500])
    if r.status_code >= 400:
        assert r.headers["content-type"].startswith("application/json"), r.text[:300]
        assert_error_shape(api, r.status_code, r.json())


@pytest.mark.parametrize(("api", "path", "value"), [
    ("chat", ("messages", 1, "role"), ["user"]),
    ("chat", ("messages", 1, "role"), {"a": 1}),
    ("chat", ("system",), {"parts": 1}),
    ("responses", ("system",), {"parts": 1}),
    ("responses", ("input", 1, "role"), ["user"]),
    ("anthropic", ("messages", 0, "role"), {"a": 1}),
    ("anthropic", ("system",), {"parts": 1}),
    ("gemini", ("systemInstruction",), {"parts": 1}),
    ("gemini", ("contents", 0, "role"), ["user"]),
])
def test_the_reported_shapes_get_the_apis_own_400(server: MockLLMServer, api: str, path: Path_, value: Any) -> None:
    """Issue 27: a role that is a list or an object, ``"system": {"parts": 1}``: a 400 in the
    API's error shape naming the field (they were a plain-text 500 and an API-shaped 500)."""
    route, _, body = _reshape(api, path, value)
    r = _post(server, route, body)
    assert r.status_code == 400, (r.status_code, r.text[:300])
    assert r.headers["content-type"].startswith("application/json"), r.text[:300]
    assert_error_shape(api, 400, r.json())
    assert str(path[-1]) in r.json()["error"]["message"], r.text  # names the field
