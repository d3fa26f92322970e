"""Issue 32 req 7: nothing recorded holds a key, a token, a SigV4 signature or a cookie. Every dialect is
recorded through the real proxy by its official client, with credentials in its headers (API key or
SigV4, a cookie, a custom token header) and, for the agent loop, secrets in the request and reply
bodies; then every file the proxy wrote is scanned."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import openai
import pytest
from dialect_drivers import DRIVERS, SCENARIO, HttpClients

from autocue.mockllm import serve
from autocue.record import RecordingServer

KEY = "sk-live-SECRETabcdef0123456789"
COOKIE = "sid=cookie-SECRET-0123456789; theme=dark"
TOKEN = "internal-SECRET-token-0123456789"
HEADERS = {"cookie": COOKIE, "x-internal-token": TOKEN}
LEAKS = re.compile(
    r"SECRET|sk-live|AWS4-HMAC-SHA256|Signature=|Credential=|X-Amz-Signature|(?i:bearer)\s+[A-Za-z0-9._-]{8,}"
    r"|sk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}|AKIA[0-9A-Z]{16}")


class SecretClients(HttpClients):
    """The official clients with a cookie and a custom token header on every request."""

    def openai(self, **kwargs: Any) -> openai.OpenAI:
        return super().openai(default_headers=HEADERS, **kwargs)

    def anthropic(self, **kwargs: Any) -> Any:
        return super().anthropic(default_headers=HEADERS, **kwargs)

    def ollama(self, **kwargs: Any) -> Any:
        import ollama

        return ollama.Client(host=self.server.base_url, headers={"authorization": f"Bearer {self.key}", **HEADERS},
                             **kwargs)


def _scan(files: list[Path]) -> list[str]:
    found = []
    for f in files:
        for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1):
            m = LEAKS.search(line)
            if m:
                found.append(f"{f.name}:{n}: {m.group()!r}")
        if LEAKS.search(f.name):
            found.append(f"file name {f.name}")
    return found


@pytest.mark.parametrize("dialect", list(DRIVERS))
def test_no_recording_of_any_dialect_holds_a_credential(dialect: str, tmp_path: Path) -> None:
    with serve(SCENARIO) as up, RecordingServer(upstream=up.base_url, out_dir=tmp_path / "recs") as proxy:
        DRIVERS[dialect](SecretClients(proxy, KEY))  # type: ignore[arg-type]
        files = proxy.files
    assert files, "the proxy recorded the session"
    assert all('"request":' in f.read_text() for f in files), "request fingerprints are written (hashes only)"
    assert _scan(files) == []


UPSTREAM_QUOTING = """\
name: quoting
initialPrompt: "deploy with key sk-proj-BODYSECRET0123456789abcd"
timeline:
  - llmResponse:
      - assistant: [[0, "Using sk-proj-BODYSECRET0123456789abcd and cookie-SECRET-0123456789 as asked."]]
      - agentToolUse: {toolName: bash, toolCallId: call_1,
                       args: {command: "curl -H 'Authorization: Bearer tok-SECRET-99887766'"}}
  - llmResponse:
      - assistant: [[0, "Done."]]
"""


def test_secrets_in_request_and_reply_bodies_never_reach_the_file(tmp_path: Path) -> None:
    (tmp_path / "up.yaml").write_text(UPSTREAM_QUOTING)
    with serve(tmp_path / "up.yaml") as up, RecordingServer(upstream=up.base_url, out_dir=tmp_path / "recs") as proxy:
        client = openai.OpenAI(base_url=proxy.base_url + "/v1", api_key=KEY, max_retries=0, default_headers=HEADERS)
        tools: Any = [{"type": "function", "function": {"name": "bash", "parameters": {"type": "object"}}}]
        msgs: list[Any] = [{"role": "user", "content": "deploy with key sk-proj-BODYSECRET0123456789abcd"}]
        m = client.chat.completions.create(model="m", messages=msgs, tools=tools).choices[0].message
        msgs.append(m.model_dump(exclude_none=True))
        msgs.append({"role": "tool", "tool_call_id": "call_1", "content": f"used {TOKEN}"})
        client.chat.completions.create(model="m", messages=msgs, tools=tools)
        (path,) = proxy.files
    assert _scan([path]) == []
    assert path.read_text().count("[REDACTED]") >= 3
