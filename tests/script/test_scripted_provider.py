"""The scripted provider: streaming shapes, factories, failures and loud exhaustion."""

from __future__ import annotations

import json
from typing import Any

from autocue.llm import (
    AbortController,
    AssistantMessage,
    Context,
    StreamOptions,
    TextContent,
    ThinkingContent,
    ToolCall,
    Usage,
    UserMessage,
)
from autocue.script import (
    ScriptedError,
    ScriptedProvider,
    ScriptedResponse,
    ScriptedToolCall,
    scripted_model,
)

MODEL = scripted_model()


def ctx(*texts: str) -> Context:
    return Context("sys", [UserMessage(t) for t in texts])


async def play(provider: ScriptedProvider, context: Context | None = None, **opts: Any) -> tuple[list[Any], Any]:
    stream = provider.stream(MODEL, context or ctx("hi"), StreamOptions(**opts))
    events = [e async for e in stream]
    return events, await stream.result()


async def test_stream_shape_for_thinking_text_and_two_tool_calls() -> None:
    resp = ScriptedResponse(
        [
            ThinkingContent("I should look first.", thinking_signature="sig-1"),
            TextContent("Reading both files now."),
            ScriptedToolCall("read", {"path": "a.txt"}),
            ScriptedToolCall("read", {"path": "b.txt"}, id="toolu_fixed"),
        ],
        usage=Usage.of(120, 42),
    )
    provider = ScriptedProvider([resp], chunk_size=8)
    events, final = await play(provider)
    kinds = [e.type for e in events]
    assert kinds == [
        "start",
        "thinking_start", "thinking_delta", "thinking_delta", "thinking_delta", "thinking_end",
        "text_start", "text_delta", "text_delta", "text_delta", "text_end",
        "toolcall_start", "toolcall_delta", "toolcall_delta", "toolcall_end",
        "toolcall_start", "toolcall_delta", "toolcall_delta", "toolcall_end",
        "done",
    ]
    deltas = "".join(e.delta for e in events if e.type == "thinking_delta")
    assert deltas == "I should look first."
    assert all(len(e.delta) <= 8 for e in events if e.type.endswith("_delta"))
    for idx in (2, 3):
        frags = "".join(e.delta for e in events if e.type == "toolcall_delta" and e.content_index == idx)
        assert json.loads(frags) == final.content[idx].arguments
    assert events[-1].reason == "toolUse"
    assert isinstance(final, AssistantMessage)
    assert final.stop_reason == "toolUse" and final.usage.total_tokens == 162
    assert [b.id for b in final.content if isinstance(b, ToolCall)] == ["call_1", "toolu_fixed"]
    assert final.content[0].thinking_signature == "sig-1"
    # every event carries the same partial message, complete at the end
    assert all(e.partial is final for e in events)


async def test_streaming_is_deterministic() -> None:
    def run() -> ScriptedProvider:
        return ScriptedProvider([ScriptedResponse([TextContent("x" * 33), ScriptedToolCall("t", {"k": "v" * 20})])])

    a, _ = await play(run())
    b, _ = await play(run())
    assert [e.to_json() | {"partial": None} for e in a][:-1] == [e.to_json() | {"partial": None} for e in b][:-1]


async def test_exhaustion_fails_loudly_with_what_was_consumed() -> None:
    provider = ScriptedProvider([ScriptedResponse([TextContent("only reply")])])
    await play(provider)
    events, final = await play(provider)
    assert [e.type for e in events] == ["error"]
    assert final.stop_reason == "error"
    assert "No more scripted responses" in final.error_message
    assert "Consumed 1 response(s)" in final.error_message
    assert 'Last consumed: say("only reply")' in final.error_message
    assert len(provider.exhausted) == 1 and provider.exhausted[0].consumed == 1
    assert not final.content  # never invents text


async def test_factories_see_the_live_context_sync_and_async() -> None:
    seen: list[str] = []

    def sync_step(context: Context) -> ScriptedResponse:
        seen.append(context.messages[-1].text)
        return ScriptedResponse([TextContent("sync")])

    async def async_step(context: Context) -> AssistantMessage:
        seen.append(context.messages[-1].text)
        return AssistantMessage([TextContent("async")], stop_reason="stop")

    provider = ScriptedProvider([sync_step, async_step])
    _, one = await play(provider, ctx("first"))
    _, two = await play(provider, ctx("first", "second"))
    assert seen == ["first", "second"]
    assert (one.text, two.text) == ("sync", "async")


async def test_late_bound_arguments_resolve_when_played() -> None:
    box = {"id": "unset"}
    provider = ScriptedProvider([ScriptedResponse([ScriptedToolCall("get", lambda: {"id": box["id"]})])])
    assert provider.queue[0].describe() == 'call("get", <late-bound>)'
    box["id"] = "p-7"
    _, final = await play(provider)
    assert final.content[0].arguments == {"id": "p-7"}


async def test_scripted_failures_for_each_kind() -> None:
    cases = {
        "overloaded": ("error", 529, "529 overloaded_error: busy"),
        "rate_limit": ("error", 429, "429 rate_limit_error: busy"),
        "context_overflow": ("error", 400, "400 context overflow: prompt is too long: busy"),
        "error": ("error", 500, "busy"),
        "aborted": ("aborted", 499, "busy"),
    }
    for kind, (reason, status, text) in cases.items():
        provider = ScriptedProvider([ScriptedResponse(error=ScriptedError("busy", kind=kind, retry_after=1.5))])  # type: ignore[arg-type]
        events, final = await play(provider)
        assert events[-1].type == "error" and events[-1].reason == reason, kind
        assert final.stop_reason == reason and final.error_message == text, kind
        assert final.error_status == status and final.retry_after == 1.5, kind


async def test_length_stop_reason_keeps_the_text() -> None:
    provider = ScriptedProvider([ScriptedResponse([TextContent("cut of")], stop_reason="length")])
    events, final = await play(provider)
    assert events[-1].type == "done" and events[-1].reason == "length"
    assert final.text == "cut of"


async def test_an_aborted_signal_yields_aborted_and_the_step_counts() -> None:
    ctrl = AbortController()
    ctrl.abort("stop now")
    provider = ScriptedProvider([ScriptedResponse([TextContent("x")])])
    _events, final = await play(provider, signal=ctrl.signal)
    assert final.stop_reason == "aborted" and final.error_message == "stop now"


async def test_a_broken_factory_becomes_an_error_reply() -> None:
    def broken(context: Context) -> ScriptedResponse:
        raise KeyError("missing")

    provider = ScriptedProvider([broken])
    _, final = await play(provider)
    assert final.stop_reason == "error"
    assert "<factory broken> raised KeyError" in final.error_message


def test_describe_uses_dsl_form() -> None:
    assert ScriptedResponse([TextContent("hello")]).describe() == 'say("hello")'
    two = ScriptedResponse([ScriptedToolCall("a", {"x": 1}), ScriptedToolCall("b")])
    assert two.describe() == 'parallel(call("a", {"x": 1}), call("b", {}))'
    assert ScriptedResponse(error=ScriptedError("nope", kind="rate_limit")).describe() == (
        'fail("nope", kind="rate_limit")'
    )


async def test_a_reply_taken_whole_is_the_streamed_reply_and_counts_as_played() -> None:
    blocks: list[Any] = [ThinkingContent("look first"), TextContent("Reading."), ScriptedToolCall("read", {"p": 1})]
    resp = ScriptedResponse(blocks, usage=Usage.of(3, 4))
    played: list[Any] = []
    whole = ScriptedProvider([resp, resp], on_played=lambda step, m: played.append((step, m)))
    stream = whole.stream(MODEL, ctx("hi"), StreamOptions())
    final = stream.sync_source.final()  # type: ignore[union-attr]
    assert final.type == "done" and played == [(resp, final.message)]
    _, streamed = await play(whole)
    got, want = final.message.to_json(), streamed.to_json()
    assert got.pop("timestamp") and want.pop("timestamp")
    assert got["content"][2].pop("id") == "call_1" and want["content"][2].pop("id") == "call_2"
    assert got == want
    # exhausted, the whole reply is the error the stream would end with
    last = whole.stream(MODEL, ctx("hi"), StreamOptions()).sync_source.final()  # type: ignore[union-attr]
    assert last.type == "error" and "No more scripted responses" in (last.error.error_message or "")
    assert len(whole.exhausted) == 1
