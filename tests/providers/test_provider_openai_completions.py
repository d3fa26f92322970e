"""openai-completions against a loopback server streaming real Chat Completions chunks."""

from __future__ import annotations

import asyncio
from typing import Any

from provider_test_util import READ_TOOL, collect, model_for, types
from provider_wire_server import Reply, WireServer, json_reply, sse

from autocue.llm import (
    AbortController,
    AssistantMessage,
    Context,
    ImageContent,
    StreamOptions,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from autocue.llm.providers import create_provider

API = "openai-completions"


def chunk(
    delta: dict[str, Any] | None = None,
    finish: str | None = None,
    usage: dict[str, Any] | None = None,
    choices: bool = True,
) -> bytes:
    body: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "m1",
        "choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish}] if choices else [],
    }
    if usage is not None:
        body["usage"] = usage
    return sse(None, body)


USAGE = {
    "prompt_tokens": 100,
    "completion_tokens": 20,
    "total_tokens": 120,
    "prompt_tokens_details": {"cached_tokens": 30},
    "completion_tokens_details": {"reasoning_tokens": 5},
}
DONE = b"data: [DONE]\n\n"


async def test_text_stream_and_usage(server: WireServer) -> None:
    server.push(
        Reply(
            chunks=[
                chunk({"role": "assistant", "content": ""}),
                chunk({"content": "Hel"}),
                chunk({"content": "lo"}),
                chunk(finish="stop"),
                chunk(usage=USAGE, choices=False),
                DONE,
            ]
        )
    )
    model = model_for(API, server)
    events, msg = await collect(API, model, Context("be brief", [UserMessage("hi")]))
    assert types(events) == ["start", "text_start", "text_delta", "text_delta", "text_end", "done"]
    assert msg.text == "Hello" and msg.stop_reason == "stop" and msg.response_id == "chatcmpl-1"
    assert (msg.usage.input, msg.usage.output, msg.usage.cache_read, msg.usage.total_tokens) == (70, 20, 30, 120)
    req = server.requests[0]
    assert req.path == "/v1/chat/completions"
    assert req.headers["authorization"] == "Bearer key-for-test"
    assert req.body["stream"] is True and req.body["stream_options"] == {"include_usage": True}
    assert req.body["messages"] == [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]


async def test_reasoning_then_parallel_tool_calls_by_index(server: WireServer) -> None:
    server.push(
        Reply(
            chunks=[
                chunk({"role": "assistant", "reasoning_content": "Let me "}),
                chunk({"reasoning_content": "read both."}),
                chunk(
                    {
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": "call_a",
                                "type": "function",
                                "function": {"name": "read", "arguments": ""},
                            }
                        ]
                    }
                ),
                chunk(
                    {
                        "tool_calls": [
                            {
                                "index": 1,
                                "id": "call_b",
                                "type": "function",
                                "function": {"name": "read", "arguments": '{"pa'},
                            }
                        ]
                    }
                ),
                chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"path": "a.txt"}'}}]}),
                chunk({"tool_calls": [{"index": 1, "function": {"arguments": 'th": "b.txt"}'}}]}),
                chunk(finish="tool_calls"),
                DONE,
            ]
        )
    )
    model = model_for(API, server, reasoning=True)
    events, msg = await collect(
        API, model, Context(None, [UserMessage("read a and b")], [READ_TOOL]), StreamOptions(reasoning="medium")
    )
    assert msg.stop_reason == "toolUse"
    thinking, a, b = msg.content
    assert isinstance(thinking, ThinkingContent) and thinking.thinking == "Let me read both."
    assert thinking.thinking_signature == "reasoning_content"
    assert isinstance(a, ToolCall) and (a.id, a.name, a.arguments) == ("call_a", "read", {"path": "a.txt"})
    assert isinstance(b, ToolCall) and (b.id, b.arguments) == ("call_b", {"path": "b.txt"})
    ends = [e for e in events if e.type == "toolcall_end"]
    assert [e.tool_call.id for e in ends] == ["call_a", "call_b"]
    # A toolcall_delta's partial already holds the parsed prefix.
    assert server.requests[0].body["reasoning_effort"] == "medium"
    assert server.requests[0].body["tools"][0]["function"]["name"] == "read"


async def test_multi_turn_sends_tool_results_reasoning_and_images(server: WireServer) -> None:
    server.push(Reply(chunks=[chunk({"content": "done"}), chunk(finish="stop"), DONE]))
    model = model_for(API, server, reasoning=True)
    prior = AssistantMessage(
        content=[
            ThinkingContent("plan", "reasoning_content"),
            TextContent("Reading."),
            ToolCall("call_a", "read", {"path": "a.txt"}),
        ],
        api=API,
        provider="test",
        model="m1",
        stop_reason="toolUse",
    )
    failed = AssistantMessage(api=API, provider="test", model="m1", stop_reason="error", error_message="500 boom")
    ctx = Context(
        "sys",
        [
            UserMessage([TextContent("look"), ImageContent("aGk=", "image/png")]),
            failed,
            prior,
            ToolResultMessage("call_a", "read", [TextContent("A"), ImageContent("aW1n", "image/png")]),
        ],
        [READ_TOOL],
    )
    _, msg = await collect(API, model, ctx)
    assert msg.text == "done"
    sent = server.requests[0].body["messages"]
    assert sent[0] == {"role": "developer", "content": "sys"}
    assert sent[1]["content"][1] == {"type": "image_url", "image_url": {"url": "data:image/png;base64,aGk="}}
    # the failed reply is not replayed; the reasoning goes back under its own field
    assert sent[2] == {
        "role": "assistant",
        "content": "Reading.",
        "reasoning_content": "plan",
        "tool_calls": [
            {"id": "call_a", "type": "function", "function": {"name": "read", "arguments": '{"path":"a.txt"}'}}
        ],
    }
    assert sent[3] == {"role": "tool", "tool_call_id": "call_a", "content": "A"}
    assert sent[4]["role"] == "user" and sent[4]["content"][1]["image_url"]["url"] == "data:image/png;base64,aW1n"


async def test_http_429_with_retry_after(server: WireServer) -> None:
    server.push(
        json_reply(
            {"error": {"message": "Rate limit reached", "type": "rate_limit_exceeded"}}, 429, {"retry-after": "7"}
        )
    )
    events, msg = await collect(API, model_for(API, server), Context(None, [UserMessage("hi")]))
    assert types(events) == ["error"]
    assert msg.stop_reason == "error" and msg.error_status == 429 and msg.retry_after == 7.0
    assert msg.error_message == "429 rate_limit_exceeded: Rate limit reached"


async def test_http_500_plain_body_and_retry_after_ms(server: WireServer) -> None:
    server.push(Reply(500, [b"upstream exploded"], {"content-type": "text/plain", "retry-after-ms": "1500"}))
    _, msg = await collect(API, model_for(API, server), Context(None, [UserMessage("hi")]))
    assert msg.error_status == 500 and msg.retry_after == 1.5
    assert msg.error_message == "500 upstream exploded"


async def test_broken_stream_keeps_partial_and_reports_error(server: WireServer) -> None:
    server.push(
        Reply(chunks=[chunk({"content": "par"}), chunk({"content": "tial"}), chunk(finish="stop")], cut_after=2)
    )
    events, msg = await collect(API, model_for(API, server), Context(None, [UserMessage("hi")]))
    assert events[-1].type == "error" and msg.stop_reason == "error"
    assert msg.text == "partial"
    assert "openai-completions: POST http://127.0.0.1" in (msg.error_message or "")


async def test_stream_without_finish_or_done_is_an_error(server: WireServer) -> None:
    server.push(Reply(chunks=[chunk({"content": "hi"})]))
    _, msg = await collect(API, model_for(API, server), Context(None, [UserMessage("hi")]))
    assert msg.stop_reason == "error" and "before a finish_reason or [DONE]" in (msg.error_message or "")


async def test_non_streaming_fallback(server: WireServer) -> None:
    server.push(
        json_reply(
            {
                "id": "c9",
                "object": "chat.completion",
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "tool_calls",
                        "message": {
                            "role": "assistant",
                            "content": "ok",
                            "tool_calls": [
                                {
                                    "id": "call_z",
                                    "type": "function",
                                    "function": {"name": "read", "arguments": '{"path":"z"}'},
                                }
                            ],
                        },
                    }
                ],
                "usage": {"prompt_tokens": 5, "completion_tokens": 2},
            }
        )
    )
    model = model_for(API, server, stream=False)
    events, msg = await collect(API, model, Context(None, [UserMessage("hi")], [READ_TOOL]))
    assert server.requests[0].body["stream"] is False and "stream_options" not in server.requests[0].body
    assert types(events) == [
        "start",
        "text_start",
        "text_delta",
        "text_end",
        "toolcall_start",
        "toolcall_delta",
        "toolcall_end",
        "done",
    ]
    assert msg.stop_reason == "toolUse" and msg.tool_calls[0].arguments == {"path": "z"}
    assert (msg.usage.input, msg.usage.output, msg.usage.total_tokens) == (5, 2, 7)


async def test_json_body_to_a_stream_request_is_accepted(server: WireServer) -> None:
    server.push(
        json_reply(
            {
                "id": "c1",
                "choices": [
                    {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "plain"}}
                ],
            }
        )
    )
    _, msg = await collect(API, model_for(API, server), Context(None, [UserMessage("hi")]))
    assert msg.text == "plain" and msg.stop_reason == "stop"


async def test_abort_mid_stream(server: WireServer) -> None:
    server.push(Reply(chunks=[chunk({"content": "first"})], hold=True))
    provider = create_provider(API)
    ctl = AbortController()
    stream = provider.stream(
        model_for(API, server), Context(None, [UserMessage("hi")]), StreamOptions(signal=ctl.signal)
    )
    seen = []
    async for ev in stream:
        seen.append(ev.type)
        if ev.type == "text_delta":
            ctl.abort()
    msg = await stream.result()
    assert seen[-1] == "error" and msg.stop_reason == "aborted"
    assert msg.error_message == "Request was aborted" and msg.text == "first"
    for _ in range(100):
        if server.closed_early:
            break
        await asyncio.sleep(0.01)
    assert server.closed_early == 1  # the connection was really dropped
    await provider.aclose()  # type: ignore[attr-defined]


async def test_connection_refused_names_the_url() -> None:
    with WireServer() as s:
        url = s.url
    from autocue.llm import Model

    model = Model(id="m", api=API, provider="test", base_url=url + "/v1")
    _, msg = await collect(API, model, Context(None, [UserMessage("hi")]))
    assert msg.stop_reason == "error"
    assert f"POST {url}/v1/chat/completions" in (msg.error_message or "")
    assert "is the server running" in (msg.error_message or "")


async def test_invalid_tool_arguments_are_reported(server: WireServer) -> None:
    server.push(
        Reply(
            chunks=[
                chunk(
                    {"tool_calls": [{"index": 0, "id": "call_x", "function": {"name": "read", "arguments": '{"pa'}}]}
                ),
                chunk(finish="tool_calls"),
                DONE,
            ]
        )
    )
    _, msg = await collect(API, model_for(API, server), Context(None, [UserMessage("hi")], [READ_TOOL]))
    assert msg.stop_reason == "error"
    assert "tool call 'read' (call_x): tool arguments are not valid JSON" in (msg.error_message or "")
