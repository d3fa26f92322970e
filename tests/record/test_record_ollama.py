"""``autocue record`` in front of Ollama's native API: chats streamed as NDJSON and whole are
recorded, and the recording replays the same replies through the official ``ollama`` client."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import ollama
import pytest
from record_clients import LOOP_PROMPTS, upstream_loop

from autocue.mockllm.server import serve
from autocue.record import RecordingServer, Redactor
from autocue.scenario import load_scenario

UPSTREAM = upstream_loop("upstream-ollama", "ollama")
PROMPTS = LOOP_PROMPTS
KEY = "ollama-key-0123456789abcdef"
TOOLS = [{"type": "function", "function": {"name": n, "parameters": {"type": "object"}}} for n in ("bash", "read")]


def _chat(client: ollama.Client, messages: list[Any], stream: bool) -> ollama.Message:
    if not stream:
        return client.chat(model="qwen3", messages=messages, tools=TOOLS, think=True, stream=False).message
    parts = list(client.chat(model="qwen3", messages=messages, tools=TOOLS, think=True, stream=True))
    assert parts[-1].done and parts[-1].done_reason == "stop"
    return ollama.Message(role="assistant", content="".join(p.message.content or "" for p in parts),
                          thinking="".join(p.message.thinking or "" for p in parts) or None,
                          tool_calls=[tc for p in parts for tc in p.message.tool_calls or []] or None)


def run_loop(base_url: str, key: str, stream: bool) -> list[dict[str, Any]]:
    """The agent loop of an Ollama client: each reply seen (a 429 is retried by the loop itself)."""
    client = ollama.Client(host=base_url, headers={"authorization": f"Bearer {key}"})
    messages: list[Any] = []
    seen: list[dict[str, Any]] = []
    for prompt in PROMPTS:
        messages.append({"role": "user", "content": prompt})
        while True:
            try:
                m = _chat(client, messages, stream)
            except ollama.ResponseError as e:
                seen.append({"error": e.status_code, "message": e.error})
                continue
            calls = [(c.function.name, dict(c.function.arguments)) for c in m.tool_calls or []]
            seen.append({"thinking": m.thinking, "content": m.content, "calls": calls})
            messages.append(m)
            if not calls:
                break
            messages += [{"role": "tool", "tool_name": name, "content": f"output of {name}"} for name, _ in calls]
    return seen


@pytest.mark.parametrize("stream", [True, False], ids=["ndjson", "whole"])
def test_ollama_chats_are_recorded_and_replay_the_same(stream: bool, tmp_path: Path) -> None:
    upstream = tmp_path / "upstream.yaml"
    upstream.write_text(UPSTREAM, encoding="utf-8")
    with serve(upstream) as up:
        direct = run_loop(up.base_url, KEY + "-direct", stream)
        with RecordingServer(upstream=up.base_url, out_dir=tmp_path / "rec",
                             redactor=Redactor([r"TOKEN-[A-Z0-9-]+"])) as rec:
            proxied = run_loop(rec.base_url, KEY, stream)
            files = rec.files
    assert proxied == direct, "the proxy changed what the client saw"
    assert [r.get("error") for r in proxied] == [None, None, 429, None, None]
    assert proxied[0] == {"thinking": "Let me look around.", "content": "Listing.",
                          "calls": [("bash", {"command": "ls"})]}
    assert len(files) == 1
    text = files[0].read_text(encoding="utf-8")
    assert KEY not in text and "TOKEN-XYZZY" not in text
    sc = load_scenario(files[0])
    assert sc.warnings == [] and [len(t.steps) for t in sc.compile().turns] == [4, 1]
    with serve(files[0]) as replay:
        replayed = run_loop(replay.base_url, "replay-key-123", stream)
        status = replay.session("replay-key-123")
    assert replayed == proxied
    assert status["errors"] == [] and (status["consumed"], status["remaining"]) == (5, 0), status
