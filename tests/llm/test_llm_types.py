"""LLM types: pi-compatible JSON form, round trips, usage maths, abort signals."""

from __future__ import annotations

import json

import pytest
from conformance import PI_SESSIONS

from autocue.llm import (
    AbortController,
    AssistantMessage,
    ImageContent,
    Model,
    ModelCost,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
    message_from_json,
)


def test_json_form_uses_pi_camel_case_and_key_order() -> None:
    msg = AssistantMessage(
        [ThinkingContent("hmm", "sig"), TextContent("hi"), ToolCall("toolu_1", "read", {"path": "a"})],
        api="anthropic-messages", provider="p", model="m", usage=Usage.of(10, 5),
        stop_reason="toolUse", timestamp=1, response_id="msg_1",
    )
    d = msg.to_json()
    assert list(d) == ["role", "content", "api", "provider", "model", "usage", "stopReason", "timestamp", "responseId"]
    msg.error_message = "boom"
    assert list(msg.to_json())[-3:] == ["timestamp", "responseId", "errorMessage"]  # pi sets it last
    assert d["content"][0] == {"type": "thinking", "thinking": "hmm", "thinkingSignature": "sig"}
    assert d["usage"] == {
        "input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
    }
    tr = ToolResultMessage("toolu_1", "read", [TextContent("x")], None, False, 2).to_json()
    assert list(tr) == ["role", "toolCallId", "toolName", "content", "isError", "timestamp"]


@pytest.mark.parametrize(
    "msg",
    [
        UserMessage("plain", 5),
        UserMessage([TextContent("look"), ImageContent("aGk=", "image/png")], 6),
        AssistantMessage([TextContent("t", "sig")], api="a", provider="b", model="c", stop_reason="error",
                         error_message="boom", timestamp=7),
        ToolResultMessage("id", "edit", [TextContent("ok")], {"diff": "-a\n+b", "firstChangedLine": 1}, False, 8),
    ],
)
def test_round_trip(msg: object) -> None:
    d = msg.to_json()  # type: ignore[attr-defined]
    assert message_from_json(d).to_json() == d


def test_real_pi_messages_reserialize_byte_for_byte() -> None:
    files = sorted(PI_SESSIONS.glob("*.jsonl"))
    assert files, f"conformance files missing under {PI_SESSIONS}"
    count = 0
    for f in files:
        for line in f.read_text().splitlines():
            entry = json.loads(line)
            if entry.get("type") != "message":
                continue
            original = entry["message"]
            again = message_from_json(original).to_json()
            assert json.dumps(again, separators=(",", ":"), ensure_ascii=False) == json.dumps(
                original, separators=(",", ":"), ensure_ascii=False
            ), f"{f.name}: {line[:80]}"
            count += 1
    assert count > 20


def test_bad_messages_say_what_is_wrong() -> None:
    with pytest.raises(ValueError, match="unknown message role 'robot'"):
        message_from_json({"role": "robot"})
    with pytest.raises(ValueError, match="toolResult message is missing field 'toolCallId'"):
        message_from_json({"role": "toolResult", "content": []})
    with pytest.raises(ValueError, match="unknown content block type 'video'"):
        message_from_json({"role": "user", "content": [{"type": "video"}]})


def test_usage_and_cost() -> None:
    u = Usage.of(1000, 500, 200)
    assert u.total_tokens == 1700
    total = Usage()
    total.add(u)
    total.add(u)
    assert total.total_tokens == 3400 and total.cache_read == 400
    model = Model("m", "openai-completions", "x", cost=ModelCost(input=3, output=15, cache_read=0.3))
    cost = model.usage_cost(u)
    assert cost.total == pytest.approx(0.003 + 0.0075 + 0.00006)


async def test_abort_signal() -> None:
    ctrl = AbortController()
    fired: list[str] = []
    remove = ctrl.signal.add_listener(lambda: fired.append("a"))
    ctrl.signal.add_listener(lambda: fired.append("b"))
    remove()
    ctrl.abort("why")
    ctrl.abort("again")
    await ctrl.signal.wait()
    assert fired == ["b"] and ctrl.signal.reason == "why"
    late: list[int] = []
    ctrl.signal.add_listener(lambda: late.append(1))
    assert late == [1]
