"""``expectRequest`` in scenario files: the loader's model, near-miss names, the schema."""

from __future__ import annotations

import jsonschema
import pytest

from autocue.scenario import ScenarioError, load_scenario_text, scenario_json_schema
from autocue.scenario.expect import RequestExpectation

GOOD = """\
name: e
timeline:
  - expectRequest:
      model: gpt-4o
      tools: read
      systemContains: [careful, tests]
      lastMessage: {role: tool, contains: ok, toolResultContains: [exit 0]}
      pointer: {/temperature: 0, /tools/0/type: function}
  - llmResponse:
      - assistant: [[0, done]]
"""


def test_expect_request_compiles_to_a_check_before_the_reply() -> None:
    sc = load_scenario_text(GOOD, "e.yaml")
    script = sc.compile()
    (check,) = script.turns[0].checks
    assert check.before_step == 0 and check.source == "e.yaml:3"
    spec = check.spec
    assert isinstance(spec, RequestExpectation)
    assert (spec.model, spec.tools, spec.system_contains) == ("gpt-4o", ["read"], ["careful", "tests"])
    assert (spec.last_role, spec.last_contains, spec.tool_result_contains) == ("tool", ["ok"], ["exit 0"])
    assert spec.pointers == [("/temperature", 0), ("/tools/0/type", "function")]
    assert not sc.warnings


@pytest.mark.parametrize(("text", "where", "message"), [
    ("  - expectRequests:\n      model: m\n", "e.yaml:3:5", "did you mean `expectRequest`?"),
    ("  - expectRequest:\n      modle: m\n", "e.yaml:4:7", "did you mean `model`?"),
    ("  - expectRequest:\n      lastMessage: {rol: user}\n", "e.yaml:4:21", "did you mean `role`?"),
    ("  - expectRequest:\n      lastMessage: {role: tools}\n", "e.yaml:4:27", "did you mean `tool`?"),
    ("  - expectRequest:\n      headers: {}\n", "e.yaml:4:7", "unknown key 'headers' in expectRequest (known:"),
    ("  - expectRequest:\n      pointer: {temperature: 0}\n", "e.yaml:4:17", "starts with '/'"),
    ("  - expectRequest:\n      tools: {a: 1}\n", "e.yaml:4:14", "a tool name or a list"),
])
def test_bad_expectations_fail_with_their_position(text: str, where: str, message: str) -> None:
    with pytest.raises(ScenarioError) as e:
        load_scenario_text("name: e\ntimeline:\n" + text + "  - assistant: [[0, x]]\n", "e.yaml")
    assert where in str(e.value) and message in str(e.value)


def test_an_empty_expectation_warns() -> None:
    sc = load_scenario_text("name: e\ntimeline:\n  - expectRequest: {}\n  - assistant: [[0, x]]\n", "e.yaml")
    assert any("checks nothing" in str(w) for w in sc.warnings)


def test_schema_accepts_and_rejects_expect_request() -> None:
    v = jsonschema.Draft7Validator(scenario_json_schema())
    ok = {"name": "e", "timeline": [{"expectRequest": {"model": "m", "lastMessage": {"role": "tool"}}},
                                    {"type": "expectRequest", "tools": ["a"]}]}
    assert not list(v.iter_errors(ok))
    for bad in ({"lastMessage": {"role": "robot"}}, {"pointer": {"x": 1}}, {"modle": "m"}):
        assert list(v.iter_errors({"name": "e", "timeline": [{"expectRequest": bad}]})), bad
