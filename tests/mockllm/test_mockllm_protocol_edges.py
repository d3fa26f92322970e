"""Protocol details: length stops per API, factories over HTTP, multi-turn prompts, usage."""

from __future__ import annotations

from typing import Any

import anthropic
import httpx2
import openai
import pytest
from mockllm_helpers import say

from autocue.llm.types import Context, TextContent, ToolResultMessage, Usage
from autocue.mockllm import serve
from autocue.script import Script, ScriptedResponse, ScriptedToolCall, Turn


def truncated() -> Script:
    return Script([Turn("hi", [ScriptedResponse([TextContent("cut sho")], stop_reason="length",
                                                 usage=Usage.of(11, 7))] * 4)], name="len")


def test_length_stop_in_every_api() -> None:
    with serve(truncated()) as server:
        oa = openai.OpenAI(base_url=server.openai_base_url, api_key="k")
        r = oa.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
        assert r.choices[0].finish_reason == "length"
        assert (r.usage.prompt_tokens, r.usage.completion_tokens) == (11, 7)  # type: ignore[union-attr]
        resp = oa.responses.create(model="m", input="hi")
        assert resp.status == "incomplete" and resp.incomplete_details.reason == "max_output_tokens"  # type: ignore[union-attr]
        an = anthropic.Anthropic(base_url=server.base_url, api_key="k")
        with an.messages.stream(model="m", max_tokens=5, messages=[{"role": "user", "content": "hi"}]) as s:
            msg = s.get_final_message()
        assert msg.stop_reason == "max_tokens" and msg.usage.output_tokens == 7
        g = httpx2.post(server.base_url + "/v1beta/models/g:generateContent", headers={"x-goog-api-key": "k"},
                        json={"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}).json()
        assert g["candidates"][0]["finishReason"] == "MAX_TOKENS"


def test_response_factory_sees_the_live_context() -> None:
    def count_results(ctx: Context) -> ScriptedResponse:
        results = [m for m in ctx.messages if isinstance(m, ToolResultMessage)]
        return ScriptedResponse([TextContent(f"{len(results)} result(s): {results[0].text}; tools "
                                             f"{[t.name for t in ctx.tools]}; system {ctx.system_prompt!r}")])

    script = Script([Turn("go", [ScriptedResponse([ScriptedToolCall("bash", {"command": "ls"})]), count_results])],
                    name="fac")
    with serve(script) as server:
        c = anthropic.Anthropic(base_url=server.base_url, api_key="k")
        kw: Any = {"model": "m", "max_tokens": 10, "system": "sys",
                   "tools": [{"name": "bash", "input_schema": {"type": "object"}}]}
        first = c.messages.create(messages=[{"role": "user", "content": "go"}], **kw)
        use = first.content[0]
        second = c.messages.create(messages=[
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": [use.model_dump()]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use.id, "content": "a.txt"}]}], **kw)
        assert second.content[0].text == "1 result(s): a.txt; tools ['bash']; system 'sys'"  # type: ignore[union-attr]


def test_multi_turn_prompts_are_checked_loosely() -> None:
    script = Script([Turn("first question", [say("first answer")]), Turn("second question", [say("second answer")])],
                    name="turns")
    with serve(script) as server:
        c = openai.OpenAI(base_url=server.openai_base_url, api_key="k")
        msgs: Any = [{"role": "user", "content": "first question"}]
        assert c.chat.completions.create(model="m", messages=msgs).choices[0].message.content == "first answer"
        msgs += [{"role": "assistant", "content": "first answer"}, {"role": "user", "content": "something else"}]
        assert c.chat.completions.create(model="m", messages=msgs).choices[0].message.content == "second answer"
        warnings = server.session("k")["warnings"]
        assert len(warnings) == 1 and "turn 2 expects the user prompt 'second question'" in warnings[0]


@pytest.mark.parametrize("path", ["/v1/chat/completions", "/v1/responses", "/v1/messages"])
def test_scripted_error_with_custom_body_and_status(path: str) -> None:
    from autocue.script import ScriptedError

    body = {"error": {"type": "overloaded_error", "message": "custom"}}
    script = Script([Turn("hi", [ScriptedResponse(error=ScriptedError("x", kind="overloaded", body=body))])],
                    name="err")
    with serve(script) as server:
        r = httpx2.post(server.base_url + path, json={"model": "m", "messages": [], "input": "hi"})
        assert (r.status_code, r.json()) == (529, body)
        assert "retry-after" not in r.headers


def test_scenario_tool_call_ids_are_kept_and_derived_ids_are_stable() -> None:
    script = Script([Turn("hi", [ScriptedResponse([ScriptedToolCall("bash", {"command": "ls"}, "toolu_given"),
                                                   ScriptedToolCall("bash", {"command": "pwd"})])])], name="ids")
    ids = []
    for _ in range(2):
        with serve(script) as server:
            r = httpx2.post(server.base_url + "/v1/messages", headers={"x-api-key": "same"},
                            json={"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]})
            ids.append([b["id"] for b in r.json()["content"]] + [r.json()["id"]])
    assert ids[0] == ids[1] and ids[0][0] == "toolu_given" and ids[0][1].startswith("toolu_01")
