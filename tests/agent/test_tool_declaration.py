"""Declaring tools: typed functions, pydantic models, JSON Schema validation."""

from __future__ import annotations

from typing import Any, Literal

import pytest
from pydantic import BaseModel, Field

from autocue.agent import AgentTool, ToolArgumentsError, ToolResult, tool, tool_from_model
from autocue.agent.validation import compile_validator
from autocue.llm import AbortController, TextContent


async def run(t: AgentTool, args: dict[str, Any]) -> ToolResult:
    return await t.execute("id1", t.validate(args), AbortController().signal, lambda r: None)


async def test_tool_from_typed_function() -> None:
    @tool
    async def search(query: str, limit: int = 5, mode: Literal["fast", "deep"] = "fast") -> dict[str, Any]:
        """Search the index."""
        return {"query": query, "limit": limit, "mode": mode}

    assert search.name == "search" and search.description == "Search the index."
    props = search.parameters["properties"]
    assert set(props) == {"query", "limit", "mode"} and search.parameters["required"] == ["query"]
    out = await run(search, {"query": "cats"})
    assert out.text_content == '{"query": "cats", "limit": 5, "mode": "fast"}'
    with pytest.raises(ToolArgumentsError, match="mode"):
        search.validate({"query": "x", "mode": "slow"})
    with pytest.raises(ToolArgumentsError, match="extra"):
        search.validate({"query": "x", "extra": 1})


async def test_context_parameters_are_injected_not_exposed() -> None:
    @tool(name="work")
    def do_work(n: int, signal: Any, tool_call_id: str) -> str:
        return f"{tool_call_id}:{n}:{signal.aborted}"

    assert set(do_work.parameters["properties"]) == {"n"}
    assert (await run(do_work, {"n": 3})).text_content == "id1:3:False"


async def test_tool_from_pydantic_model() -> None:
    class Plan(BaseModel):
        title: str = Field(description="Plan title")
        steps: list[str] = []

    def propose(p: Plan) -> ToolResult:
        return ToolResult([TextContent(f"{p.title} ({len(p.steps)} steps)")], {"title": p.title})

    t = tool_from_model(Plan, propose, name="plan_propose", description="Propose a plan")
    assert t.parameters["properties"]["title"]["description"] == "Plan title"
    out = await run(t, {"title": "Cook", "steps": ["boil", "eat"]})
    assert out.text_content == "Cook (2 steps)" and out.details == {"title": "Cook"}
    with pytest.raises(ToolArgumentsError, match="title: Field required"):
        t.validate({})


def test_compiled_validator_covers_the_common_subset() -> None:
    schema = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "minLength": 1},
            "n": {"type": "integer", "minimum": 0, "maximum": 10},
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
            "mode": {"enum": ["a", "b"]},
            "x": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "nested": {"$ref": "#/$defs/N"},
        },
        "required": ["path"],
        "additionalProperties": False,
        "$defs": {"N": {"type": "object", "properties": {"k": {"type": "boolean"}}, "required": ["k"]}},
    }
    v = compile_validator(schema)
    assert v({"path": "a", "n": 3, "tags": ["x"], "mode": "a", "x": None, "nested": {"k": True}}) == []
    errors = v({"n": 11, "tags": ["x", 1, "y"], "mode": "c", "x": 5, "nested": {}, "zzz": 1})
    assert "arguments: missing required property 'path'" in errors
    assert "n: must be <= 10, got 11" in errors
    assert "tags[1]: must be string, got integer" in errors
    assert "tags: length must be at most 2" in errors
    assert "mode: must be one of ['a', 'b'], got 'c'" in errors
    assert "nested: missing required property 'k'" in errors
    assert "arguments: unexpected property 'zzz'" in errors
    assert any(e.startswith("x: matches none of the allowed forms") for e in errors)
    assert v(5) == ["arguments: must be object, got integer"]


def test_unsupported_keywords_fall_back_to_jsonschema() -> None:
    v = compile_validator({"type": "object", "dependentRequired": {"a": ["b"]}})
    assert v({"a": 1, "b": 2}) == []
    errors = v({"a": 1})
    assert len(errors) == 1 and "'b' is a dependency of 'a'" in errors[0]
