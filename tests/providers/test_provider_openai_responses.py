"""openai-responses against a loopback server streaming real Responses API events."""

from __future__ import annotations

import json
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

API = "openai-responses"


class Seq:
    """Numbers events like the real API (``sequence_number``)."""

    def __init__(self) -> None:
        self.n = 0

    def __call__(self, type_: str, **fields: Any) -> bytes:
        self.n += 1
        return sse(type_, {"type": type_, "sequence_number": self.n, **fields})


RESP = {"id": "resp_1", "object": "response", "status": "in_progress", "model": "m1", "output": []}
USAGE = {
    "input_tokens": 40,
    "output_tokens": 9,
    "total_tokens": 49,
    "input_tokens_details": {"cached_tokens": 16},
    "output_tokens_details": {"reasoning_tokens": 4},
}
REASONING = {
    "id": "rs_1",
    "type": "reasoning",
    "summary": [{"type": "summary_text", "text": "Think."}],
    "encrypted_content": "gAAAA-enc",
}


def text_reply(e: Seq, text: str = "hello") -> list[bytes]:
    item = {"id": "msg_1", "type": "message", "role": "assistant", "status": "in_progress", "content": []}
    done = {**item, "status": "completed", "content": [{"type": "output_text", "text": text, "annotations": []}]}
    return [
        e("response.created", response=RESP),
        e("response.output_item.added", output_index=0, item=item),
        e(
            "response.content_part.added",
            item_id="msg_1",
            output_index=0,
            content_index=0,
            part={"type": "output_text", "text": "", "annotations": []},
        ),
        e("response.output_text.delta", item_id="msg_1", output_index=0, content_index=0, delta=text[:2]),
        e("response.output_text.delta", item_id="msg_1", output_index=0, content_index=0, delta=text[2:]),
        e("response.output_text.done", item_id="msg_1", output_index=0, content_index=0, text=text),
        e("response.output_item.done", output_index=0, item=done),
        e("response.completed", response={**RESP, "status": "completed", "output": [done], "usage": USAGE}),
    ]


async def test_text_and_usage(server: WireServer) -> None:
    server.push(Reply(chunks=text_reply(Seq())))
    events, msg = await collect(
        API, model_for(API, server), Context("sys", [UserMessage("hi")]), StreamOptions(session_id="sess-1")
    )
    assert types(events) == ["start", "text_start", "text_delta", "text_delta", "text_end", "done"]
    assert msg.text == "hello" and msg.response_id == "resp_1"
    assert msg.content[0].text_signature == '{"v":1,"id":"msg_1"}'
    assert (msg.usage.input, msg.usage.cache_read, msg.usage.output, msg.usage.total_tokens) == (24, 16, 9, 49)
    req = server.requests[0]
    assert req.path == "/v1/responses" and req.headers["authorization"] == "Bearer key-for-test"
    assert req.body["input"] == [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": [{"type": "input_text", "text": "hi"}]},
    ]
    assert req.body["store"] is False and req.body["stream"] is True and req.body["prompt_cache_key"] == "sess-1"


async def test_reasoning_and_parallel_function_calls(server: WireServer) -> None:
    e = Seq()
    fa = {
        "id": "fc_a",
        "type": "function_call",
        "call_id": "call_a",
        "name": "read",
        "arguments": "",
        "status": "in_progress",
    }
    fb = {
        "id": "fc_b",
        "type": "function_call",
        "call_id": "call_b",
        "name": "read",
        "arguments": "",
        "status": "in_progress",
    }
    server.push(
        Reply(
            chunks=[
                e("response.created", response=RESP),
                e(
                    "response.output_item.added",
                    output_index=0,
                    item={"id": "rs_1", "type": "reasoning", "summary": []},
                ),
                e(
                    "response.reasoning_summary_part.added",
                    item_id="rs_1",
                    output_index=0,
                    summary_index=0,
                    part={"type": "summary_text", "text": ""},
                ),
                e(
                    "response.reasoning_summary_text.delta",
                    item_id="rs_1",
                    output_index=0,
                    summary_index=0,
                    delta="Think.",
                ),
                e(
                    "response.reasoning_summary_part.done",
                    item_id="rs_1",
                    output_index=0,
                    summary_index=0,
                    part={"type": "summary_text", "text": "Think."},
                ),
                e("response.output_item.done", output_index=0, item=REASONING),
                e("response.output_item.added", output_index=1, item=fa),
                e("response.output_item.added", output_index=2, item=fb),
                e("response.function_call_arguments.delta", item_id="fc_a", output_index=1, delta='{"path":'),
                e("response.function_call_arguments.delta", item_id="fc_b", output_index=2, delta='{"path": "b"}'),
                e("response.function_call_arguments.delta", item_id="fc_a", output_index=1, delta=' "a"}'),
                e("response.function_call_arguments.done", item_id="fc_a", output_index=1, arguments='{"path": "a"}'),
                e(
                    "response.output_item.done",
                    output_index=1,
                    item={**fa, "arguments": '{"path": "a"}', "status": "completed"},
                ),
                e(
                    "response.output_item.done",
                    output_index=2,
                    item={**fb, "arguments": '{"path": "b"}', "status": "completed"},
                ),
                e("response.completed", response={**RESP, "status": "completed", "usage": USAGE}),
            ]
        )
    )
    model = model_for(API, server, reasoning=True)
    _, msg = await collect(
        API, model, Context("sys", [UserMessage("go")], [READ_TOOL]), StreamOptions(reasoning="high")
    )
    th, a, b = msg.content
    assert isinstance(th, ThinkingContent) and th.thinking == "Think."
    assert json.loads(th.thinking_signature or "") == REASONING
    assert isinstance(a, ToolCall) and (a.id, a.arguments) == ("call_a|fc_a", {"path": "a"})
    assert isinstance(b, ToolCall) and (b.id, b.arguments) == ("call_b|fc_b", {"path": "b"})
    assert msg.stop_reason == "toolUse"
    body = server.requests[0].body
    assert body["reasoning"] == {"effort": "high", "summary": "auto"}
    assert body["include"] == ["reasoning.encrypted_content"]
    assert body["input"][0] == {"role": "developer", "content": "sys"}
    assert body["tools"][0] == {
        "type": "function",
        "name": "read",
        "description": "Read a file",
        "parameters": READ_TOOL.parameters,
        "strict": False,
    }


async def test_later_turn_replays_reasoning_item_and_function_outputs(server: WireServer) -> None:
    server.push(Reply(chunks=text_reply(Seq(), "fine")))
    model = model_for(API, server, reasoning=True)
    prior = AssistantMessage(
        content=[
            ThinkingContent("Think.", json.dumps(REASONING)),
            TextContent("Reading.", '{"v":1,"id":"msg_7"}'),
            ToolCall("call_a|fc_a", "read", {"path": "a"}),
        ],
        api=API,
        provider="test",
        model="m1",
        stop_reason="toolUse",
    )
    ctx = Context(
        None,
        [
            UserMessage([TextContent("look"), ImageContent("aGk=", "image/jpeg")]),
            prior,
            ToolResultMessage("call_a|fc_a", "read", [TextContent("A")]),
        ],
        [READ_TOOL],
    )
    _, msg = await collect(API, model, ctx)
    assert msg.text == "fine"
    inp = server.requests[0].body["input"]
    assert inp[0]["content"][1] == {
        "type": "input_image",
        "detail": "auto",
        "image_url": "data:image/jpeg;base64,aGk=",
    }
    assert inp[1] == REASONING
    assert inp[2] == {
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "id": "msg_7",
        "content": [{"type": "output_text", "text": "Reading.", "annotations": []}],
    }
    assert inp[3] == {
        "type": "function_call",
        "id": "fc_a",
        "call_id": "call_a",
        "name": "read",
        "arguments": '{"path":"a"}',
    }
    assert inp[4] == {"type": "function_call_output", "call_id": "call_a", "output": "A"}


async def test_http_429_and_500(server: WireServer) -> None:
    server.push(
        json_reply(
            {"error": {"message": "Rate limit reached for gpt", "type": "requests", "code": "rate_limit_exceeded"}},
            429,
            {"retry-after": "2"},
        ),
        json_reply({"error": {"message": "The server had an error", "type": "server_error"}}, 500),
    )
    _, m1 = await collect(API, model_for(API, server), Context(None, [UserMessage("hi")]))
    _, m2 = await collect(API, model_for(API, server), Context(None, [UserMessage("hi")]))
    assert (m1.error_status, m1.retry_after, m1.error_message) == (
        429,
        2.0,
        "429 requests: Rate limit reached for gpt",
    )
    assert (m2.error_status, m2.retry_after, m2.error_message) == (
        500,
        None,
        "500 server_error: The server had an error",
    )


async def test_response_failed_and_missing_completed(server: WireServer) -> None:
    e = Seq()
    server.push(
        Reply(
            chunks=[
                e("response.created", response=RESP),
                e(
                    "response.failed",
                    response={**RESP, "status": "failed", "error": {"code": "server_error", "message": "boom"}},
                ),
            ]
        ),
        Reply(chunks=text_reply(Seq())[:-1]),
    )
    _, m1 = await collect(API, model_for(API, server), Context(None, [UserMessage("hi")]))
    _, m2 = await collect(API, model_for(API, server), Context(None, [UserMessage("hi")]))
    assert m1.stop_reason == "error" and m1.error_message == "server_error: boom"
    assert (
        m2.stop_reason == "error" and "before response.completed" in (m2.error_message or "") and m2.text == "hello"
    )


async def test_non_streaming(server: WireServer) -> None:
    done = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": "whole", "annotations": []}],
    }
    server.push(json_reply({**RESP, "status": "completed", "output": [done], "usage": USAGE}))
    model = model_for(API, server, stream=False)
    events, msg = await collect(API, model, Context(None, [UserMessage("hi")]))
    assert server.requests[0].body["stream"] is False
    assert types(events) == ["start", "text_start", "text_delta", "text_end", "done"] and msg.text == "whole"


async def test_cut_mid_event(server: WireServer) -> None:
    server.push(Reply(chunks=text_reply(Seq()), cut_after=4))
    _, msg = await collect(API, model_for(API, server), Context(None, [UserMessage("hi")]))
    assert msg.stop_reason == "error" and msg.text == "he"
    assert "RemoteProtocolError" in (msg.error_message or "")
