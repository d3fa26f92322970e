"""OpenAI Chat Completions through the official ``openai`` SDK (streaming and not)."""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest
from mockllm_helpers import retry_script, say, thinking_script, tools_script

from autocue.mockllm import MockLLMServer, serve
from autocue.script import Script, Turn


def client(server: MockLLMServer, key: str = "k", **kw: Any) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.openai_base_url, api_key=key, **kw)


def run_tools(c: openai.OpenAI, stream: bool) -> list[dict[str, Any]]:
    """Drive the tools script like an agent: answer every tool call, until a text reply."""
    messages: list[Any] = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "list the files"}]
    tools = [{"type": "function", "function": {"name": n, "parameters": {"type": "object"}}} for n in ("bash", "read")]
    replies: list[dict[str, Any]] = []
    for _ in range(5):
        if stream:
            content, calls, finish, ids = "", {}, None, set()
            usage = None
            for chunk in c.chat.completions.create(model="m", messages=messages, tools=tools, stream=True,
                                                   stream_options={"include_usage": True}):
                ids.add(chunk.id)
                if chunk.usage is not None:
                    usage = chunk.usage
                if not chunk.choices:
                    continue
                ch = chunk.choices[0]
                d = ch.delta
                content += d.content or ""
                for tc in d.tool_calls or []:
                    slot = calls.setdefault(tc.index, {"id": None, "name": "", "arguments": ""})
                    if tc.id:
                        slot["id"] = tc.id
                    if tc.function and tc.function.name:
                        slot["name"] = tc.function.name
                    if tc.function and tc.function.arguments:
                        slot["arguments"] += tc.function.arguments
                finish = ch.finish_reason or finish
            assert len(ids) == 1, "one id per stream"
            assert usage is not None and usage.total_tokens > 0
            tool_calls = [calls[k] for k in sorted(calls)]
        else:
            r = c.chat.completions.create(model="m", messages=messages, tools=tools)
            m = r.choices[0].message
            content, finish = m.content or "", r.choices[0].finish_reason
            tool_calls = [{"id": t.id, "name": t.function.name, "arguments": t.function.arguments}
                          for t in m.tool_calls or []]
        replies.append({"content": content, "finish": finish, "calls": tool_calls})
        if not tool_calls:
            break
        messages.append({"role": "assistant", "content": content or None, "tool_calls": [
            {"id": t["id"], "type": "function", "function": {"name": t["name"], "arguments": t["arguments"]}}
            for t in tool_calls]})
        for t in tool_calls:
            messages.append({"role": "tool", "tool_call_id": t["id"], "content": f"result of {t['name']}"})
    return replies


@pytest.mark.surface("POST /v1/chat/completions", client="openai")
@pytest.mark.parametrize("stream", [False, True])
def test_tool_round_trips(stream: bool) -> None:
    with serve(tools_script()) as server:
        replies = run_tools(client(server), stream)
        assert [r["finish"] for r in replies] == ["tool_calls", "tool_calls", "stop"]
        assert replies[0]["content"] == "Let me look."
        assert [(t["name"], json.loads(t["arguments"])) for t in replies[0]["calls"]] == [("bash", {"command": "ls"})]
        assert [json.loads(t["arguments"])["path"] for t in replies[1]["calls"]] == ["a.txt", "b.txt"]
        assert replies[1]["content"] == "", "thinking is never exposed in Chat"
        assert replies[2]["content"] == "Both files say hello."
        ids = [t["id"] for r in replies for t in r["calls"]]
        assert all(i.startswith("call_") for i in ids) and len(set(ids)) == 3
        status = server.session("k")
        assert (status["consumed"], status["remaining"]) == (3, 0)
    # deterministic ids: the same session key replays the same ids
    with serve(tools_script()) as again:
        assert [t["id"] for r in run_tools(client(again), stream) for t in r["calls"]] == ids


@pytest.mark.parametrize("stream", [False, True])
def test_thinking_is_hidden(stream: bool) -> None:
    with serve(thinking_script()) as server:
        c = client(server)
        msgs: Any = [{"role": "user", "content": "think about it"}]
        if stream:
            text = "".join(ch.choices[0].delta.content or "" for ch in
                           c.chat.completions.create(model="m", messages=msgs, stream=True) if ch.choices)
        else:
            text = c.chat.completions.create(model="m", messages=msgs).choices[0].message.content or ""
        assert text == "The answer is 42."


@pytest.mark.parametrize("stream", [False, True])
def test_429_then_success_with_sdk_retry(stream: bool) -> None:
    with serve(retry_script()) as server:
        c = client(server, max_retries=2)
        msgs: Any = [{"role": "user", "content": "hello"}]
        if stream:
            text = "".join(ch.choices[0].delta.content or "" for ch in
                           c.chat.completions.create(model="m", messages=msgs, stream=True) if ch.choices)
        else:
            text = c.chat.completions.create(model="m", messages=msgs).choices[0].message.content
        assert text == "made it"
        s = server.session("k")
        assert (s["requests"], s["consumed"], s["remaining"]) == (2, 2, 0)


def test_429_without_retries_is_a_rate_limit_error() -> None:
    with serve(retry_script(retry_after=3)) as server:
        with pytest.raises(openai.RateLimitError) as ei:
            client(server, max_retries=0).chat.completions.create(model="m", messages=[{"role": "user",
                                                                                        "content": "hello"}])
        assert ei.value.response.headers["retry-after"] == "3"
        assert ei.value.response.headers["retry-after-ms"] == "3000"
        assert "slow down" in str(ei.value)


@pytest.mark.parametrize("stream", [False, True])
def test_exhaustion_names_scenario_and_count(stream: bool) -> None:
    with serve(Script([Turn("hi", [say("one")])], name="short-one")) as server:
        c = client(server, max_retries=3)
        msgs: Any = [{"role": "user", "content": "hi"}]
        c.chat.completions.create(model="m", messages=msgs)
        with pytest.raises(openai.BadRequestError) as ei:
            c.chat.completions.create(model="m", messages=msgs, stream=stream)
        msg = str(ei.value)
        assert "'short-one'" in msg and "all 1 were consumed" in msg
        s = server.session("k")
        assert s["exhausted"] == 1 and s["requests"] == 2, "exhaustion is not retried"
        assert "short-one" in s["errors"][0]


def test_system_messages_extra_fields_and_unknown_tools_are_accepted() -> None:
    with serve(Script([Turn("hi", [say("ok")])], name="x")) as server:
        r = client(server).chat.completions.create(
            model="m",
            messages=[{"role": "developer", "content": "dev"}, {"role": "user", "content": "hi"},
                      {"role": "system", "content": "late system"}],
            tools=[{"type": "namespace", "name": "multi", "tools": []}],  # type: ignore[list-item]
            extra_body={"store": False, "prompt_cache_key": "x", "whatever": {"nested": 1}},
            extra_headers={"anthropic-beta": "x", "x-codex-beta-features": "y"},
        )
        assert r.choices[0].message.content == "ok"
