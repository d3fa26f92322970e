"""``create_test_session(tools=[...])``: the test's own tools, as pydantic-ai's ``Agent(tools=...)`` takes them
(plain typed functions or ``AgentTool``s), next to the built-ins unless ``builtin_tools=False``."""

from __future__ import annotations

import pytest

from autocue.agent.tool import AgentTool, tool
from autocue.testing import UnknownToolError, call, create_test_session, say, when
from autocue.testing.errors import HarnessError
from autocue.tools import BUILTIN_TOOL_NAMES

CALLS: list[tuple[str, str]] = []


def get_weather(city: str, unit: str = "C") -> str:
    """The current weather in a city."""
    CALLS.append((city, unit))
    return f"sunny, 21 {unit} in {city}"


def told(t: object, name: str) -> AgentTool:
    return next(x for x in t.session.agent.state.tools if x.name == name)  # type: ignore[attr-defined]


def test_a_plain_function_is_a_tool_with_its_schema_next_to_the_builtins() -> None:
    CALLS.clear()
    with create_test_session(tools=[get_weather]) as t:
        t.run_sync(when("Weather in Paris?", [
            call("get_weather", {"city": "Paris"}),
            call("get_weather", {}),                       # no city: the schema rejects it, the model sees why
            say("Sunny."),
        ]))
        ok, bad = t.events.tool_results_for("get_weather")
        assert (ok.text, ok.is_error, ok.mocked) == ("sunny, 21 C in Paris", False, False)
        assert bad.is_error and "city: Field required" in bad.text
        assert CALLS == [("Paris", "C")]
        spec = told(t, "get_weather")
        assert spec.description == "The current weather in a city."
        assert spec.parameters["required"] == ["city"] and set(spec.parameters["properties"]) == {"city", "unit"}
        assert set(t.session.get_active_tool_names()) == {*BUILTIN_TOOL_NAMES, "task", "get_weather"}


def test_an_agent_tool_and_a_mock_of_an_own_tool() -> None:
    @tool
    async def lookup(q: str) -> str:
        """Look a word up."""
        return f"found {q}"

    CALLS.clear()
    with create_test_session(tools=[lookup, get_weather], mock_tools={"get_weather": "rain"}) as t:
        t.run_sync(when("Go", [call("lookup", {"q": "a"}), call("get_weather", {"city": "Oslo"}), say("ok")]))
        found, weather = t.events.tool_results
        assert found.text == "found a" and (weather.text, weather.mocked) == ("rain", True)
        assert CALLS == [] and told(t, "get_weather").parameters["required"] == ["city"]  # the mock keeps the schema


def test_without_the_builtins_only_the_given_tools_and_the_advice_names_tools() -> None:
    with create_test_session(tools=[get_weather], builtin_tools=False) as t:
        with pytest.raises(UnknownToolError) as e:
            t.run_sync(when("List files", [call("bash", {"command": "ls"}), say("done")]))
        assert "Known tools: get_weather, task\n" in str(e.value)
        assert 'Give it in tools=[bash] (a typed function), mock it (mock_tools={"bash": "..."})' in str(e.value)


@pytest.mark.parametrize(("tools", "message"), [
    (get_weather, "tools= takes a list of functions and AgentTools, got <function get_weather"),
    ([42], "tools[0] is 42: give a function (typed parameters, a docstring) or an AgentTool"),
    ([get_weather, get_weather], "tools[1]: two tools are named 'get_weather'"),
    ([lambda *a: a], "tools[0] (<lambda>): tool function <lambda>: *args/**kwargs cannot be tool parameters"),
])
def test_bad_tools_are_one_clear_error(tools: object, message: str) -> None:
    with pytest.raises(HarnessError) as e:
        create_test_session(tools=tools)  # type: ignore[arg-type]
    assert message in str(e.value)
