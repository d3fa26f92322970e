"""pydantic-ai's own ``TestModel`` and autocue's ``callEveryTool`` on the same agent: both call every tool
once with schema-valid arguments, then answer (with structured output: a value of the output type;
``TestModel`` through its output tool, autocue through the ``response_format`` a ``NativeOutput`` agent sends).

Skipped unless pydantic-ai is installed (``pip install pydantic-ai-slim[openai]``, the bench extra)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import pydantic
import pytest

from autocue.script.model import Script, Turn
from autocue.testing import MockLLM, call_every_tool

pytest.importorskip("pydantic_ai", reason="pip install 'pydantic-ai-slim[openai]'")
from pydantic_ai import Agent, NativeOutput, RunContext
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.models.test import TestModel
from pydantic_ai.providers.openai import OpenAIProvider


class Report(pydantic.BaseModel):
    city: str
    temperature: int = pydantic.Field(ge=-50, le=60)
    sky: Literal["clear", "cloudy", "rain"]


def _agent(workdir: Path, calls: list[tuple[str, dict[str, Any]]], output: Any = str) -> Agent[None, Any]:
    agent: Agent[None, Any] = Agent(output_type=output, instructions="You report the weather.")

    @agent.tool_plain
    def get_weather(city: str, unit: Literal["celsius", "fahrenheit"] = "celsius") -> str:
        """The weather in a city."""
        calls.append(("get_weather", {"city": city, "unit": unit}))
        return f"sunny in {city}"

    @agent.tool
    def write_note(ctx: RunContext[None], name: str, lines: list[str]) -> str:
        """Write a note file."""
        calls.append(("write_note", {"name": name, "lines": lines}))
        (workdir / "note.txt").write_text("\n".join(lines))
        return "written"

    return agent


def test_test_model_and_call_every_tool_both_call_every_tool(tmp_path: Path) -> None:
    theirs: list[tuple[str, dict[str, Any]]] = []
    _agent(tmp_path, theirs).run_sync("Weather?", model=TestModel())

    ours: list[tuple[str, dict[str, Any]]] = []
    with MockLLM(Script([Turn(None, call_every_tool(seed=2))], name="every")) as llm:
        model = OpenAIChatModel("gpt-x", provider=OpenAIProvider(openai_client=llm.async_openai(max_retries=0)))
        result = _agent(tmp_path, ours).run_sync("Weather?", model=model)
        llm.assert_all_consumed()
    assert sorted(n for n, _ in theirs) == sorted(n for n, _ in ours) == ["get_weather", "write_note"]
    assert result.output == "Called every tool: get_weather, write_note."
    assert (tmp_path / "note.txt").exists()

    again: list[tuple[str, dict[str, Any]]] = []
    with MockLLM(Script([Turn(None, call_every_tool(seed=2))], name="every")) as llm:
        model = OpenAIChatModel("gpt-x", provider=OpenAIProvider(openai_client=llm.async_openai(max_retries=0)))
        _agent(tmp_path, again).run_sync("Weather?", model=model)
    assert sorted(again, key=str) == sorted(ours, key=str)  # the same seed, the same arguments (run concurrently)


def test_a_native_output_agent_gets_a_value_of_its_output_type(tmp_path: Path) -> None:
    theirs: list[tuple[str, dict[str, Any]]] = []
    expected = _agent(tmp_path, theirs, Report).run_sync("Weather?", model=TestModel())  # its output tool
    assert isinstance(expected.output, Report)

    ours: list[tuple[str, dict[str, Any]]] = []
    with MockLLM(Script([Turn(None, call_every_tool(seed=4))], name="every")) as llm:
        model = OpenAIChatModel("gpt-x", provider=OpenAIProvider(openai_client=llm.async_openai(max_retries=0)))
        result = _agent(tmp_path, ours, NativeOutput(Report)).run_sync("Weather?", model=model)
        llm.assert_all_consumed()
    assert isinstance(result.output, Report)
    assert sorted(n for n, _ in theirs) == sorted(n for n, _ in ours) == ["get_weather", "write_note"]


def test_a_tool_output_agent_gets_its_output_tool_called_last(tmp_path: Path) -> None:
    theirs: list[tuple[str, dict[str, Any]]] = []
    expected = _agent(tmp_path, theirs, Report).run_sync("Weather?", model=TestModel())
    assert isinstance(expected.output, Report)

    ours: list[tuple[str, dict[str, Any]]] = []
    steps = call_every_tool(seed=4, output_tool="final_result")  # pydantic-ai's output tool
    with MockLLM(Script([Turn(None, steps)], name="every")) as llm:
        model = OpenAIChatModel("gpt-x", provider=OpenAIProvider(openai_client=llm.async_openai(max_retries=0)))
        result = _agent(tmp_path, ours, Report).run_sync("Weather?", model=model)
        llm.assert_all_consumed()
        first_tools = [t["function"]["name"] for t in llm.requests("autocue-test")[0]["body"]["tools"]]
    assert isinstance(result.output, Report)
    assert "final_result" in first_tools
    assert sorted(n for n, _ in theirs) == sorted(n for n, _ in ours) == ["get_weather", "write_note"]
