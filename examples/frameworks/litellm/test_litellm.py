"""The litellm example plays its scenario through the in-process transport."""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no fetch of the price list at import
pytest.importorskip("litellm",
                    reason="pip install -r requirements.txt (or scripts/frameworks.sh --only litellm)")

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("litellm_example_agent", HERE / "agent.py")
assert _spec is not None and _spec.loader is not None
agent = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(agent)


def tool_calls(messages: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    """The tool calls an OpenAI Chat history sent back, each followed by its tool's result."""
    out: list[tuple[str, Any]] = []
    for m in messages:
        if m["role"] == "assistant":
            out += [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in m.get("tool_calls") or []]
        elif m["role"] == "tool":
            out.append(("result", m["content"]))
    return out


@pytest.mark.autocue_llm("../weather_report.yaml")
def test_the_agent_reports_the_weather(autocue_llm, tmp_path: Path) -> None:
    answer = agent.run(autocue_llm, tmp_path)

    assert answer == "Saved the report to report.txt: Paris is sunny, 21 C."
    assert (tmp_path / "report.txt").read_text() == "Paris: sunny, 21 C\n"
    sent = autocue_llm.requests(autocue_llm.api_key)
    assert [r["tools"] for r in sent] == [["get_weather", "write_file"]] * 3
    assert tool_calls(sent[-1]["body"]["messages"]) == [
        ("get_weather", {"city": "Paris"}), ("result", "sunny, 21 C"),
        ("write_file", {"path": "report.txt", "content": "Paris: sunny, 21 C"}),
        ("result", "wrote 19 bytes to report.txt"),
    ]
    autocue_llm.assert_all_consumed()
