"""Anthropic Messages through the official ``anthropic`` SDK, including ``messages.stream``."""

from __future__ import annotations

from typing import Any

import anthropic
import httpx2
import pytest
from mockllm_helpers import retry_script, say, thinking_script, tools_script

from autocue.mockllm import MockLLMServer, serve
from autocue.script import Script, Turn

TOOLS: Any = [{"name": n, "input_schema": {"type": "object"}} for n in ("bash", "read")]


def client(server: MockLLMServer, **kw: Any) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=server.base_url, api_key="k", **kw)


def run_tools(c: anthropic.Anthropic, stream: bool) -> list[Any]:
    messages: list[Any] = [{"role": "user", "content": "list the files"}]
    finals = []
    for _ in range(5):
        kw: Any = {"model": "claude-x", "max_tokens": 1000, "messages": messages, "tools": TOOLS,
                   "system": [{"type": "text", "text": "be brief", "cache_control": {"type": "ephemeral"}}]}
        if stream:
            with c.messages.stream(**kw) as s:
                for _ev in s:
                    pass
                msg = s.get_final_message()
        else:
            msg = c.messages.create(**kw)
        finals.append(msg)
        uses = [b for b in msg.content if b.type == "tool_use"]
        if not uses:
            break
        messages.append({"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in msg.content]})
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": u.id, "content": f"result {u.name}"} for u in uses]})
    return finals


@pytest.mark.surface("POST /v1/messages", client="anthropic")
@pytest.mark.parametrize("stream", [False, True])
def test_tool_round_trips(stream: bool) -> None:
    with serve(tools_script()) as server:
        first, second, third = run_tools(client(server), stream)
        assert first.stop_reason == "tool_use" and third.stop_reason == "end_turn"
        assert [b.type for b in first.content] == ["text", "tool_use"]
        assert first.content[0].text == "Let me look."  # type: ignore[union-attr]
        use = first.content[1]
        assert use.type == "tool_use" and use.name == "bash" and use.input == {"command": "ls"}
        assert use.id.startswith("toolu_")
        assert [b.type for b in second.content] == ["thinking", "tool_use", "tool_use"]
        th = second.content[0]
        assert th.type == "thinking" and th.thinking == "Two files to read." and th.signature
        assert [b.input["path"] for b in second.content[1:]] == ["a.txt", "b.txt"]  # type: ignore[union-attr]
        assert third.content[0].text == "Both files say hello."  # type: ignore[union-attr]
        assert third.usage.output_tokens > 0 and third.usage.input_tokens > 0
        assert server.session("k")["remaining"] == 0


def test_stream_event_sequence() -> None:
    with serve(thinking_script()) as server:
        with client(server).messages.stream(model="m", max_tokens=100,
                                            messages=[{"role": "user", "content": "think about it"}]) as s:
            events = [e.type for e in s]
            final = s.get_final_message()
        raw = [t for i, t in enumerate(events) if i == 0 or t != events[i - 1]]
        assert raw[0] == "message_start" and raw[-2:] == ["message_delta", "message_stop"]
        assert "signature" in events and "thinking" in events and "text" in events
        assert final.content[0].type == "thinking" and final.content[0].signature
        assert final.content[1].type == "text" and final.content[1].text == "The answer is 42."
        assert final.stop_reason == "end_turn"


def test_raw_stream_has_ping_input_json_delta_and_top_level_usage() -> None:
    with serve(tools_script()) as server:
        r = httpx2.post(server.base_url + "/v1/messages?beta=true", headers={"x-api-key": "k",
                        "anthropic-version": "2023-06-01", "anthropic-beta": "interleaved-thinking-2025-05-14"},
                        json={"model": "m", "max_tokens": 10, "stream": True,
                              "messages": [{"role": "user", "content": "list the files"},
                                           {"role": "system", "content": "mid-conversation system"}]})
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
        text = r.text
        assert "event: ping" in text
        assert '"type":"input_json_delta","partial_json":""' in text
        assert '"usage":{"input_tokens"' in text.split("event: message_delta")[1]
        assert '"stop_reason":"tool_use","stop_sequence":null' in text


@pytest.mark.parametrize("stream", [False, True])
def test_thinking(stream: bool) -> None:
    with serve(thinking_script()) as server:
        c = client(server)
        kw: Any = {"model": "m", "max_tokens": 2000, "messages": [{"role": "user", "content": "think about it"}],
                   "thinking": {"type": "enabled", "budget_tokens": 1024}}
        if stream:
            with c.messages.stream(**kw) as s:
                msg = s.get_final_message()
        else:
            msg = c.messages.create(**kw)
        assert [b.type for b in msg.content] == ["thinking", "text"]


@pytest.mark.parametrize("stream", [False, True])
def test_429_then_success_with_sdk_retry(stream: bool) -> None:
    with serve(retry_script()) as server:
        c = client(server, max_retries=2)
        kw: Any = {"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "hello"}]}
        if stream:
            with c.messages.stream(**kw) as s:
                msg = s.get_final_message()
        else:
            msg = c.messages.create(**kw)
        assert msg.content[0].text == "made it"  # type: ignore[union-attr]
        assert server.session("k")["requests"] == 2


def test_rate_limit_error_is_typed() -> None:
    with serve(retry_script(retry_after=2)) as server:
        with pytest.raises(anthropic.RateLimitError) as ei:
            client(server, max_retries=0).messages.create(model="m", max_tokens=10,
                                                          messages=[{"role": "user", "content": "hello"}])
        assert ei.value.body["error"]["type"] == "rate_limit_error"  # type: ignore[index]
        assert ei.value.response.headers["retry-after"] == "2"


@pytest.mark.parametrize("stream", [False, True])
def test_exhaustion(stream: bool) -> None:
    with serve(Script([Turn("hi", [say("one")])], name="tiny")) as server:
        c = client(server, max_retries=2)
        kw: Any = {"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]}
        c.messages.create(**kw)
        with pytest.raises(anthropic.BadRequestError) as ei:
            if stream:
                with c.messages.stream(**kw) as s:
                    s.get_final_message()
            else:
                c.messages.create(**kw)
        message = ei.value.body["error"]["message"]  # type: ignore[index]
        assert "'tiny'" in message and "all 1 were consumed" in message
        assert server.session("k")["requests"] == 2


@pytest.mark.surface("POST /v1/messages/count_tokens", client="anthropic")
def test_beta_endpoint_and_count_tokens() -> None:
    with serve(Script([Turn("hi", [say("one")])], name="tiny")) as server:
        c = client(server)
        msg = c.beta.messages.create(model="m", max_tokens=10, messages=[{"role": "user", "content": "hi"}],
                                     betas=["interleaved-thinking-2025-05-14"])
        assert msg.content[0].text == "one"  # type: ignore[union-attr]
        n = c.messages.count_tokens(model="m", messages=[{"role": "user", "content": "hi"}])
        assert n.input_tokens > 0
        assert server.session("k")["consumed"] == 1, "count_tokens does not consume the script"
