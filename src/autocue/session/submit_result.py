"""``submit_result``: how a subagent hands back structured output.

The tool takes ``{result}`` and records it; the parent's executor validates the value against
the ``task`` call's ``schema`` (one retry with the validation error shown to the child, then a
tool error) and stops the child once it submitted. The same tool is an extension
(``extension``) for a child ``autocue --mode rpc`` process (``-e autocue.session.submit_result``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from autocue.agent.tool import AgentTool, ToolResult
from autocue.llm.abort import AbortSignal

SUBMIT_RESULT = "submit_result"

SUBMIT_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {"result": {"description": "the structured result, matching the schema you were given"}},
    "required": ["result"],
}


def submit_result_tool(on_submit: Callable[[Any], None] | None = None) -> AgentTool:
    """The tool; ``on_submit(value)`` is called with each submitted value."""

    def execute(call_id: str, params: dict[str, Any], signal: AbortSignal, on_update: Any) -> ToolResult:
        if on_submit is not None:
            on_submit(params.get("result"))
        return ToolResult.text("Result submitted.", {"result": params.get("result")})

    return AgentTool(
        SUBMIT_RESULT,
        "Submit your final structured result (ends your work).",
        SUBMIT_PARAMETERS,
        execute,
    )


def extension(api: Any) -> None:
    """For a child process: ``autocue --mode rpc -e autocue.session.submit_result``."""
    api.register_tool(submit_result_tool())

    def stop(ev: Any, ctx: Any) -> None:  # the child ends once it submitted (before another model call)
        if ev.tool_name == SUBMIT_RESULT and not ev.is_error:
            ctx.abort()

    api.on("tool_execution_end", stop)


__all__ = ["SUBMIT_PARAMETERS", "SUBMIT_RESULT", "submit_result_tool"]
