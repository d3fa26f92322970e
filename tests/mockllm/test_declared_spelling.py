"""With no tool profile, a scripted call keeps the request's spelling of a tool name the scenario
loader made canonical: a scenario's ``write_file`` (loaded as ``writeFile``) reaches an agent that
declares ``write_file`` as ``write_file``, with no undeclared-tool warning (the framework examples'
shared scenario relies on it); an agent declaring ``writeFile``, or nothing, gets ``writeFile``."""

from __future__ import annotations

from typing import Any

import pytest

from autocue.scenario.files import load_scenario_text
from autocue.testing import MockLLM

SCENARIO = """
name: spelled
timeline:
  - llmResponse:
      - agentToolUse: {toolName: write_file, toolCallId: c1, args: {path: a.txt, content: hi}}
"""


def _tool(name: str) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "parameters": {
        "type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}}}}


@pytest.mark.parametrize(("declared", "called"), [
    (["write_file"], "write_file"), (["writeFile"], "writeFile"), ([], "writeFile"),
    (["write_file", "writeFile"], "writeFile"),
])
def test_a_scripted_call_takes_the_declared_spelling(declared: list[str], called: str) -> None:
    with MockLLM(load_scenario_text(SCENARIO)) as llm:
        client = llm.openai(max_retries=0)
        extra: dict[str, Any] = {"tools": [_tool(n) for n in declared]} if declared else {}
        reply = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "go"}], **extra)
        [call] = reply.choices[0].message.tool_calls or []
        assert call.function.name == called  # type: ignore[union-attr]
        assert call.function.arguments == '{"path":"a.txt","content":"hi"}'  # type: ignore[union-attr]
        warned = llm.session(llm.api_key)["warnings"]
        assert bool(warned) == (declared == []), warned
