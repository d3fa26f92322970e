"""The LlamaIndex FunctionAgent plays the shared weather scenario in process over OpenAI's Chat
Completions (streamed, as the agent asks): its real tools run, the file is written, the answer is
the scenario's, and the journal shows what the agent sent back after each scripted tool call."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

pytest.importorskip("llama_index.llms.openai",
                    reason="pip install -r requirements.txt (or scripts/frameworks.sh --only llama-index)")

from agent import run
from autocue.testing import MockLLM

ANSWER = "Saved the report to report.txt: Paris is sunny, 21 C."


@pytest.mark.autocue_llm("../weather_report.yaml")
def test_weather_report(autocue_llm: MockLLM, tmp_path: Path) -> None:
    answer = asyncio.run(run(autocue_llm, tmp_path))

    assert answer == ANSWER
    assert (tmp_path / "report.txt").read_text() == "Paris: sunny, 21 C\n"
    journal = autocue_llm.requests(autocue_llm.api_key)
    assert [(r["api"], r["stream"]) for r in journal] == [("chat", True)] * 3
    assert all(r["tools"] == ["get_weather", "write_file"] for r in journal)
    # what the agent sent back after each scripted call: the real tools' results
    assert [r["last"]["toolResult"] for r in journal[1:]] == ["sunny, 21 C", "wrote 19 bytes to report.txt"]
    autocue_llm.assert_all_consumed()
