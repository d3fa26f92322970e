"""OpenAI Responses through the official ``openai`` SDK, including its stream helper."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import openai
import pytest
from mockllm_helpers import retry_script, say, thinking_script, tools_script

from autocue.mockllm import MockLLMServer, serve
from autocue.script import Script, Turn

TOOLS: Any = [{"type": "function", "name": n, "parameters": {"type": "object"}, "strict": False}
              for n in ("bash", "read")]


def client(server: MockLLMServer, **kw: Any) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.openai_base_url, api_key="k", **kw)


def run_tools(c: openai.OpenAI, stream: bool) -> list[Any]:
    items: list[Any] = [{"role": "developer", "content": "be brief"}, {"role": "user", "content": "list the files"}]
    finals = []
    for _ in range(5):
        if stream:
            with c.responses.stream(model="m", input=items, tools=TOOLS,
                                    include=["reasoning.encrypted_content"]) as s:
                for _ev in s:
                    pass
                resp = s.get_final_response()
        else:
            resp = c.responses.create(model="m", input=items, tools=TOOLS, include=["reasoning.encrypted_content"])
        finals.append(resp)
        calls = [o for o in resp.output if o.type == "function_call"]
        if not calls:
            break
        for o in resp.output:
            items.append(o.model_dump(exclude_none=True))
        for cl in calls:
            items.append({"type": "function_call_output", "call_id": cl.call_id, "output": f"result {cl.name}"})
    return finals


@pytest.mark.surface("POST /v1/responses", client="openai")
@pytest.mark.parametrize("stream", [False, True])
def test_tool_round_trips_with_reasoning(stream: bool) -> None:
    with serve(tools_script()) as server:
        finals = run_tools(client(server), stream)
        assert len(finals) == 3
        first, second, third = finals
        assert [o.type for o in first.output] == ["message", "function_call"]
        assert first.output_text == "Let me look."
        fc = first.output[1]
        assert fc.name == "bash" and json.loads(fc.arguments) == {"command": "ls"} and fc.call_id.startswith("call_")
        assert [o.type for o in second.output] == ["reasoning", "function_call", "function_call"]
        rs = second.output[0]
        assert rs.summary[0].text == "Two files to read." and rs.encrypted_content
        assert [json.loads(o.arguments)["path"] for o in second.output[1:]] == ["a.txt", "b.txt"]
        assert third.output_text == "Both files say hello." and third.status == "completed"
        assert third.usage is not None and third.usage.total_tokens > 0
        assert server.session("k")["remaining"] == 0


def test_stream_event_order_and_sequence_numbers() -> None:
    with serve(tools_script()) as server:
        c = client(server)
        items: Any = [{"role": "user", "content": "list the files"}]
        with c.responses.stream(model="m", input=items) as s:
            events = list(s)
        types = [e.type for e in events]
        assert [e.sequence_number for e in events] == list(range(len(events)))
        assert types[:2] == ["response.created", "response.in_progress"]
        assert types[-1] == "response.completed"
        # the message item, then the function call item, each in the real API's order
        msg = ["response.output_item.added", "response.content_part.added", "response.output_text.delta",
               "response.output_text.done", "response.content_part.done", "response.output_item.done"]
        call = ["response.output_item.added", "response.function_call_arguments.delta",
                "response.function_call_arguments.done", "response.output_item.done"]
        assert types[2:-1] == msg + call
        done = [e for e in events if e.type == "response.output_text.done"]
        assert done[0].text == "Let me look."


def test_reasoning_summary_events() -> None:
    with serve(thinking_script()) as server:
        with client(server).responses.stream(model="m", input="think about it") as s:
            events = list(s)
            final = s.get_final_response()
        types = [t for i, t in enumerate(e.type for e in events) if i == 0 or t != events[i - 1].type]
        assert types[2:8] == ["response.output_item.added", "response.reasoning_summary_part.added",
                              "response.reasoning_summary_text.delta", "response.reasoning_summary_text.done",
                              "response.reasoning_summary_part.done", "response.output_item.done"]
        assert final.output[0].type == "reasoning" and final.output_text == "The answer is 42."
        assert final.output[0].encrypted_content is None, "only when include asks for it"


@pytest.mark.parametrize("stream", [False, True])
def test_429_then_success(stream: bool) -> None:
    with serve(retry_script()) as server:
        c = client(server, max_retries=2)
        if stream:
            with c.responses.stream(model="m", input="hello") as s:
                text = s.get_final_response().output_text
        else:
            text = c.responses.create(model="m", input="hello").output_text
        assert text == "made it"
        assert server.session("k")["requests"] == 2


def test_exhaustion() -> None:
    with serve(Script([Turn("hi", [say("one")])], name="tiny")) as server:
        c = client(server)
        c.responses.create(model="m", input="hi")
        with pytest.raises(openai.BadRequestError, match="tiny"):
            c.responses.create(model="m", input="hi")


def test_websocket_upgrade_without_websocket_mode_gets_426_at_once() -> None:
    """426 Upgrade Required makes a client fall back to HTTP at once (a 404 made Codex retry 7 times, ~7 s);
    ``/responses`` takes the WebSocket (test_mockllm_responses_websocket.py)."""
    with serve(Script([Turn("hi", [say("one")])], name="tiny")) as server:
        r = httpx2.get(server.openai_base_url + "/chat/completions",
                       headers={"upgrade": "websocket", "connection": "Upgrade", "sec-websocket-version": "13",
                                "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
                                "openai-beta": "responses_websockets=2026-02-06"})
        assert r.status_code == 426
        assert "WebSocket" in r.json()["error"]["message"] and r.headers["x-should-retry"] == "false"
        assert server.sessions() == []
        other = httpx2.get(server.openai_base_url + "/no-such-thing")
        assert other.status_code == 404
