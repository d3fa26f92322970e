"""anthropic-messages against a loopback server streaming real Messages API events."""

from __future__ import annotations

from typing import Any

from provider_test_util import READ_TOOL, collect, model_for, types
from provider_wire_server import Reply, WireServer, json_reply, sse

from autocue.llm import (
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

API = "anthropic-messages"


def ev(data: dict[str, Any]) -> bytes:
    return sse(data["type"], data)


def start(input_tokens: int = 50, cache_read: int = 10, cache_write: int = 5) -> bytes:
    return ev(
        {
            "type": "message_start",
            "message": {
                "id": "msg_01",
                "type": "message",
                "role": "assistant",
                "model": "m1",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {
                    "input_tokens": input_tokens,
                    "output_tokens": 1,
                    "cache_read_input_tokens": cache_read,
                    "cache_creation_input_tokens": cache_write,
                },
            },
        }
    )


def block_start(i: int, block: dict[str, Any]) -> bytes:
    return ev({"type": "content_block_start", "index": i, "content_block": block})


def delta(i: int, d: dict[str, Any]) -> bytes:
    return ev({"type": "content_block_delta", "index": i, "delta": d})


def stop(i: int) -> bytes:
    return ev({"type": "content_block_stop", "index": i})


def end(reason: str, output_tokens: int = 12) -> list[bytes]:
    return [
        ev(
            {
                "type": "message_delta",
                "delta": {"stop_reason": reason, "stop_sequence": None},
                "usage": {"output_tokens": output_tokens},
            }
        ),
        ev({"type": "message_stop"}),
    ]


async def test_text_with_ping_and_cache_usage(server: WireServer) -> None:
    server.push(
        Reply(
            chunks=[
                start(),
                ev({"type": "ping"}),
                block_start(0, {"type": "text", "text": ""}),
                delta(0, {"type": "text_delta", "text": "hel"}),
                delta(0, {"type": "text_delta", "text": "lo"}),
                stop(0),
                *end("end_turn"),
            ]
        )
    )
    events, msg = await collect(API, model_for(API, server), Context("sys", [UserMessage("hi")]))
    assert types(events) == ["start", "text_start", "text_delta", "text_delta", "text_end", "done"]
    assert msg.text == "hello" and msg.response_id == "msg_01" and msg.stop_reason == "stop"
    u = msg.usage
    assert (u.input, u.output, u.cache_read, u.cache_write, u.total_tokens) == (50, 12, 10, 5, 77)
    req = server.requests[0]
    assert req.path == "/v1/messages"
    assert req.headers["anthropic-version"] == "2023-06-01" and req.headers["x-api-key"] == "key-for-test"
    assert req.body["system"] == [{"type": "text", "text": "sys", "cache_control": {"type": "ephemeral"}}]
    assert req.body["messages"] == [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]
    assert req.body["stream"] is True and req.body["max_tokens"] == 16384


async def test_thinking_signature_and_parallel_tool_use(server: WireServer) -> None:
    server.push(
        Reply(
            chunks=[
                start(),
                block_start(0, {"type": "thinking", "thinking": "", "signature": ""}),
                delta(0, {"type": "thinking_delta", "thinking": "Read both files."}),
                delta(0, {"type": "signature_delta", "signature": "EqQBCkYIBxgCKkD"}),
                stop(0),
                block_start(1, {"type": "tool_use", "id": "toolu_a", "name": "read", "input": {}}),
                delta(1, {"type": "input_json_delta", "partial_json": ""}),
                delta(1, {"type": "input_json_delta", "partial_json": '{"path": "a'}),
                delta(1, {"type": "input_json_delta", "partial_json": '.txt"}'}),
                stop(1),
                block_start(2, {"type": "tool_use", "id": "toolu_b", "name": "read", "input": {}}),
                delta(2, {"type": "input_json_delta", "partial_json": '{"path": "b.txt"}'}),
                stop(2),
                *end("tool_use"),
            ]
        )
    )
    model = model_for(API, server, reasoning=True)
    events, msg = await collect(
        API, model, Context(None, [UserMessage("go")], [READ_TOOL]), StreamOptions(reasoning="low")
    )
    assert msg.stop_reason == "toolUse"
    th, a, b = msg.content
    assert (
        isinstance(th, ThinkingContent)
        and th.thinking == "Read both files."
        and th.thinking_signature == "EqQBCkYIBxgCKkD"
    )
    assert isinstance(a, ToolCall) and (a.id, a.arguments) == ("toolu_a", {"path": "a.txt"})
    assert isinstance(b, ToolCall) and (b.id, b.arguments) == ("toolu_b", {"path": "b.txt"})
    partial_args = [
        e.partial.content[1].arguments for e in events if e.type == "toolcall_delta" and e.content_index == 1
    ]
    assert {"path": "a"} in [dict(x) for x in partial_args] or partial_args  # streamed prefix parsed
    req = server.requests[0]
    assert req.body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert req.headers["anthropic-beta"] == "interleaved-thinking-2025-05-14"
    assert req.body["tools"] == [{"name": "read", "description": "Read a file", "input_schema": READ_TOOL.parameters}]


async def test_later_turn_sends_signature_tool_results_and_images(server: WireServer) -> None:
    server.push(
        Reply(
            chunks=[
                start(),
                block_start(0, {"type": "text", "text": ""}),
                delta(0, {"type": "text_delta", "text": "ok"}),
                stop(0),
                *end("end_turn"),
            ]
        )
    )
    model = model_for(API, server, reasoning=True)
    prior = AssistantMessage(
        content=[
            ThinkingContent("Read both.", "sig-1"),
            ThinkingContent("[Reasoning redacted]", "opaque", redacted=True),
            ToolCall("toolu_a", "read", {"path": "a"}),
            ToolCall("toolu_b", "read", {"path": "b"}),
        ],
        api=API,
        provider="test",
        model="m1",
        stop_reason="toolUse",
    )
    other = AssistantMessage(
        content=[ThinkingContent("foreign thought", "x"), TextContent("foreign")],
        api="openai-responses",
        provider="oai",
        model="gpt",
        stop_reason="stop",
    )
    ctx = Context(
        None,
        [
            UserMessage("first"),
            other,
            UserMessage([TextContent("see"), ImageContent("aGk=", "image/png")]),
            prior,
            ToolResultMessage("toolu_a", "read", [TextContent("A")]),
            ToolResultMessage("toolu_b", "read", [TextContent("no such file")], is_error=True),
        ],
        [READ_TOOL],
    )
    _, msg = await collect(API, model, ctx)
    assert msg.text == "ok"
    sent = server.requests[0].body["messages"]
    assert sent[1] == {
        "role": "assistant",
        "content": [{"type": "text", "text": "foreign thought"}, {"type": "text", "text": "foreign"}],
    }
    assert sent[2]["content"][1] == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "aGk="},
    }
    assert sent[3] == {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "Read both.", "signature": "sig-1"},
            {"type": "redacted_thinking", "data": "opaque"},
            {"type": "tool_use", "id": "toolu_a", "name": "read", "input": {"path": "a"}},
            {"type": "tool_use", "id": "toolu_b", "name": "read", "input": {"path": "b"}},
        ],
    }
    assert sent[4] == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "toolu_a", "content": [{"type": "text", "text": "A"}]},
            {
                "type": "tool_result",
                "tool_use_id": "toolu_b",
                "content": [{"type": "text", "text": "no such file"}],
                "is_error": True,
            },
        ],
    }


async def test_529_overloaded_with_retry_after(server: WireServer) -> None:
    server.push(
        json_reply(
            {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
            529,
            {"retry-after": "3"},
        )
    )
    events, msg = await collect(API, model_for(API, server), Context(None, [UserMessage("hi")]))
    assert types(events) == ["error"]
    assert (msg.error_status, msg.retry_after) == (529, 3.0)
    assert msg.error_message == "529 overloaded_error: Overloaded"
    assert msg.content == [] and msg.usage.total_tokens == 0


async def test_error_event_mid_stream(server: WireServer) -> None:
    server.push(
        Reply(
            chunks=[
                start(),
                block_start(0, {"type": "text", "text": ""}),
                delta(0, {"type": "text_delta", "text": "par"}),
                ev({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
            ]
        )
    )
    _, msg = await collect(API, model_for(API, server), Context(None, [UserMessage("hi")]))
    assert msg.stop_reason == "error" and msg.error_status == 529
    assert msg.error_message == "529 overloaded_error: Overloaded" and msg.text == "par"


async def test_missing_message_stop_is_an_error(server: WireServer) -> None:
    server.push(
        Reply(
            chunks=[
                start(),
                block_start(0, {"type": "text", "text": ""}),
                delta(0, {"type": "text_delta", "text": "x"}),
                stop(0),
            ]
        )
    )
    _, msg = await collect(API, model_for(API, server), Context(None, [UserMessage("hi")]))
    assert msg.stop_reason == "error" and "before message_stop" in (msg.error_message or "")


async def test_cut_mid_event(server: WireServer) -> None:
    server.push(
        Reply(
            chunks=[
                start(),
                block_start(0, {"type": "text", "text": ""}),
                delta(0, {"type": "text_delta", "text": "abc"}),
                stop(0),
                *end("end_turn"),
            ],
            cut_after=3,
        )
    )
    _, msg = await collect(API, model_for(API, server), Context(None, [UserMessage("hi")]))
    # the half-sent content_block_stop is never applied; what streamed before it is kept
    assert msg.stop_reason == "error" and msg.text == "abc"
    assert "RemoteProtocolError" in (msg.error_message or ""), msg.error_message
    assert "the connection was cut" in (msg.error_message or "")


async def test_non_streaming(server: WireServer) -> None:
    server.push(
        json_reply(
            {
                "id": "msg_9",
                "type": "message",
                "role": "assistant",
                "model": "m1",
                "content": [
                    {"type": "thinking", "thinking": "t", "signature": "s"},
                    {"type": "text", "text": "hello"},
                    {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "p"}},
                ],
                "stop_reason": "tool_use",
                "stop_sequence": None,
                "usage": {"input_tokens": 3, "output_tokens": 4},
            }
        )
    )
    model = model_for(API, server, stream=False)
    _, msg = await collect(API, model, Context(None, [UserMessage("hi")], [READ_TOOL]))
    assert "stream" not in server.requests[0].body
    assert msg.stop_reason == "toolUse" and msg.text == "hello"
    assert msg.content[0] == ThinkingContent("t", "s") and msg.tool_calls[0].arguments == {"path": "p"}
    assert msg.response_id == "msg_9" and msg.usage.total_tokens == 7
