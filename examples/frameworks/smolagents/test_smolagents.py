"""The smolagents example plays its scenario through the in-process transport."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("smolagents",
                    reason="pip install -r requirements.txt (or scripts/frameworks.sh --only smolagents)")

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("smolagents_example_agent", HERE / "agent.py")
assert _spec is not None and _spec.loader is not None
agent = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(agent)


def called(text: str) -> list[tuple[str, dict[str, object]]]:
    """The tool calls in one of smolagents' "Calling tools:" assistant messages (it replays them as text)."""
    head, _, calls = text.partition("\n")
    assert head == "Calling tools:", text
    return [(c["function"]["name"], c["function"]["arguments"]) for c in ast.literal_eval(calls)]


@pytest.mark.autocue_llm("weather_report.yaml")
def test_the_agent_reports_the_weather(autocue_llm, tmp_path: Path) -> None:
    answer = agent.run(autocue_llm, tmp_path)

    assert answer == "Saved the report to report.txt: Paris is sunny, 21 C."
    assert (tmp_path / "report.txt").read_text() == "Paris: sunny, 21 C\n"
    sent = autocue_llm.requests(autocue_llm.api_key)
    assert [r["tools"] for r in sent] == [["get_weather", "write_file", "final_answer"]] * 3
    last = sent[-1]["body"]["messages"]
    assert [called(m["content"][0]["text"]) for m in last if m["role"] == "assistant"] == [
        [("get_weather", {"city": "Paris"})],
        [("write_file", {"path": "report.txt", "content": "Paris: sunny, 21 C"})],
    ]
    assert [r["last"]["text"] for r in sent[1:]] == ["Observation:\nsunny, 21 C",
                                                     "Observation:\nwrote 19 bytes to report.txt"]
    autocue_llm.assert_all_consumed()
