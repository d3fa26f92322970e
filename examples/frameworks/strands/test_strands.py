"""The Strands example plays the shared scenario through the in-process botocore hook (Bedrock Converse)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("strands",
                    reason="pip install -r requirements.txt (or scripts/frameworks.sh --only strands)")

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("strands_example_agent", HERE / "agent.py")
assert _spec is not None and _spec.loader is not None
agent = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(agent)


def tool_calls(messages: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    """The tool uses a Converse history sent back, each followed by its tool's result."""
    out: list[tuple[str, Any]] = []
    for block in (b for m in messages for b in m["content"]):
        if "toolUse" in block:
            out.append((block["toolUse"]["name"], block["toolUse"]["input"]))
        elif "toolResult" in block:
            out.append(("result", block["toolResult"]["content"]))
    return out


@pytest.mark.autocue_llm("../weather_report.yaml")
def test_the_agent_reports_the_weather(autocue_llm, tmp_path: Path) -> None:
    answer = agent.run(autocue_llm, tmp_path)

    assert answer == "Saved the report to report.txt: Paris is sunny, 21 C."
    assert (tmp_path / "report.txt").read_text() == "Paris: sunny, 21 C\n"
    sent = autocue_llm.requests(autocue_llm.api_key)
    assert [(r["path"], r["tools"]) for r in sent] == [
        ("/model/anthropic.claude-x/converse-stream", ["get_weather", "write_file"])] * 3
    assert tool_calls(sent[-1]["body"]["messages"]) == [
        ("get_weather", {"city": "Paris"}), ("result", [{"text": "sunny, 21 C"}]),
        ("write_file", {"path": "report.txt", "content": "Paris: sunny, 21 C"}),
        ("result", [{"text": "wrote 19 bytes to report.txt"}]),
    ]
    autocue_llm.assert_all_consumed()
