"""The quick-yes validator never accepts what the full validator rejects, and covers the usual schemas."""

from __future__ import annotations

from typing import Any

import pytest

from autocue.agent import AgentTool, ToolArgumentsError
from autocue.agent.validation import compile_validator, fast_validator

SCHEMAS: list[dict[str, Any]] = [
    {"type": "object"},
    {"type": "object", "properties": {}},
    {"type": "object", "properties": {"i": {"type": "integer"}}},
    {"type": "object", "properties": {"i": {"type": "integer", "description": "n"}}, "required": ["i"]},
    {"type": "object", "properties": {"s": {"type": "string"}, "b": {"type": "boolean"}}, "required": ["s"],
     "additionalProperties": False},
    {"type": "object", "properties": {"n": {"type": ["number", "null"]}, "any": {"description": "anything"}}},
    {"type": "object", "properties": {"o": {"type": "object"}, "a": {"type": "array"}}},
]
VALUES: list[Any] = [
    None, 1, "x", [], {}, {"i": 1}, {"i": True}, {"i": 1.0}, {"i": 1.5}, {"i": "1"}, {"s": "a"}, {"s": 1},
    {"s": "a", "b": False}, {"s": "a", "b": 0}, {"s": "a", "extra": 1}, {"n": None}, {"n": 2.5}, {"n": True},
    {"any": object()}, {"o": {}}, {"o": []}, {"a": []}, {"a": ()},
]


@pytest.mark.parametrize("schema", SCHEMAS)
def test_a_quick_yes_is_always_a_full_yes(schema: dict[str, Any]) -> None:
    fast = fast_validator(schema)
    assert fast is not None, "these are the usual tool schemas: each gets a quick path"
    full = compile_validator(schema)
    said_yes = 0
    for v in VALUES:
        if fast(v):
            said_yes += 1
            assert full(v) == [], (schema, v)
    assert said_yes > 0


def test_it_agrees_with_the_full_check_on_plain_values() -> None:
    schema = SCHEMAS[4]
    fast, full = fast_validator(schema), compile_validator(schema)
    assert fast is not None
    for v in VALUES:
        if type(v) is dict and all(type(x) in (str, bool) for x in v.values()):
            assert fast(v) == (full(v) == []), v


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"i": {"type": "integer", "minimum": 0}}},
        {"type": "object", "properties": {"e": {"enum": ["a"]}}},
        {"type": "object", "properties": {"o": {"type": "object", "properties": {"x": {"type": "string"}}}}},
        {"type": "object", "additionalProperties": {"type": "string"}},
        {"type": "object", "anyOf": [{"required": ["a"]}]},
        {"type": "array"},
        {"type": "object", "properties": {"x": {"type": "date"}}},
    ],
)
def test_schemas_with_more_than_types_get_no_quick_path(schema: dict[str, Any]) -> None:
    assert fast_validator(schema) is None


def test_a_tool_still_reports_the_full_errors_when_the_quick_check_says_no() -> None:
    async def run(tool_call_id: str, params: dict[str, Any], signal: Any, on_update: Any) -> str:
        return "ok"

    tool = AgentTool("t", "", SCHEMAS[4], run)
    assert tool.validate({"s": "a"}) == {"s": "a"}
    assert tool.validate({"s": "a", "b": True}) == {"s": "a", "b": True}
    for bad, words in [({"s": 1}, "must be string"), ({"b": True}, "missing required property 's'"),
                       ({"s": "a", "z": 1}, "unexpected property 'z'")]:
        with pytest.raises(ToolArgumentsError) as ei:
            tool.validate(bad)
        assert words in str(ei.value)
    # valid for JSON Schema, though not for the quick check: the full check accepts it
    tool2 = AgentTool("t2", "", SCHEMAS[2], run)
    assert tool2.validate({"i": 2.0}) == {"i": 2.0}
