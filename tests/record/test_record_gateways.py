"""``autocue record`` in front of the OpenRouter (``/api/v1``) and Azure OpenAI (``/openai/v1``,
deployment) paths: recorded as Chat Completions, replayed the same through the ``openai`` clients,
and Azure's ``api-key`` never reaches the file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import openai
import pytest
from record_clients import openai_chat

from autocue.mockllm.server import serve
from autocue.record import RecordingServer
from autocue.scenario import load_scenario

UPSTREAM = """\
name: gateway-loop
initialPrompt: "list the files"
timeline:
  - llmResponse:
      - assistant: [[0, "Listing."]]
      - agentToolUse: {toolName: bash, toolCallId: call_ls, args: {command: ls}}
  - llmResponse:
      - error: {statusCode: 429, message: slow down, retryAfterSeconds: 0}
  - llmResponse:
      - assistant: [[0, "Two files."]]
"""
KEY = "gateway-key-0123456789abcdef"


@pytest.mark.parametrize("prefix", ["/api", "/openai"], ids=["openrouter", "azure-v1"])
def test_gateway_paths_are_recorded_and_replay_the_same(prefix: str, tmp_path: Path) -> None:
    upstream = tmp_path / "upstream.yaml"
    upstream.write_text(UPSTREAM, encoding="utf-8")
    with serve(upstream) as up:
        direct = openai_chat(up.base_url + prefix, KEY + "-direct", ["list the files"])
        with RecordingServer(upstream=up.base_url, out_dir=tmp_path / "rec") as rec:
            proxied = openai_chat(rec.base_url + prefix, KEY, ["list the files"])
            files = rec.files
    assert proxied == direct and [r.get("error") for r in proxied] == [None, 429, None]
    assert len(files) == 1 and load_scenario(files[0]).warnings == []
    with serve(files[0]) as replay:
        assert openai_chat(replay.base_url + prefix, "replay-key-123", ["list the files"]) == proxied


def test_azure_deployment_recording_keeps_no_api_key(tmp_path: Path) -> None:
    upstream = tmp_path / "upstream.yaml"
    upstream.write_text(UPSTREAM.replace("retryAfterSeconds: 0", "retryAfterSeconds: 0.01"), encoding="utf-8")

    def run(base: str, key: str) -> list[str | None]:
        client = openai.AzureOpenAI(azure_endpoint=base, api_version="2024-10-21", api_key=key, max_retries=2)
        msgs: list[Any] = [{"role": "user", "content": "list the files"}]
        first = client.chat.completions.create(model="deploy-1", messages=msgs)
        second = client.chat.completions.create(model="deploy-1", messages=msgs)
        return [first.choices[0].message.content, second.choices[0].message.content]

    with serve(upstream) as up, RecordingServer(upstream=up.base_url, out_dir=tmp_path / "rec") as rec:
        proxied = run(rec.base_url, KEY)
        files = rec.files
    assert proxied == ["Listing.", "Two files."]  # the client's own retry got past the 429
    assert KEY not in files[0].read_text(encoding="utf-8")
    with serve(files[0]) as replay:
        assert run(replay.base_url, "replay-azure-key") == proxied
