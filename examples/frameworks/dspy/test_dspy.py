"""The DSPy example plays its scenario through the in-process transport."""

from __future__ import annotations

import importlib.util
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no fetch of litellm's price list at import
pytest.importorskip("dspy",
                    reason="pip install -r requirements.txt (or scripts/frameworks.sh --only dspy)")

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("dspy_example_agent", HERE / "agent.py")
assert _spec is not None and _spec.loader is not None
agent = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(agent)

FIELD = re.compile(r"\[\[ ## (\w+?)_\d+ ## \]\]\n(.*?)\n\n", re.S)


def trajectory(prompt: str) -> list[tuple[str, Any]]:
    """The tool calls and observations ReAct sent back in its trajectory field (text, not tool calls)."""
    text = prompt.split("[[ ## trajectory ## ]]\n", 1)[1]
    return [(k, json.loads(v) if k == "tool_args" else v) for k, v in FIELD.findall(text) if k != "thought"]


@pytest.mark.autocue_llm("weather_report.yaml")
def test_the_agent_reports_the_weather(autocue_llm, tmp_path: Path) -> None:
    answer = agent.run(autocue_llm, tmp_path)

    assert answer == "Saved the report to report.txt: Paris is sunny, 21 C."
    assert (tmp_path / "report.txt").read_text() == "Paris: sunny, 21 C\n"
    sent = autocue_llm.requests(autocue_llm.api_key)
    assert len(sent) == 4 and all(r["tools"] == [] for r in sent)
    assert trajectory(sent[-1]["last"]["text"]) == [
        ("tool_name", "get_weather"), ("tool_args", {"city": "Paris"}), ("observation", "sunny, 21 C"),
        ("tool_name", "write_file"), ("tool_args", {"path": "report.txt", "content": "Paris: sunny, 21 C"}),
        ("observation", "wrote 19 bytes to report.txt"),
        ("tool_name", "finish"), ("tool_args", {}), ("observation", "Completed."),
    ]
    autocue_llm.assert_all_consumed()
