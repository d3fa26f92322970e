"""Gemini generateContent / streamGenerateContent (alt=sse and JSON array), over plain HTTP."""

from __future__ import annotations

import json
from typing import Any

import httpx2
from mockllm_helpers import retry_script, thinking_script, tools_script

from autocue.mockllm import serve

TOOLS = [{"functionDeclarations": [{"name": "bash", "parameters": {"type": "OBJECT"}},
                                   {"name": "read", "parameters": {"type": "OBJECT"}}]}]


def body(contents: list[Any]) -> dict[str, Any]:
    return {"contents": contents, "tools": TOOLS, "systemInstruction": {"parts": [{"text": "be brief"}]},
            "generationConfig": {"thinkingConfig": {"includeThoughts": True}}}


def sse_chunks(text: str) -> list[dict[str, Any]]:
    return [json.loads(line[6:]) for line in text.split("\r\n") if line.startswith("data: ")]


def parts_of(chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [p for c in chunks for p in c["candidates"][0]["content"]["parts"]]


def test_sse_tool_round_trip_and_thoughts() -> None:
    with serve(tools_script()) as server:
        url = server.base_url + "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
        h = {"x-goog-api-key": "g"}
        contents: list[Any] = [{"role": "user", "parts": [{"text": "list the files"}]}]
        r = httpx2.post(url, json=body(contents), headers=h)
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
        chunks = sse_chunks(r.text)
        assert chunks[-1]["candidates"][0]["finishReason"] == "STOP"
        assert all("usageMetadata" in c for c in chunks)
        parts = parts_of(chunks)
        assert "".join(p.get("text", "") for p in parts) == "Let me look."
        fc = [p["functionCall"] for p in parts if "functionCall" in p]
        assert [(f["name"], f["args"]) for f in fc] == [("bash", {"command": "ls"})]
        contents += [{"role": "model", "parts": parts},
                     {"role": "user", "parts": [{"functionResponse": {"name": "bash", "response": {"out": "x"}}}]}]
        parts2 = parts_of(sse_chunks(httpx2.post(url, json=body(contents), headers=h).text))
        thoughts = [p for p in parts2 if p.get("thought")]
        assert "".join(p["text"] for p in thoughts) == "Two files to read."
        calls = [p for p in parts2 if "functionCall" in p]
        assert [c["functionCall"]["args"]["path"] for c in calls] == ["a.txt", "b.txt"]
        assert calls[0]["thoughtSignature"], "the signature rides on the first part after the thoughts"
        assert server.session("g")["consumed"] == 2


def test_non_stream_and_json_array_stream() -> None:
    with serve(thinking_script()) as server:
        base = server.base_url + "/v1beta/models/gemini-2.5-pro"
        contents = [{"role": "user", "parts": [{"text": "think about it"}]}]
        r = httpx2.post(base + ":generateContent", json=body(contents), headers={"x-goog-api-key": "a"})
        parts = r.json()["candidates"][0]["content"]["parts"]
        assert parts[0] == {"text": "Deep thought about the question.", "thought": True}
        assert parts[1]["text"] == "The answer is 42." and parts[1]["thoughtSignature"]
        assert r.json()["usageMetadata"]["thoughtsTokenCount"] > 0
        r = httpx2.post(base + ":streamGenerateContent", json=body(contents), headers={"x-goog-api-key": "b"})
        assert r.headers["content-type"].startswith("application/json")
        arr = r.json()
        assert isinstance(arr, list) and arr[-1]["candidates"][0]["finishReason"] == "STOP"
        assert "".join(p["text"] for p in parts_of(arr) if not p.get("thought")) == "The answer is 42."


def test_errors_are_gemini_shaped_and_side_calls_skip_the_script() -> None:
    with serve(retry_script(retry_after=1)) as server:
        url = server.base_url + "/v1beta/models/gemini-3.5-flash-lite:generateContent"
        router = {"contents": [{"role": "user", "parts": [{"text": "hello"}]}],
                  "generationConfig": {"responseMimeType": "application/json", "responseSchema": {
                      "type": "OBJECT", "properties": {"complexity_reasoning": {"type": "STRING"},
                                                       "complexity_score": {"type": "INTEGER"}}}}}
        r = httpx2.post(url, json=router, headers={"x-goog-api-key": "k"})
        assert json.loads(r.json()["candidates"][0]["content"]["parts"][0]["text"])["complexity_score"] == 1
        r = httpx2.post(url, json={"contents": router["contents"]}, headers={"x-goog-api-key": "k"})
        assert r.status_code == 429 and r.headers["retry-after"] == "1"
        assert r.json() == {"error": {"code": 429, "message": "slow down", "status": "RESOURCE_EXHAUSTED"}}
        s = server.session("k")
        assert (s["side_calls"], s["consumed"]) == (1, 1)
        r = httpx2.post(server.base_url + "/v1beta/models/x:countTokens", json={"contents": []})
        assert r.json()["totalTokens"] >= 1
