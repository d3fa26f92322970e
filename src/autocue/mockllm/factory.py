"""Response factories over HTTP: a script step that is a function of the live context.

``call_factory(step, req)`` rebuilds an autocue ``Context`` from the request (system prompt,
messages with tool calls and tool results, declared tools) for any wire API and
calls the factory with it. Only synchronous factories can be played by the server; an
``AssistantMessage`` result is turned back into a scripted response.
"""

from __future__ import annotations

import inspect

from autocue.llm.types import AssistantMessage, Context, TextContent, ThinkingContent, ToolCall
from autocue.mockllm.incoming import Incoming
from autocue.script.model import ScriptedResponse, ScriptedToolCall, Step


def call_factory(step: Step, req: Incoming) -> ScriptedResponse:
    assert not isinstance(step, ScriptedResponse)
    out = step(request_context(req))
    if inspect.isawaitable(out):
        close = getattr(out, "close", None)
        if callable(close):
            close()
        raise TypeError("async response factories cannot be played by the HTTP server; make it synchronous")
    if isinstance(out, AssistantMessage):
        blocks: list[TextContent | ThinkingContent | ScriptedToolCall] = []
        for b in out.content:
            blocks.append(ScriptedToolCall(b.name, b.arguments, b.id) if isinstance(b, ToolCall) else b)
        return ScriptedResponse(blocks, stop_reason=out.stop_reason if out.stop_reason != "toolUse" else None)
    if not isinstance(out, ScriptedResponse):
        raise TypeError(f"a response factory must return a ScriptedResponse or AssistantMessage, got "
                        f"{type(out).__name__}")
    return out


def request_context(req: Incoming) -> Context:
    """The autocue ``Context`` a request carries: its system prompt, messages and declared tools
    (read from the request's view by its API)."""
    return req.wire.context(req.view)
