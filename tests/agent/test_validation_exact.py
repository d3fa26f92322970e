"""Tool arguments are validated with exact JSON Schema semantics (``jsonschema``), in the dialect
the schema names, with the house-style error lines."""

from __future__ import annotations

from typing import Any

import pytest

from autocue.agent import AgentTool, ToolArgumentsError
from autocue.agent.validation import compile_validator

DRAFT4 = {
    "$schema": "http://json-schema.org/draft-04/schema#",
    "type": "object",
    "properties": {"n": {"type": "number", "maximum": 5, "exclusiveMaximum": True}},
}


@pytest.mark.parametrize(("value", "ok"), [({"n": 4}, True), ({"n": 4.99}, True), ({"n": 5}, False)])
def test_a_draft_4_schema_means_what_draft_4_says(value: Any, ok: bool) -> None:
    # draft 4's boolean exclusiveMaximum: "< maximum" (the hand-written checker compared with True, i.e. 1)
    assert (compile_validator(DRAFT4)(value) == []) is ok


def test_keywords_beyond_the_usual_ones_are_checked() -> None:
    v = compile_validator({
        "type": "object",
        "properties": {"tags": {"type": "array", "uniqueItems": True, "prefixItems": [{"type": "string"}]}},
        "patternProperties": {"^x-": {"type": "integer"}},
        "dependentRequired": {"a": ["b"]},
    })
    assert v({"tags": ["a", 1], "x-n": 3, "a": 1, "b": 2}) == []
    errors = v({"tags": ["a", "a"], "x-n": "3", "a": 1})
    assert len(errors) == 3
    assert "x-n: must be integer, got string" in errors and any("'b' is a dependency of 'a'" in e for e in errors)


def test_errors_are_one_line_each_with_a_path() -> None:
    v = compile_validator({
        "type": "object",
        "properties": {"a": {"type": "array", "items": {"type": "object", "properties": {"b": {"type": "string"}}}},
                       "c": {"anyOf": [{"type": "string"}, {"type": "null"}]}},
        "required": ["a", "d"],
    })
    assert v({"a": [{"b": 1}], "c": 5}) == [
        "a[0].b: must be string, got integer",
        "c: matches none of the allowed forms (c: must be string, got integer)",
        "arguments: missing required property 'd'",
    ]


def test_a_tool_with_a_draft_4_schema_accepts_what_it_allows() -> None:
    async def run(tool_call_id: str, params: dict[str, Any], signal: Any, on_update: Any) -> str:
        return "ok"

    tool = AgentTool("t", "", DRAFT4, run)
    assert tool.validate({"n": 4}) == {"n": 4}
    with pytest.raises(ToolArgumentsError, match="n: must be < 5, got 5"):
        tool.validate({"n": 5})
