"""Recording Gemini Interactions through ``autocue record`` and replaying the recording through ``autocue
serve``, judged by the official google-genai client (streamed and not): the upstream plays a scripted
tool loop (thinking, text, a call, two parallel calls, a 429, a second user turn by
``previous_interaction_id``); the client sees the same replies through the proxy and from the replayed
recording, and the ``x-goog-api-key`` never reaches the file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from google import genai
from google.genai import types
from google.genai._interactions_errors import APIStatusError
from record_clients import LOOP_PROMPTS, upstream_loop

from autocue.mockllm.server import serve
from autocue.record import RecordingServer, Redactor
from autocue.scenario import load_scenario

UPSTREAM = upstream_loop("upstream-interactions")
PROMPTS = LOOP_PROMPTS
KEY = "AIzaSyD-0123456789abcdefghijklmnopqrstu"
TOOLS: list[Any] = [{"type": "function", "name": n, "parameters": {"type": "object"}} for n in ("bash", "read")]


def interactions_loop(base_url: str, key: str, prompts: list[str], stream: bool) -> list[dict[str, Any]]:
    """The tool loop by ``previous_interaction_id``, each reply as plain data (the client's retries off,
    so every attempt is seen; an error is retried by the loop)."""
    c = genai.Client(api_key=key, http_options=types.HttpOptions(
        base_url=base_url, retry_options=types.HttpRetryOptions(attempts=1)))
    out: list[dict[str, Any]] = []
    prev: str | None = None
    for prompt in prompts:
        new: Any = prompt
        for _ in range(10):
            extra: dict[str, Any] = {"previous_interaction_id": prev} if prev else {}
            try:
                reply, prev = _one(c, new, stream, extra)
            except APIStatusError as e:
                out.append({"error": e.status_code})
                continue
            out.append(reply)
            if not reply["calls"]:
                break
            new = [{"type": "function_result", "call_id": i, "name": n, "result": f"ok {n}"}
                   for i, n, _ in reply["calls"]]
    return out


def _one(c: genai.Client, new: Any, stream: bool, extra: dict[str, Any]) -> tuple[dict[str, Any], str]:
    if not stream:
        r = c.interactions.create(model="gemini-3-flash", input=new, tools=TOOLS, **extra)
        return {"text": r.output_text or "", "status": r.status,
                "thinking": "".join(x.text for s in r.steps if s.type == "thought" for x in s.summary or []),
                "signed": all(s.signature for s in r.steps if s.type == "thought"),
                "calls": [(s.id, s.name, json.dumps(s.arguments)) for s in r.steps if s.type == "function_call"],
                "output": r.usage.total_output_tokens}, r.id
    text, thinking, signed, calls, status, rid, output = "", "", True, {}, "", "", 0
    for e in c.interactions.create(model="gemini-3-flash", input=new, tools=TOOLS, stream=True, **extra):
        if e.event_type == "step.start" and e.step.type == "function_call":
            calls[e.index] = [e.step.id, e.step.name, ""]
        elif e.event_type == "step.start" and e.step.type == "thought":
            signed = False
        elif e.event_type == "step.delta":
            d = e.delta
            if d.type == "text":
                text += d.text
            elif d.type == "thought_summary":
                thinking += d.content.text
            elif d.type == "thought_signature":
                signed = bool(d.signature)
            elif d.type == "arguments_delta":
                calls[e.index][2] += d.arguments
        elif e.event_type == "interaction.completed":
            status, rid, output = e.interaction.status, e.interaction.id, e.interaction.usage.total_output_tokens
    listed = [(i, n, json.dumps(json.loads(a or "{}"))) for i, n, a in calls.values()]
    return {"text": text, "status": status, "thinking": thinking, "signed": signed, "calls": listed,
            "output": output}, rid


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_interactions_record_and_replay_the_same_replies(tmp_path: Path, stream: bool) -> None:
    upstream = tmp_path / "upstream.yaml"
    upstream.write_text(UPSTREAM, encoding="utf-8")
    with serve(upstream) as up:
        direct = interactions_loop(up.base_url, KEY + "-direct", PROMPTS, stream)
        with RecordingServer(upstream=up.base_url, out_dir=tmp_path / "rec",
                             redactor=Redactor([r"TOKEN-[A-Z0-9-]+"])) as rec:
            proxied = interactions_loop(rec.base_url, KEY, PROMPTS, stream)
            files = rec.files
        assert up.session(KEY)["errors"] == []
    assert proxied == direct, "the proxy changed what the client saw"
    assert [r.get("error") for r in proxied] == [None, None, 429, None, None]
    first = proxied[0]
    assert first["thinking"] == "Let me look around." and first["signed"] and first["text"] == "Listing."
    assert first["calls"] == [("call_ls", "bash", '{"command": "ls"}')] and first["status"] == "requires_action"
    assert len(files) == 1
    text = files[0].read_text(encoding="utf-8")
    assert KEY not in text and "TOKEN-XYZZY" not in text
    sc = load_scenario(files[0])
    assert sc.warnings == [] and sc.initial_prompt == "list the files, my token is [REDACTED]"
    script = sc.compile()
    assert [len(t.steps) for t in script.turns] == [4, 1] and script.turns[1].prompt == "now summarize"
    with serve(files[0]) as replay:
        replayed = interactions_loop(replay.base_url, "replay-key-123", PROMPTS, stream)
        status = replay.session("replay-key-123")
    assert replayed == proxied
    assert status["errors"] == [] and (status["consumed"], status["remaining"]) == (5, 0), status
