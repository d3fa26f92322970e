"""Mock tools: replace only the execution of environment tools; hooks still fire at the agent level.

A ``mock_tools`` value is a string, a result dict ``{"content": [...], "details": {...}}``, a
``ToolResult``, or a callable taking the params and returning any of those (sync or async).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeAlias

from autocue.agent.tool import AgentTool, ToolResult, to_tool_result
from autocue.llm.abort import AbortSignal
from autocue.llm.types import TextContent

MockHandler: TypeAlias = str | dict[str, Any] | ToolResult | Callable[[dict[str, Any]], Any]

_OPEN_SCHEMA: dict[str, Any] = {"type": "object", "additionalProperties": True}


def _as_result(value: Any, tool: str) -> ToolResult:
    if isinstance(value, str):
        return ToolResult.text(value, {})
    if isinstance(value, ToolResult):
        return value
    if isinstance(value, dict) and isinstance(value.get("content"), list):
        r = to_tool_result(value)
        if r.details is None:
            r.details = {}
        return r
    raise TypeError(
        f"mock_tools[{tool!r}] gave {type(value).__name__}; use a string, a ToolResult, "
        '{"content": [...], "details": {...}}, or a callable returning one of those'
    )


def make_mock_tool(name: str, handler: MockHandler, real: AgentTool | None = None) -> AgentTool:
    """A tool that answers from ``handler``; it keeps the real tool's schema when there is one."""
    execute: Callable[[str, dict[str, Any], AbortSignal, Any], Any]
    if isinstance(handler, str):  # the common case: a fresh text result per call, no coroutine
        text = handler

        def execute(tool_call_id: str, params: dict[str, Any], signal: AbortSignal, on_update: Any) -> ToolResult:
            return ToolResult([TextContent(text)], {})

    elif not callable(handler):
        _as_result(handler, name)  # fail at set-up, not mid-run

        def execute(tool_call_id: str, params: dict[str, Any], signal: AbortSignal, on_update: Any) -> ToolResult:
            return _as_result(handler, name)

    else:
        fn = handler

        def execute(tool_call_id: str, params: dict[str, Any], signal: AbortSignal, on_update: Any) -> Any:
            value: Any = fn(params)
            if hasattr(value, "__await__"):
                return _finish(value, name)
            return _as_result(value, name)

    return AgentTool(
        name,
        real.description if real else f"{name} (mocked)",
        real.parameters if real else _OPEN_SCHEMA,
        execute,
        label=real.label if real else name,
    )


async def _finish(value: Any, tool: str) -> ToolResult:
    return _as_result(await value, tool)


def build_mock_tools(
    mock_tools: Mapping[str, MockHandler], real_tools: Mapping[str, AgentTool]
) -> dict[str, AgentTool]:
    """Mock tools by name, each keeping the schema of the real tool it replaces (if any)."""
    return {name: make_mock_tool(name, h, real_tools.get(name)) for name, h in mock_tools.items()}
