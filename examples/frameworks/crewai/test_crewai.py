"""The CrewAI example plays the shared scenario through the in-process transport."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("crewai",
                    reason="pip install -r requirements.txt (or scripts/frameworks.sh --only crewai)")
# only where crewai is installed (its own venv): set at collection, this would turn off every OpenTelemetry SDK of
# the process, autocue's spans (tests/telemetry) among them
for _off in ("OTEL_SDK_DISABLED", "CREWAI_DISABLE_TELEMETRY"):  # no telemetry calls home from a test
    os.environ.setdefault(_off, "true")

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("crewai_example_agent", HERE / "agent.py")
assert _spec is not None and _spec.loader is not None
agent = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(agent)


def tool_calls(contents: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    """The function calls a Gemini history sent back, each followed by its function's response."""
    out: list[tuple[str, Any]] = []
    for part in (p for c in contents for p in c["parts"]):
        if "functionCall" in part:
            out.append((part["functionCall"]["name"], part["functionCall"]["args"]))
        elif "functionResponse" in part:
            out.append(("result", part["functionResponse"]["response"]))
    return out


@pytest.mark.autocue_llm("../weather_report.yaml")
def test_the_agent_reports_the_weather(autocue_llm, tmp_path: Path) -> None:
    answer = agent.run(autocue_llm, tmp_path)

    assert answer == "Saved the report to report.txt: Paris is sunny, 21 C."
    assert (tmp_path / "report.txt").read_text() == "Paris: sunny, 21 C\n"
    sent = autocue_llm.requests(autocue_llm.api_key)
    assert [(r["path"], r["tools"]) for r in sent] == [
        ("/v1beta/models/gemini-2.5-flash:generateContent", ["get_weather", "write_file"])] * 3
    assert tool_calls(sent[-1]["body"]["contents"]) == [
        ("get_weather", {"city": "Paris"}), ("result", {"result": "sunny, 21 C"}),
        ("write_file", {"path": "report.txt", "content": "Paris: sunny, 21 C"}),
        ("result", {"result": "wrote 19 bytes to report.txt"}),
    ]
    autocue_llm.assert_all_consumed()
