"""google-generative against a loopback server streaming real streamGenerateContent chunks."""

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

API = "google-generative"
USAGE = {
    "promptTokenCount": 30,
    "candidatesTokenCount": 6,
    "thoughtsTokenCount": 4,
    "cachedContentTokenCount": 10,
    "totalTokenCount": 40,
}


def chunk(parts: list[dict[str, Any]], finish: str | None = None, usage: dict[str, Any] | None = None) -> bytes:
    cand: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish:
        cand["finishReason"] = finish
    body: dict[str, Any] = {"candidates": [cand], "modelVersion": "m1", "responseId": "r-1"}
    if usage:
        body["usageMetadata"] = usage
    return sse(None, body)


async def test_thought_then_text(server: WireServer) -> None:
    server.push(
        Reply(
            chunks=[
                chunk([{"text": "Plan.", "thought": True}]),
                chunk([{"text": "Hel"}]),
                chunk([{"text": "lo", "thoughtSignature": "c2ln"}], "STOP", USAGE),
            ]
        )
    )
    model = model_for(API, server, reasoning=True, model_id="gemini-2.5-flash")
    events, msg = await collect(API, model, Context("sys", [UserMessage("hi")]), StreamOptions(reasoning="low"))
    assert types(events) == [
        "start",
        "thinking_start",
        "thinking_delta",
        "thinking_end",
        "text_start",
        "text_delta",
        "text_delta",
        "text_end",
        "done",
    ]
    th, tx = msg.content
    assert isinstance(th, ThinkingContent) and th.thinking == "Plan."
    assert isinstance(tx, TextContent) and tx.text == "Hello" and tx.text_signature == "c2ln"
    assert (msg.usage.input, msg.usage.output, msg.usage.cache_read) == (20, 10, 10)
    req = server.requests[0]
    assert req.path == "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    assert req.headers["x-goog-api-key"] == "key-for-test"
    assert req.body["systemInstruction"] == {"parts": [{"text": "sys"}]}
    assert req.body["contents"] == [{"role": "user", "parts": [{"text": "hi"}]}]
    assert req.body["generationConfig"] == {"thinkingConfig": {"includeThoughts": True, "thinkingBudget": 2048}}
    assert "stream" not in req.body


async def test_parallel_function_calls_with_signature(server: WireServer) -> None:
    server.push(
        Reply(
            chunks=[
                chunk(
                    [
                        {"functionCall": {"name": "read", "args": {"path": "a"}}, "thoughtSignature": "U0lH"},
                        {"functionCall": {"name": "read", "args": {"path": "b"}}},
                    ],
                    "STOP",
                    USAGE,
                )
            ]
        )
    )
    _, msg = await collect(API, model_for(API, server), Context(None, [UserMessage("go")], [READ_TOOL]))
    a, b = msg.tool_calls
    assert (a.name, a.arguments, a.thought_signature) == ("read", {"path": "a"}, "U0lH")
    assert b.arguments == {"path": "b"} and a.id != b.id
    assert msg.stop_reason == "toolUse"
    decl = server.requests[0].body["tools"][0]["functionDeclarations"][0]
    assert decl == {"name": "read", "description": "Read a file", "parametersJsonSchema": READ_TOOL.parameters}


async def test_later_turn_sends_function_responses_and_signatures(server: WireServer) -> None:
    server.push(Reply(chunks=[chunk([{"text": "ok"}], "STOP")]))
    model = model_for(API, server)
    prior = AssistantMessage(
        content=[
            ThinkingContent("Plan.", "VGg="),
            ToolCall("read_1", "read", {"path": "a"}, "U0lH"),
            ToolCall("read_2", "read", {"path": "b"}),
        ],
        api=API,
        provider="test",
        model="m1",
        stop_reason="toolUse",
    )
    ctx = Context(
        None,
        [
            UserMessage([TextContent("see"), ImageContent("aGk=", "image/png")]),
            prior,
            ToolResultMessage("read_1", "read", [TextContent("A")]),
            ToolResultMessage("read_2", "read", [TextContent("missing")], is_error=True),
        ],
    )
    await collect(API, model, ctx)
    contents = server.requests[0].body["contents"]
    assert contents[0]["parts"][1] == {"inlineData": {"mimeType": "image/png", "data": "aGk="}}
    assert contents[1] == {
        "role": "model",
        "parts": [
            {"thought": True, "text": "Plan.", "thoughtSignature": "VGg="},
            {"functionCall": {"name": "read", "args": {"path": "a"}}, "thoughtSignature": "U0lH"},
            {"functionCall": {"name": "read", "args": {"path": "b"}}},
        ],
    }
    assert contents[2] == {
        "role": "user",
        "parts": [
            {"functionResponse": {"name": "read", "response": {"output": "A"}}},
            {"functionResponse": {"name": "read", "response": {"error": "missing"}}},
        ],
    }


async def test_429_with_retry_info(server: WireServer) -> None:
    server.push(
        json_reply(
            {
                "error": {
                    "code": 429,
                    "message": "Resource has been exhausted",
                    "status": "RESOURCE_EXHAUSTED",
                    "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "13s"}],
                }
            },
            429,
        )
    )
    _, msg = await collect(API, model_for(API, server), Context(None, [UserMessage("hi")]))
    assert (msg.error_status, msg.retry_after) == (429, 13.0)
    assert msg.error_message == "429 RESOURCE_EXHAUSTED: Resource has been exhausted"


async def test_safety_finish_and_missing_finish(server: WireServer) -> None:
    server.push(Reply(chunks=[chunk([{"text": "x"}], "SAFETY")]), Reply(chunks=[chunk([{"text": "x"}])]))
    _, m1 = await collect(API, model_for(API, server), Context(None, [UserMessage("hi")]))
    _, m2 = await collect(API, model_for(API, server), Context(None, [UserMessage("hi")]))
    assert m1.stop_reason == "error" and "finishReason SAFETY" in (m1.error_message or "")
    assert m2.stop_reason == "error" and "before a candidate with a finishReason" in (m2.error_message or "")


async def test_non_streaming(server: WireServer) -> None:
    server.push(
        json_reply(
            {
                "candidates": [{"content": {"role": "model", "parts": [{"text": "whole"}]}, "finishReason": "STOP"}],
                "usageMetadata": USAGE,
            }
        )
    )
    model = model_for(API, server, stream=False)
    _, msg = await collect(API, model, Context(None, [UserMessage("hi")]))
    assert server.requests[0].path == "/v1beta/models/m1:generateContent"
    assert msg.text == "whole" and msg.stop_reason == "stop"


async def test_cut_mid_event_and_503(server: WireServer) -> None:
    server.push(
        Reply(chunks=[chunk([{"text": "Hel"}]), chunk([{"text": "lo"}], "STOP")], cut_after=1),
        json_reply({"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}}, 503),
    )
    _, m1 = await collect(API, model_for(API, server), Context(None, [UserMessage("hi")]))
    _, m2 = await collect(API, model_for(API, server), Context(None, [UserMessage("hi")]))
    assert m1.stop_reason == "error" and m1.text == "Hel" and "connection was cut" in (m1.error_message or "")
    assert m2.error_status == 503 and m2.error_message == "503 UNAVAILABLE: The model is overloaded."
