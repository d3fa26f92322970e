"""The LangGraph agent plays the shared weather scenario with ``ChatOpenAI`` in process (MockLLM)
and with ``ChatAnthropic`` against the loopback server (``serve``: langchain-anthropic takes no
HTTP client): its real tools run, the file is written, the answer is the scenario's, and the
journal shows what the agent sent back after each scripted tool call."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph", reason="pip install -r requirements.txt (or scripts/frameworks.sh --only langgraph)")
pytest.importorskip("langchain.agents", reason="pip install -r requirements.txt")
pytest.importorskip("langchain_anthropic", reason="pip install -r requirements.txt")

from agent import run
from autocue.mockllm import serve
from autocue.testing import MockLLM

SCENARIO = Path(__file__).resolve().parent.parent / "weather_report.yaml"
ANSWER = "Saved the report to report.txt: Paris is sunny, 21 C."


def check(journal: list[dict[str, Any]], api: str, workdir: Path) -> None:
    assert (workdir / "report.txt").read_text() == "Paris: sunny, 21 C\n"
    assert [r["api"] for r in journal] == [api] * 3
    assert all(r["tools"] == ["get_weather", "write_file"] for r in journal)
    # what the agent sent back after each scripted call: the real tools' results
    assert [r["last"]["toolResult"] for r in journal[1:]] == ["sunny, 21 C", "wrote 19 bytes to report.txt"]


@pytest.mark.autocue_llm("../weather_report.yaml")
def test_chat_openai_in_process(autocue_llm: MockLLM, tmp_path: Path) -> None:
    assert run(autocue_llm, tmp_path) == ANSWER
    check(autocue_llm.requests(autocue_llm.api_key), "chat", tmp_path)
    autocue_llm.assert_all_consumed()


def test_chat_anthropic_over_loopback(tmp_path: Path) -> None:
    with serve(SCENARIO) as server:
        assert run(server, tmp_path, api_key="langgraph-anthropic") == ANSWER
        check(server.requests("langgraph-anthropic"), "anthropic", tmp_path)
        server.assert_all_consumed()
