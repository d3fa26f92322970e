"""Scenario → session events with logical times (seed 004, testing mode 3: simulation).

``scenario_events(scenario)`` is a pure function: the same scenario always gives the same
events, ids and times. Timing rules:

- agent events (``llmResponse`` parts, tool calls, edits) run one after another on the agent
  clock: a ``[ms, text]`` step waits ``ms`` then emits; a tool call starts, streams its
  ``toolExecution.events`` at ``startTimeMs + timeMs`` (or, without ``toolExecution``, its
  ``progress`` steps), then ends;
- user events (``userInputs``, ``userEdits``, ``userCommand``) start where they appear in
  the timeline and run concurrently: their ``[ms, text]`` steps do not move the agent clock;
- ``advanceMs: N`` moves the agent clock N ms forward (and at least past every concurrent
  user event, which the seed asks N to cover);
- ``screenshot``, ``assert`` and other runner events are markers at the current time (no side
  effect); ``complete`` / ``merge`` change the status.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from autocue.scenario import (
    AdvanceMs,
    AgentEdits,
    AgentPlan,
    AssertStep,
    AssistantPart,
    CallEveryTool,
    Complete,
    ErrorStep,
    ExpectRequestStep,
    LlmResponse,
    Merge,
    RunnerEvent,
    Scenario,
    Screenshot,
    StructuredOutput,
    ThinkPart,
    ToolResultPart,
    ToolUse,
    UserCommand,
    UserEdits,
    UserInputs,
)
from autocue.scenario.events import check_interpreter, handler
from autocue.simulate.schema import EVENT_SCHEMA_VERSION

Event = dict[str, Any]


def _result_text(value: Any) -> Any:
    return value if value is None or isinstance(value, (str, int, float, bool, list, dict)) else str(value)


class _Clock:
    def __init__(self) -> None:
        self.agent = 0
        self.concurrent_end = 0
        self.calls = 0
        self.status = "running"
        self.out: list[tuple[int, int, Event]] = []

    def emit(self, t: int, event: Event) -> None:
        self.out.append((t, len(self.out), event))

    def call_id(self, tool: ToolUse) -> str:
        self.calls += 1
        return tool.tool_call_id or f"call_{self.calls}"


def _tool(c: _Clock, tool: ToolUse) -> str:
    cid = c.call_id(tool)
    start = c.agent
    c.emit(start, {"type": "tool.start", "toolCallId": cid, "toolName": tool.tool_name, "args": tool.args})
    end = start
    exe = tool.tool_execution
    if exe is not None:
        base = start + max(0, exe.start_time_ms)
        for ev in exe.events:
            at = base + max(0, ev.time_ms)
            end = max(end, at)
            if ev.type in ("stdout", "stderr"):
                c.emit(at, {"type": "tool.output", "toolCallId": cid, "stream": ev.type, "content": ev.content or ""})
            elif ev.type == "progress":
                c.emit(at, {"type": "tool.progress", "toolCallId": cid, "message": ev.content or ""})
            else:
                code = ev.exit_code if ev.exit_code is not None else 0
                done: Event = {"type": "tool.completion", "toolCallId": cid, "exitCode": code}
                if code:
                    done["error"] = True
                c.emit(at, done)
    else:
        for step in tool.progress:
            end += max(0, step.ms)
            c.emit(end, {"type": "tool.progress", "toolCallId": cid, "message": step.text})
    status = tool.status or "ok"
    failed = status.lower() in ("error", "failed", "failure")
    end_event: Event = {"type": "tool.end", "toolCallId": cid, "toolName": tool.tool_name, "status": status,
                        "result": _result_text(tool.result)}
    if failed:
        end_event["error"] = True
    c.emit(end, end_event)
    c.agent = end
    return cid


def _response(c: _Clock, resp: LlmResponse) -> None:
    for part in resp.parts:
        if isinstance(part, (ThinkPart, AssistantPart)):
            kind = "thinking" if isinstance(part, ThinkPart) else "assistant"
            for step in part.steps:
                c.agent += max(0, step.ms)
                c.emit(c.agent, {"type": kind, "text": step.text})
        elif isinstance(part, ToolUse):
            _tool(c, part)
        elif isinstance(part, AgentEdits):
            c.emit(c.agent, {"type": "file.change", "path": part.path, "linesAdded": part.lines_added,
                             "linesRemoved": part.lines_removed})
        elif isinstance(part, ToolResultPart):
            c.emit(c.agent, {"type": "tool.end", "toolCallId": part.tool_call_id or f"call_{c.calls}",
                             "status": "error" if part.is_error else "ok", "result": _result_text(part.content),
                             **({"error": True} if part.is_error else {})})
        elif isinstance(part, ErrorStep):
            c.emit(c.agent, {"type": "assistant", "text": part.message, "stopReason": "error",
                             "errorMessage": f"HTTP {part.status}: {part.message}", "error": True})
        elif isinstance(part, AgentPlan):
            c.emit(c.agent, {"type": "marker", "kind": "plan", "spec": part.entries})


def _user(c: _Clock, event: UserInputs | UserEdits | UserCommand) -> None:
    at = c.agent
    if isinstance(event, UserInputs):
        for inp in event.inputs:
            at += max(0, inp.ms)
            c.emit(at, {"type": "user", "text": inp.text, "target": inp.target or event.target})
    elif isinstance(event, UserEdits):
        c.emit(at, {"type": "user.edit", "patch": event.patch})
    else:
        c.emit(at, {"type": "user.command", "cmd": event.cmd, "cwd": event.cwd})
    c.concurrent_end = max(c.concurrent_end, at)


def _advance(c: _Clock, ev: AdvanceMs) -> None:
    c.agent = max(c.agent + max(0, ev.ms), c.concurrent_end)


def _screenshot(c: _Clock, ev: Screenshot) -> None:
    c.emit(c.agent, {"type": "marker", "kind": "screenshot", "label": ev.label})


def _assert(c: _Clock, ev: AssertStep) -> None:
    text = ev.spec.describe()
    if ev.spec.pos is not None:
        text = text.removesuffix(f" ({ev.spec.pos.short})")
    c.emit(c.agent, {"type": "marker", "kind": "assert", "label": text})


def _status(c: _Clock, ev: Complete | Merge) -> None:
    if ev.value:
        c.status = "completed" if isinstance(ev, Complete) else "merged"
        c.emit(c.agent, {"type": "status", "status": c.status})


def _runner_event(c: _Clock, ev: RunnerEvent) -> None:
    c.emit(c.agent, {"type": "marker", "kind": ev.kind, "spec": ev.data})


TIMELINE_HANDLERS: dict[type, Callable[[_Clock, Any], None]] = {
    LlmResponse: _response, UserInputs: _user, UserEdits: _user, UserCommand: _user, AdvanceMs: _advance,
    Screenshot: _screenshot, AssertStep: _assert, Complete: _status, Merge: _status, RunnerEvent: _runner_event,
}
TIMELINE_IGNORED: dict[type, str] = {
    ExpectRequestStep: "checked by the mock server on a model request; a simulation makes none",
    CallEveryTool: "built from a model request's declared tools; a simulation makes none",
    StructuredOutput: "built from a model request's response schema; a simulation makes none",
}
check_interpreter(__name__, TIMELINE_HANDLERS, TIMELINE_IGNORED)


def scenario_events(scenario: Scenario) -> list[Event]:
    """The scenario's session events, ordered by time, each with ``v``, ``id`` (from 1) and ``t`` (ms)."""
    c = _Clock()
    c.emit(0, {"type": "session.start", "scenario": scenario.name, "title": scenario.name,
               "prompt": scenario.initial_prompt})
    if scenario.initial_prompt:
        c.emit(0, {"type": "user", "text": scenario.initial_prompt, "target": None})
    for ev in scenario.timeline:
        if (handle := handler(__name__, TIMELINE_HANDLERS, TIMELINE_IGNORED, ev)) is not None:
            handle(c, ev)
    end = max([c.agent, c.concurrent_end, *(t for t, _, _ in c.out)])
    c.emit(end, {"type": "session.end", "status": c.status if c.status != "running" else "ended"})
    c.out.sort(key=lambda x: (x[0], x[1]))
    events: list[Event] = []
    for i, (t, _, body) in enumerate(c.out, 1):
        events.append({"v": EVENT_SCHEMA_VERSION, "id": i, "t": t, **body})
    return events


__all__ = ["Event", "scenario_events"]
