"""The bare official clients play the shared scenario through the in-process transport, one loop per client."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

for _module in ("openai", "anthropic", "google.genai", "ollama", "boto3"):
    pytest.importorskip(_module,
                        reason="pip install -r requirements.txt (or scripts/frameworks.sh --only bare)")

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("bare_example_agent", HERE / "agent.py")
assert _spec is not None and _spec.loader is not None
agent = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(agent)

RESULTS = ["sunny, 21 C", "wrote 19 bytes to report.txt"]


def openai_calls(body: dict[str, Any]) -> list[Any]:
    """OpenAI Chat and Ollama histories (Ollama's arguments are an object, OpenAI's a JSON string)."""
    out: list[Any] = []
    for m in body["messages"]:
        for c in m.get("tool_calls") or [] if m["role"] == "assistant" else []:
            args = c["function"]["arguments"]
            out.append((c["function"]["name"], json.loads(args) if isinstance(args, str) else args))
        if m["role"] == "tool":
            out.append(m["content"])
    return out


def anthropic_calls(body: dict[str, Any]) -> list[Any]:
    return [(b["name"], b["input"]) if b["type"] == "tool_use" else b["content"]
            for m in body["messages"] if isinstance(m["content"], list)
            for b in m["content"] if b["type"] in ("tool_use", "tool_result")]


def gemini_calls(body: dict[str, Any]) -> list[Any]:
    return [(p["functionCall"]["name"], p["functionCall"]["args"]) if "functionCall" in p
            else p["functionResponse"]["response"]["result"]
            for c in body["contents"] for p in c["parts"] if "functionCall" in p or "functionResponse" in p]


def converse_calls(body: dict[str, Any]) -> list[Any]:
    return [(b["toolUse"]["name"], b["toolUse"]["input"]) if "toolUse" in b else b["toolResult"]["content"][0]["text"]
            for m in body["messages"] for b in m["content"] if "toolUse" in b or "toolResult" in b]


CASES = {  # client: (the path it calls, how its history carries the tool calls and results)
    "openai": ("/v1/chat/completions", openai_calls),
    "anthropic": ("/v1/messages", anthropic_calls),
    "google-genai": ("/v1/models/gemini-2.5-flash:generateContent", gemini_calls),
    "ollama": ("/api/chat", openai_calls),
    "boto3": ("/model/anthropic.claude-x/converse", converse_calls),
}


@pytest.mark.parametrize("client", list(CASES))
@pytest.mark.autocue_llm("../weather_report.yaml")
def test_the_agent_reports_the_weather(autocue_llm, tmp_path: Path, client: str) -> None:
    answer = agent.run(autocue_llm, tmp_path, client)

    assert answer == "Saved the report to report.txt: Paris is sunny, 21 C."
    assert (tmp_path / "report.txt").read_text() == "Paris: sunny, 21 C\n"
    path, calls = CASES[client]
    sent = autocue_llm.requests(autocue_llm.api_key)
    assert [(r["path"], r["tools"]) for r in sent] == [(path, ["get_weather", "write_file"])] * 3
    assert calls(sent[-1]["body"]) == [("get_weather", {"city": "Paris"}), RESULTS[0],
                                       ("write_file", {"path": "report.txt", "content": "Paris: sunny, 21 C"}),
                                       RESULTS[1]]
    autocue_llm.assert_all_consumed()
