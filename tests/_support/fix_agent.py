"""A small deterministic agent loop over the official openai SDK, and the upstream scenario it is
recorded from (tests/record/test_match.py, test_fork.py)."""

from __future__ import annotations

import tempfile
import uuid
from datetime import UTC, datetime
from typing import Any

import openai

UPSTREAM = """\
name: upstream
initialPrompt: fix the bug
timeline:
  - llmResponse:
      - assistant: [[0, "Looking."]]
      - agentToolUse: {toolName: read, toolCallId: call_1, args: {path: a.py}}
  - llmResponse:
      - agentToolUse: {toolName: bash, toolCallId: call_2, args: {command: pytest}}
  - llmResponse:
      - assistant: [[0, "Fixed."]]
"""
KEY = "sk-match-test-0123456789abcdef"


def agent(base_url: str, *, tools: tuple[str, ...] = ("read", "bash"), result: str = "ok",
          result_role: str = "tool") -> list[str]:
    """A deterministic agent loop: its prompt carries a fresh uuid and the time, its tool results the
    temporary directory (all differ from run to run, as a real agent's do)."""
    client = openai.OpenAI(base_url=base_url + "/v1", api_key=KEY, max_retries=0)
    defs: Any = [{"type": "function", "function": {"name": n, "parameters": {"type": "object"}}} for n in tools]
    stamp = f"session {uuid.uuid4()} at {datetime.now(UTC).isoformat()}"
    msgs: list[Any] = [{"role": "system", "content": f"You are a coder. {stamp}"},
                       {"role": "user", "content": "fix the bug"}]
    said: list[str] = []
    for _ in range(5):
        m = client.chat.completions.create(model="gpt-test", messages=msgs, tools=defs).choices[0].message
        said.append(m.content or "")
        msgs.append(m.model_dump(exclude_none=True))
        if not m.tool_calls:
            break
        for c in m.tool_calls:
            said.append(f"{c.function.name} {c.function.arguments}")
            text = f"{result} in {tempfile.mkdtemp()}"
            if result_role == "tool":
                msgs.append({"role": "tool", "tool_call_id": c.id, "content": text})
            else:
                msgs.append({"role": "user", "content": text})
    return said
