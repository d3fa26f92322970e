"""Gemini Interactions (``/v1/interactions``), judged by the official google-genai client: create (plain and
streamed), a tool round trip by ``previous_interaction_id`` and by full history, thinking with signatures,
usage, a stored interaction read back and its stream resumed, a scripted 429 the client's own retry
survives, Gemini's error shape. Scenarios are YAML as users write them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from google import genai
from google.genai import types
from google.genai._interactions_errors import BadRequestError, NotFoundError

from autocue.mockllm import MockLLMServer, serve

LOOP = """\
name: interactions-loop
server: {llmApiStyle: gemini-interactions}
initialPrompt: list the files
timeline:
  - llmResponse:
      - assistant: [[0, "Let me look."]]
      - agentToolUse: {toolName: bash, args: {command: ls}}
  - llmResponse:
      - think: [[0, "Two files to read."]]
      - agentToolUse: {toolName: read, args: {path: a.txt}}
      - agentToolUse: {toolName: read, args: {path: b.txt}}
  - llmResponse:
      - error: {statusCode: 429, message: slow down, retryAfterSeconds: 0}
  - llmResponse:
      - assistant: [[0, "Both files say hello, and that is a long enough answer to stream in pieces."]]
"""
PLAIN = """\
name: plain
initialPrompt: think about it
timeline:
  - llmResponse:
      - think: [[0, "Deep thought about the question."]]
      - assistant: [[0, "The answer is 42."]]
"""
TOOLS: list[Any] = [{"type": "function", "name": "bash", "description": "run a command",
                     "parameters": {"type": "object", "properties": {"command": {"type": "string"}}}},
                    {"type": "function", "name": "read", "parameters": {"type": "object"}}]
RETRY = types.HttpRetryOptions(attempts=3, initial_delay=0.01, max_delay=0.05)


def client(server: MockLLMServer, key: str, retry: bool = False) -> genai.Client:
    return genai.Client(api_key=key, http_options=types.HttpOptions(
        base_url=server.base_url, retry_options=RETRY if retry else types.HttpRetryOptions(attempts=1)))


@pytest.fixture
def loop(tmp_path: Path) -> Iterator[MockLLMServer]:
    (tmp_path / "loop.yaml").write_text(LOOP, encoding="utf-8")
    with serve(tmp_path / "loop.yaml") as s:
        yield s


@pytest.fixture
def plain(tmp_path: Path) -> Iterator[MockLLMServer]:
    (tmp_path / "plain.yaml").write_text(PLAIN, encoding="utf-8")
    with serve(tmp_path / "plain.yaml") as s:
        yield s


def calls(steps: list[Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(s.name, s.arguments) for s in steps if s.type == "function_call"]


def results(steps: list[Any]) -> list[dict[str, Any]]:
    return [{"type": "function_result", "call_id": s.id, "name": s.name, "result": f"{s.name} ok"}
            for s in steps if s.type == "function_call"]


def collect(stream: Any) -> tuple[list[Any], dict[int, dict[str, Any]], Any]:
    """(events, steps rebuilt from the events by index, the completed interaction)."""
    evs = list(stream)
    steps: dict[int, dict[str, Any]] = {}
    done = None
    for e in evs:
        if e.event_type == "step.start":
            steps[e.index] = {"type": e.step.type, "text": "", "args": "",
                              **({"name": e.step.name, "id": e.step.id} if e.step.type == "function_call" else {})}
        elif e.event_type == "step.delta":
            d = e.delta
            s = steps[e.index]
            if d.type == "text":
                s["text"] += d.text
            elif d.type == "thought_summary":
                s["text"] += d.content.text
            elif d.type == "thought_signature":
                s["signature"] = d.signature
            elif d.type == "arguments_delta":
                s["args"] += d.arguments
        elif e.event_type == "interaction.completed":
            done = e.interaction
    return evs, steps, done


def test_create_plain_with_thinking_and_usage(plain: MockLLMServer) -> None:
    c = client(plain, "plain-1")
    r = c.interactions.create(model="gemini-3-flash", input="think about it", system_instruction="be brief",
                              generation_config={"thinking_level": "high"})
    assert r.status == "completed" and r.model == "gemini-3-flash" and r.id
    assert r.output_text == "The answer is 42."
    thought, out = r.steps
    assert thought.type == "thought" and thought.summary[0].text == "Deep thought about the question."
    assert thought.signature, "the thought carries its signature"
    assert out.type == "model_output" and out.content[0].text == "The answer is 42."
    u = r.usage
    assert u.total_input_tokens > 0 and u.total_thought_tokens > 0 and u.total_output_tokens > 0
    assert u.total_tokens == u.total_input_tokens + u.total_output_tokens + u.total_thought_tokens
    # the stored interaction reads back the same
    again = c.interactions.get(r.id)
    assert again.id == r.id and again.output_text == "The answer is 42."
    j = plain.session("plain-1")["journal"][0]
    assert (j["api"], j["path"], j["last"]["text"]) == ("interactions", "/v1/interactions", "think about it")


@pytest.mark.surface("POST /v1beta/interactions", client="google-genai")
@pytest.mark.surface("GET /v1beta/interactions/{id}", client="google-genai")
def test_streamed_events_and_resuming_after_an_event_id(plain: MockLLMServer) -> None:
    c = client(plain, "plain-2")
    evs, steps, done = collect(c.interactions.create(model="gemini-3-flash", input="think about it", stream=True))
    kinds = [e.event_type for e in evs]
    assert kinds[0] == "interaction.created" and kinds[-1] == "interaction.completed"
    assert {"step.start", "step.delta", "step.stop"} <= set(kinds)
    ids = [e.event_id for e in evs]
    assert len(set(ids)) == len(ids) and all(ids)
    assert [s["type"] for s in steps.values()] == ["thought", "model_output"]
    assert steps[0]["text"] == "Deep thought about the question." and steps[0]["signature"]
    assert steps[1]["text"] == "The answer is 42."
    assert done.status == "completed" and done.usage.total_thought_tokens > 0
    # resume: the events after the third one, as the SDK's get(stream=True, last_event_id=...) asks
    rest = list(c.interactions.get(done.id, stream=True, last_event_id=ids[2]))
    assert [e.event_id for e in rest] == ids[3:]


def test_tool_round_trip_by_previous_interaction_id(loop: MockLLMServer) -> None:
    c = client(loop, "loop-1", retry=True)
    r1 = c.interactions.create(model="gemini-3-flash", input="list the files", tools=TOOLS)
    assert r1.status == "requires_action" and calls(r1.steps) == [("bash", {"command": "ls"})]
    assert r1.output_text == "Let me look."
    # only the function result is new: the server keeps the rest
    _, steps, done = collect(c.interactions.create(
        model="gemini-3-flash", input=results(r1.steps), previous_interaction_id=r1.id, tools=TOOLS, stream=True))
    assert done.status == "requires_action"
    thought, *fcs = steps.values()
    assert thought["type"] == "thought" and thought["text"] == "Two files to read." and thought["signature"]
    assert [(f["name"], f["args"]) for f in fcs] == [("read", '{"path":"a.txt"}'), ("read", '{"path":"b.txt"}')]
    # the 429 is retried by the client itself, then the answer comes
    prev = [types_step(f) for f in fcs]
    r3 = c.interactions.create(model="gemini-3-flash", input=results(prev), previous_interaction_id=done.id,
                               tools=TOOLS)
    assert r3.status == "completed" and r3.output_text.startswith("Both files say hello")
    s = loop.session("loop-1")
    assert s["errors"] == [] and s["consumed"] == 4
    # the server saw the whole history on every request, not just what the client sent
    assert [j["messages"] for j in s["journal"] if j["status"] == 200] == [1, 4, 9]
    assert [j["status"] for j in s["journal"]] == [200, 200, 429, 200]
    assert s["journal"][-1]["last"] == {"role": "tool", "text": "read ok"}


def types_step(f: dict[str, Any]) -> Any:
    """A streamed call as the SDK's step object."""
    import json

    from google.genai.interactions import FunctionCallStep

    return FunctionCallStep(id=f["id"], name=f["name"], arguments=json.loads(f["args"]))


def test_tool_round_trip_with_the_full_history(loop: MockLLMServer) -> None:
    c = client(loop, "loop-2", retry=True)
    history: list[Any] = [{"type": "user_input", "content": [{"type": "text", "text": "list the files"}]}]
    seen: list[list[tuple[str, dict[str, Any]]]] = []
    for _ in range(3):
        r = c.interactions.create(model="gemini-3-flash", input=history, tools=TOOLS, store=False)
        seen.append(calls(r.steps))
        history += [s.model_dump(mode="json", exclude_none=True) for s in r.steps] + results(r.steps)
    assert seen == [[("bash", {"command": "ls"})], [("read", {"path": "a.txt"}), ("read", {"path": "b.txt"})], []]
    assert r.output_text.startswith("Both files say hello")
    thought = [h for h in history if h["type"] == "thought"]
    assert thought and thought[0]["signature"], "the signature goes back with the history"
    # store: false keeps nothing, so nothing can be named later
    with pytest.raises(NotFoundError) as e:
        c.interactions.get(r.id)
    assert "no such Gemini Interactions reply" in str(e.value)


def test_unknown_previous_interaction_is_a_404_in_gemini_shape(plain: MockLLMServer) -> None:
    r = httpx2.post(plain.base_url + "/v1beta/interactions", headers={"x-goog-api-key": "p3"},
                    json={"model": "m", "input": "hi", "previous_interaction_id": "v1_nope"})
    assert r.status_code == 404
    err = r.json()["error"]
    assert err["code"] == "not_found" and "v1_nope" in err["message"]
    for method, path in (("POST", "/v1beta/interactions/v1_nope/cancel"), ("GET", "/v1beta/interactions/v1_nope")):
        r = httpx2.request(method, plain.base_url + path)
        assert r.status_code == 404 and r.json()["error"]["code"] == "not_found", path
    c = client(plain, "p3")
    with pytest.raises(NotFoundError) as e:
        c.interactions.create(model="m", input="hi", previous_interaction_id="v1_nope")
    assert "v1_nope" in str(e.value)


def test_malformed_body_is_a_400_the_client_raises(plain: MockLLMServer) -> None:
    c = client(plain, "plain-4")
    with pytest.raises(BadRequestError) as e:  # the SDK checks the body's types, not what it holds
        c.interactions.create(model="gemini-3-flash", input=[{"type": "function_call", "name": "bash", "id": "",
                                                             "arguments": {}}, {"type": "function_result",
                                                             "call_id": "c", "result": "x"}],
                              extra_body={"tools": [{"type": "function"}]})
    assert "tools[0].name is required" in str(e.value)
    r = httpx2.post(plain.base_url + "/v1beta/interactions", headers={"x-goog-api-key": "p4"}, json={"input": "x"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_request"
    assert "model (or agent) is required" in r.json()["error"]["message"]


def test_one_plain_scenario_plays_on_both_gemini_dialects(tmp_path: Path) -> None:
    """No llmApiStyle: the request's path picks the dialect, and both give the same calls and text."""
    (tmp_path / "plain-loop.yaml").write_text(LOOP.replace("server: {llmApiStyle: gemini-interactions}\n", ""),
                                              encoding="utf-8")
    with serve(tmp_path / "plain-loop.yaml") as server:
        gc = client(server, "by-generate", retry=True)
        decls = types.Tool(function_declarations=[types.FunctionDeclaration(name=t["name"]) for t in TOOLS])
        cfg = types.GenerateContentConfig(tools=[decls], automatic_function_calling={"disable": True})
        contents: list[Any] = ["list the files"]
        gen_calls: list[list[tuple[str, dict[str, Any]]]] = []
        for _ in range(3):
            g = gc.models.generate_content(model="gemini-2.5-flash", contents=contents, config=cfg)
            fcs = g.function_calls or []
            gen_calls.append([(f.name or "", dict(f.args or {})) for f in fcs])
            contents += [g.candidates[0].content] + [types.Content(role="user", parts=[
                types.Part.from_function_response(name=f.name or "", response={"out": "ok"})]) for f in fcs]
        ic = client(server, "by-interactions", retry=True)
        int_calls: list[list[tuple[str, dict[str, Any]]]] = []
        r = ic.interactions.create(model="gemini-3-flash", input="list the files", tools=TOOLS)
        int_calls.append(calls(r.steps))
        for _ in range(2):
            r = ic.interactions.create(model="gemini-3-flash", input=results(r.steps), previous_interaction_id=r.id,
                                       tools=TOOLS)
            int_calls.append(calls(r.steps))
        assert gen_calls == int_calls and int_calls[0] == [("bash", {"command": "ls"})]
        assert g.text == r.output_text
        assert server.session("by-generate")["errors"] == server.session("by-interactions")["errors"] == []


def test_the_rest_docs_v1beta_path_too(plain: MockLLMServer) -> None:
    c = genai.Client(api_key="beta", http_options=types.HttpOptions(base_url=plain.base_url, api_version="v1beta"))
    r = c.interactions.create(model="gemini-3-flash", input=[{"type": "text", "text": "think about it"}])
    assert r.output_text == "The answer is 42." and c.interactions.get(r.id).id == r.id
    assert plain.session("beta")["journal"][0]["path"] == "/v1beta/interactions"
    # the earlier SDKs' {role, content} turns, over plain REST
    turn = {"role": "user", "content": [{"type": "text", "text": "think about it"}]}
    raw = httpx2.post(plain.base_url + "/v1beta/interactions", headers={"x-goog-api-key": "turns"},
                      json={"model": "gemini-3-flash", "input": [turn]})
    out = raw.json()["steps"][1]
    assert out == {"type": "model_output", "content": [{"type": "text", "text": "The answer is 42."}]}


def test_kept_interactions_are_bounded_least_recently_used_first() -> None:
    from autocue.mockllm.kept import KeptReplies
    from autocue.mockllm.wire.api import Kept

    kept = KeptReplies(limit=2)
    a, b, c = (Kept([n], None, None) for n in "abc")  # type: ignore[arg-type]
    kept.put("a", a)
    kept.put("b", b)
    assert kept.get("a") is a  # used: now b is the oldest
    kept.put("c", c)
    assert (kept.get("a"), kept.get("b"), kept.get("c"), len(kept)) == (a, None, c, 2)
