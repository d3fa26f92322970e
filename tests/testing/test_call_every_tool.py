"""``callEveryTool`` and ``structuredOutput``: what pydantic-ai's ``TestModel`` users expect, through the
official clients over ``MockLLM`` (the mock server's app in process).

The arguments are drawn from each declared tool's JSON Schema with the step's seed (``script/schema_values.py``)
and every one validates (``jsonschema``); the same seed draws the same arguments; a schema no value
satisfies is the dialect's error naming the scenario position, at once.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

import anthropic
import jsonschema
import openai
import pydantic
import pytest
from google.genai import types as gtypes

from autocue.scenario import CallEveryTool, ScenarioError, StructuredOutput, load_scenario_text
from autocue.script.schema_values import SchemaValueError, json_schema, schema_value
from autocue.testing import MockLLM
from autocue.tools.registry import BUILTIN_TOOL_NAMES, create_builtin_tools

FIXTURES = Path(__file__).parents[1] / "fixtures" / "tool_schemas" / "agent_cli_tools.json"


class Address(pydantic.BaseModel):
    street: str
    zip_code: str = pydantic.Field(pattern=r"^\d{5}(-\d{4})?$")
    country: Literal["FR", "NO", "DE"]


class Person(pydantic.BaseModel):
    name: str = pydantic.Field(min_length=2, max_length=20)
    age: int = pydantic.Field(ge=0, le=130)
    email: str | None = None
    tags: list[str] = pydantic.Field(min_length=1, max_length=4)
    home: Address
    friends: list[Person] = []
    score: float = pydantic.Field(gt=0, lt=1)


# the tools an OpenAI Chat agent declares: nested objects, enums, arrays, required and optional, $defs
CHAT_TOOLS: list[dict[str, Any]] = [
    {"type": "function", "function": {"name": "get_weather", "description": "Weather in a city", "parameters": {
        "type": "object", "properties": {"city": {"type": "string", "minLength": 2},
                                         "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                                         "days": {"type": "integer", "minimum": 1, "maximum": 7}},
        "required": ["city", "unit"]}}},
    {"type": "function", "function": {"name": "book_trip", "description": "Book a trip", "parameters": {
        "type": "object", "$defs": {"Leg": {"type": "object", "properties": {
            "from": {"type": "string"}, "to": {"type": "string"},
            "date": {"type": "string", "format": "date"}}, "required": ["from", "to", "date"]}},
        "properties": {"legs": {"type": "array", "items": {"$ref": "#/$defs/Leg"}, "minItems": 1, "maxItems": 3},
                       "traveller": {"type": "object", "properties": {"name": {"type": "string"},
                                                                      "email": {"type": "string", "format": "email"}},
                                     "required": ["name"]},
                       "class": {"anyOf": [{"type": "string", "enum": ["economy", "business"]}, {"type": "null"}]}},
        "required": ["legs", "traveller"]}}},
    {"type": "function", "function": {"name": "write_report", "description": "Write a file", "parameters": {
        "type": "object", "properties": {"path": {"type": "string", "pattern": r"^reports/[a-z]{3,8}\.md$"},
                                         "lines": {"type": "array", "items": {"type": "string"}}},
        "required": ["path"], "additionalProperties": False}}},
]
PROMPT = "Plan my trip"


def _scenario(text: str, name: str = "every.yaml") -> Any:
    return load_scenario_text(text, name)


def _every(seed: int = 1, then: str | None = None, parallel: bool = True, style: str = "openai") -> Any:
    opts = [f"seed: {seed}", *([f"then: {json.dumps(then)}"] if then else []),
            *([] if parallel else ["parallel: false"])]
    return _scenario(f"""\
name: every
server: {{llmApiStyle: {style}}}
timeline:
  - userInputs: [[0, {PROMPT!r}]]
  - callEveryTool: {{{', '.join(opts)}}}
""")


def _validate_calls(calls: list[tuple[str, dict[str, Any]]], schemas: dict[str, Any]) -> None:
    for name, args in calls:
        jsonschema.validate(args, json_schema(schemas[name]))


# ---------------------------------------------------------------------------- the generator


def _real_schemas() -> list[tuple[str, Any]]:
    data = json.loads(FIXTURES.read_text())
    out = [(f"{cli}:{t['name']}", t["parameters"]) for cli in ("claude-code", "codex") for t in data[cli]]
    out += [(f"autocue:{n}", t.parameters) for n, t in create_builtin_tools(".", BUILTIN_TOOL_NAMES).items()]
    out += [(f"chat:{t['function']['name']}", t["function"]["parameters"]) for t in CHAT_TOOLS]
    out.append(("pydantic:Person", Person.model_json_schema()))
    return out


@pytest.mark.parametrize(("name", "schema"), _real_schemas(), ids=[n for n, _ in _real_schemas()])
def test_drawn_values_validate_and_repeat_for_real_tool_schemas(name: str, schema: Any) -> None:
    checker = jsonschema.FormatChecker()
    for seed in range(12):
        v = schema_value(schema, seed)
        jsonschema.validators.validator_for(schema)(schema, format_checker=checker).validate(v)
        assert schema_value(schema, seed) == v
    assert len({json.dumps(schema_value(schema, s), sort_keys=True) for s in range(12)}) > 1 or not schema.get(
        "properties"), "seeds should draw different values"


def test_a_pydantic_model_schema_draws_models() -> None:
    for seed in range(20):
        Person.model_validate(schema_value(Person.model_json_schema(), seed))


@pytest.mark.parametrize(("schema", "why"), [
    ({"type": "integer", "minimum": 5, "maximum": 1}, "minimum 5 is above the maximum 1"),
    ({"allOf": [{"type": "string"}, {"type": "integer"}]}, "no value in common"),
    ({"type": "string", "minLength": 4, "maxLength": 2}, "minLength 4 is more than maxLength 2"),
    ({"type": "object", "properties": {"x": False}, "required": ["x"]}, "false"),
    (False, "`false`"),
])
def test_a_schema_no_value_satisfies_is_a_clear_error(schema: Any, why: str) -> None:
    with pytest.raises(SchemaValueError, match=why):
        schema_value(schema, 0)


# ---------------------------------------------------------------------------- the scenario event


def test_the_event_loads_in_its_forms_and_errors_name_the_position() -> None:
    sc = _scenario("""\
name: forms
timeline:
  - callEveryTool
  - callEveryTool: true
  - callEveryTool: {seed: abc, then: done, parallel: false, tools: [a, b]}
  - {type: callEveryTool, seed: 4, outputTool: final_result}
  - structuredOutput: {seed: 3}
  - structuredOutput: {value: {a: 1}}
""")
    events = [(type(e).__name__, e.pos.line) for e in sc.timeline]
    assert events == [("CallEveryTool", 3), ("CallEveryTool", 4), ("CallEveryTool", 5), ("CallEveryTool", 6),
                      ("StructuredOutput", 7), ("StructuredOutput", 8)]
    third = sc.timeline[2]
    assert isinstance(third, CallEveryTool)
    assert (third.seed, third.then, third.parallel, third.tools) == ("abc", "done", False, ["a", "b"])
    tagged = sc.timeline[3]
    assert isinstance(tagged, CallEveryTool) and tagged.output_tool == "final_result"
    last = sc.timeline[5]
    assert isinstance(last, StructuredOutput) and last.has_value and last.value == {"a": 1}
    assert [len(t.steps) for t in sc.compile().turns] == [2 + 2 + 2 + 2 + 1 + 1]
    with pytest.raises(ScenarioError, match=r"^bad\.yaml:3:\d+: .*false asks for nothing"):
        load_scenario_text("name: t\ntimeline:\n  - callEveryTool: false\n", "bad.yaml")
    with pytest.raises(ScenarioError, match=r"^bad\.yaml:3:\d+: .*a seed"):
        load_scenario_text("name: t\ntimeline:\n  - callEveryTool: {seed: [1]}\n", "bad.yaml")
    with pytest.raises(ScenarioError, match=r"^bad\.yaml:3:\d+: .*not both"):
        load_scenario_text("name: t\ntimeline:\n  - structuredOutput: {seed: 1, value: 2}\n", "bad.yaml")
    with pytest.raises(ScenarioError, match=r"^bad\.yaml:3:\d+: .*`then` text or a call of its `outputTool`"):
        load_scenario_text("name: t\ntimeline:\n  - callEveryTool: {then: x, outputTool: y}\n", "bad.yaml")


# ---------------------------------------------------------------------------- through the official clients


def _chat_run(llm: MockLLM, tools: list[dict[str, Any]]) -> tuple[list[list[tuple[str, dict[str, Any]]]], str]:
    """Play the agent loop: call the model, answer every tool call, until it answers in text."""
    client = llm.openai(max_retries=0)
    msgs: list[Any] = [{"role": "user", "content": PROMPT}]
    rounds: list[list[tuple[str, dict[str, Any]]]] = []
    for _ in range(10):
        m = client.chat.completions.create(model="gpt-x", messages=msgs, tools=tools).choices[0].message
        if not m.tool_calls:
            return rounds, m.content or ""
        rounds.append([(c.function.name, json.loads(c.function.arguments)) for c in m.tool_calls])
        msgs.append(m.model_dump(exclude_none=True))
        msgs += [{"role": "tool", "tool_call_id": c.id, "content": "ok"} for c in m.tool_calls]
    raise AssertionError("the model never answered")


def test_openai_chat_calls_every_tool_once_with_valid_arguments_then_answers() -> None:
    schemas = {t["function"]["name"]: t["function"]["parameters"] for t in CHAT_TOOLS}
    with MockLLM(_every(seed=7)) as llm:
        rounds, answer = _chat_run(llm, CHAT_TOOLS)
        llm.assert_all_consumed()
    assert [[n for n, _ in r] for r in rounds] == [["get_weather", "book_trip", "write_report"]]  # one parallel reply
    _validate_calls(rounds[0], schemas)
    assert answer == "Called every tool: get_weather, book_trip, write_report."

    with MockLLM(_every(seed=7)) as again, MockLLM(_every(seed=8)) as other:
        assert _chat_run(again, CHAT_TOOLS)[0] == rounds  # the same seed, the same arguments
        assert _chat_run(other, CHAT_TOOLS)[0] != rounds


def test_one_tool_per_reply_with_parallel_false_and_then_text() -> None:
    schemas = {t["function"]["name"]: t["function"]["parameters"] for t in CHAT_TOOLS}
    with MockLLM(_every(seed=7, then="All booked.", parallel=False)) as llm:
        rounds, answer = _chat_run(llm, CHAT_TOOLS)
        llm.assert_all_consumed()
        journal = [r["reply"] for r in llm.requests("autocue-test")]
    assert [[n for n, _ in r] for r in rounds] == [["get_weather"], ["book_trip"], ["write_report"]]
    _validate_calls([c for r in rounds for c in r], schemas)
    assert answer == "All booked."
    assert journal == [1, 1, 1, 2]  # the calls step answered three requests, the answer one
    with MockLLM(_every(seed=7)) as par:  # the same seed draws the same arguments either way
        assert [c for r in rounds for c in r] == _chat_run(par, CHAT_TOOLS)[0][0]


def test_anthropic_calls_every_tool_with_valid_arguments() -> None:
    tools = [{"name": t["function"]["name"], "description": t["function"]["description"],
              "input_schema": t["function"]["parameters"]} for t in CHAT_TOOLS]
    with MockLLM(_every(seed=3, then="Done.", style="anthropic")) as llm:
        client = llm.anthropic(max_retries=0)
        msgs: list[Any] = [{"role": "user", "content": PROMPT}]
        first = client.messages.create(model="claude-x", max_tokens=500, messages=msgs, tools=tools)  # type: ignore[arg-type]
        uses = [b for b in first.content if b.type == "tool_use"]
        assert first.stop_reason == "tool_use" and [u.name for u in uses] == [t["name"] for t in tools]
        _validate_calls([(u.name, dict(u.input)) for u in uses], {t["name"]: t["input_schema"] for t in tools})
        msgs += [{"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in first.content]},
                 {"role": "user", "content": [{"type": "tool_result", "tool_use_id": u.id, "content": "ok"}
                                              for u in uses]}]
        final = client.messages.create(model="claude-x", max_tokens=500, messages=msgs, tools=tools)  # type: ignore[arg-type]
        assert [b.text for b in final.content if b.type == "text"] == ["Done."]
        llm.assert_all_consumed()


def test_google_genai_calls_every_tool_with_valid_arguments() -> None:
    decls = [gtypes.FunctionDeclaration(name=t["function"]["name"], description=t["function"]["description"],
                                        parameters_json_schema=t["function"]["parameters"]) for t in CHAT_TOOLS]
    config = gtypes.GenerateContentConfig(tools=[gtypes.Tool(function_declarations=decls)])
    with MockLLM(_every(seed=5, style="gemini")) as llm:
        client = llm.genai()
        first = client.models.generate_content(model="gemini-x", contents=PROMPT, config=config)
        calls = [(c.name or "", dict(c.args or {})) for c in first.function_calls or []]
        assert [n for n, _ in calls] == [t["function"]["name"] for t in CHAT_TOOLS]
        _validate_calls(calls, {t["function"]["name"]: t["function"]["parameters"] for t in CHAT_TOOLS})
        assert first.candidates and first.candidates[0].content
        history = [gtypes.Content(role="user", parts=[gtypes.Part(text=PROMPT)]), first.candidates[0].content,
                   gtypes.Content(role="user", parts=[gtypes.Part.from_function_response(name=n, response={"ok": 1})
                                                      for n, _ in calls])]
        final = client.models.generate_content(model="gemini-x", contents=history, config=config)  # type: ignore[arg-type]
        assert final.text == "Called every tool: get_weather, book_trip, write_report."
        llm.assert_all_consumed()


def test_a_tool_schema_no_value_satisfies_is_the_dialects_error_at_once() -> None:
    bad = [{"type": "function", "function": {"name": "broken", "parameters": {
        "type": "object", "properties": {"n": {"type": "integer", "minimum": 5, "maximum": 1}}, "required": ["n"]}}}]
    with MockLLM(_every()) as llm:
        client = llm.openai(max_retries=0)
        why = r"callEveryTool \(at every\.yaml:5\): cannot make arguments for the tool 'broken'.*minimum 5 is above"
        with pytest.raises(openai.InternalServerError, match=why):
            client.chat.completions.create(model="m", messages=[{"role": "user", "content": PROMPT}],
                                           tools=bad)  # type: ignore[arg-type]
        assert "callEveryTool" in llm.failure()


# ---------------------------------------------------------------------------- structured output

STRUCTURED = """\
name: structured
server: {{llmApiStyle: {style}}}
timeline:
  - userInputs: [[0, "Who is it?"]]
  - structuredOutput: {{seed: 3}}
"""


def test_openai_chat_parse_gets_a_valid_pydantic_model_and_the_same_one_again() -> None:
    got = []
    for _ in range(2):
        with MockLLM(_scenario(STRUCTURED.format(style="openai"))) as llm:
            r = llm.openai(max_retries=0).chat.completions.parse(
                model="gpt-x", messages=[{"role": "user", "content": "Who is it?"}], response_format=Person)
            person = r.choices[0].message.parsed
            assert isinstance(person, Person)
            got.append(person)
    assert got[0] == got[1]


def test_openai_responses_anthropic_gemini_and_ollama_answer_in_the_declared_schema() -> None:
    schema = Person.model_json_schema()
    with MockLLM(_scenario(STRUCTURED.format(style="openai"))) as llm:
        r = llm.openai(max_retries=0).responses.parse(model="gpt-x", input="Who is it?", text_format=Person)
        assert isinstance(r.output_parsed, Person)
    with MockLLM(_scenario(STRUCTURED.format(style="anthropic"))) as llm:
        m = llm.anthropic(max_retries=0).messages.create(
            model="claude-x", max_tokens=900, messages=[{"role": "user", "content": "Who is it?"}],
            output_config={"format": {"type": "json_schema", "schema": schema}})
        Person.model_validate_json("".join(b.text for b in m.content if b.type == "text"))
    with MockLLM(_scenario(STRUCTURED.format(style="gemini"))) as llm:
        g = llm.genai().models.generate_content(
            model="gemini-x", contents="Who is it?",
            config=gtypes.GenerateContentConfig(response_mime_type="application/json", response_schema=Address))
        assert isinstance(g.parsed, Address)
    with MockLLM(_scenario(STRUCTURED.format(style="ollama"))) as llm:
        o = llm.ollama().chat(model="llama", messages=[{"role": "user", "content": "Who is it?"}], format=schema)
        Person.model_validate_json(o.message.content or "")


def test_an_explicit_value_is_checked_against_the_declared_schema() -> None:
    ok = """\
name: value
timeline:
  - userInputs: [[0, "Where?"]]
  - structuredOutput:
      value: {street: Main St, zip_code: "12345", country: NO}
"""
    with MockLLM(_scenario(ok, "value.yaml")) as llm:
        r = llm.openai(max_retries=0).chat.completions.parse(
            model="gpt-x", messages=[{"role": "user", "content": "Where?"}], response_format=Address)
        assert r.choices[0].message.parsed == Address(street="Main St", zip_code="12345", country="NO")
    mismatch = (r"structuredOutput \(at value\.yaml:5\): the scripted value does not satisfy the request's "
                r"response schema: '1234x' does not match .* at /zip_code")
    with MockLLM(_scenario(ok.replace('"12345"', '"1234x"'), "value.yaml")) as llm, pytest.raises(
            openai.InternalServerError, match=mismatch):
        llm.openai(max_retries=0).chat.completions.parse(
            model="gpt-x", messages=[{"role": "user", "content": "Where?"}], response_format=Address)
    with MockLLM(_scenario(ok, "value.yaml")) as llm, pytest.raises(anthropic.InternalServerError,
                                                                    match="declares no response schema"):
        llm.anthropic(max_retries=0).messages.create(
            model="claude-x", max_tokens=9, messages=[{"role": "user", "content": "Where?"}])


def test_a_scenario_file_over_loopback_http_streamed_with_the_anthropic_client() -> None:
    from autocue.mockllm import serve

    tools = [{"name": t["function"]["name"], "input_schema": t["function"]["parameters"]} for t in CHAT_TOOLS[:2]]
    schemas = {t["name"]: t["input_schema"] for t in tools}
    with serve(FIXTURES.parent / "call_every_tool.yaml") as server:
        client = anthropic.Anthropic(base_url=server.base_url, api_key="k", max_retries=0)
        msgs: list[Any] = [{"role": "user", "content": "Check the weather and take a note"}]
        called: list[tuple[str, dict[str, Any]]] = []
        for _ in range(4):
            with client.messages.stream(model="claude-x", max_tokens=500, messages=msgs, tools=tools) as s:  # type: ignore[arg-type]
                m = s.get_final_message()
            uses = [b for b in m.content if b.type == "tool_use"]
            if not uses:
                break
            called += [(u.name, dict(u.input)) for u in uses]
            msgs += [{"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in m.content]},
                     {"role": "user", "content": [{"type": "tool_result", "tool_use_id": u.id, "content": "ok"}
                                                  for u in uses]}]
        assert [n for n, _ in called] == ["get_weather", "book_trip"]  # one per reply
        _validate_calls(called, schemas)
        assert [b.text for b in m.content if b.type == "text"] == ["Called every tool: get_weather, book_trip."]
        msgs += [{"role": "assistant", "content": m.content[0].text}, {"role": "user", "content": "Now as JSON"}]  # type: ignore[union-attr]
        fmt = {"type": "json_schema", "schema": Address.model_json_schema()}
        j = client.messages.create(model="claude-x", max_tokens=900, messages=msgs, output_config={"format": fmt})
        Address.model_validate_json(j.content[0].text)  # type: ignore[union-attr]
        assert server.session("k")["remaining"] == 0


def test_the_harness_playbook_calls_every_tool_of_autocues_own_agent(tmp_path: Path) -> None:
    from autocue.testing import call_every_tool, create_test_session, say, when

    seen: list[tuple[str, Any]] = []

    def get_weather(city: str, unit: Literal["celsius", "fahrenheit"] = "celsius") -> str:
        """Weather in a city."""
        seen.append(("get_weather", (city, unit)))
        return "sunny"

    def write_note(name: str, lines: list[str]) -> str:
        """Write a note."""
        seen.append(("write_note", (name, lines)))
        (tmp_path / "note.txt").write_text("\n".join(lines))
        return "written"

    with create_test_session(tools=[get_weather, write_note], builtin_tools=False, cwd=tmp_path) as t:
        every = call_every_tool(seed=3, parallel=False, tools=["get_weather", "write_note"])  # not `task`
        t.run_sync(when("Weather and a note", [*every]), when("Thanks", [say("You're welcome.")]))
        assert [n for n, _ in seen] == ["get_weather", "write_note"]
        assert [r.is_error for r in t.events.tool_results] == [False, False]
        assert (tmp_path / "note.txt").exists()
        assert t.playbook.remaining == 0
