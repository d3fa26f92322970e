"""A scenario as the mock agent's plan: plain JSON, so the agent's process needs no YAML loader.

``plan_from_scenario(scenario)`` keeps what the mock agent plays, in timeline order:
``{"reply": [parts]}`` per ``llmResponse`` (``think``, ``text``, ``tool`` with the call already
mapped onto autocue's tools, ``edit``, ``error``) and ``{"inputs": N}`` per ``userInputs``
event (the lines it reads from its terminal). ``autocue run --agent mock`` writes it next to
the run and starts ``autocue mock-agent --plan FILE``; ``autocue mock-agent SCENARIO`` builds it
in-process.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from autocue.scenario import (
    AdvanceMs,
    AgentEdits,
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
    ToolUse,
    UserCommand,
    UserEdits,
    UserInputs,
    get_profile,
)
from autocue.scenario.events import check_interpreter, handler


def _tool(t: ToolUse) -> dict[str, Any]:
    out: dict[str, Any] = {"name": t.tool_name, "args": t.args, "id": t.tool_call_id, "status": t.status,
                           "pos": str(t.pos), "mapped": None, "map_error": None, "result": None}
    if t.result is not None:
        import json

        out["result"] = t.result if isinstance(t.result, str) else json.dumps(t.result)
    try:
        out["mapped"] = list(get_profile("autocue").map_call(t.tool_name, dict(t.args)))
    except Exception as e:  # a mapping that needs arguments the event lacks
        out["map_error"] = f"cannot map {t.tool_name} onto autocue's tools: {e}"
    return out


def _part(p: object) -> dict[str, Any] | None:
    if isinstance(p, ThinkPart):
        return {"think": "".join(s.text for s in p.steps)}
    if isinstance(p, AssistantPart):
        return {"text": "".join(s.text for s in p.steps)}
    if isinstance(p, ToolUse):
        return {"tool": _tool(p)}
    if isinstance(p, AgentEdits):
        return {"edit": {"path": p.path, "added": p.lines_added, "removed": p.lines_removed, "pos": str(p.pos)}}
    if isinstance(p, ErrorStep):
        return {"error": f"{p.status} {p.message}"}
    return None


def _reply(ev: LlmResponse) -> dict[str, Any] | None:
    return {"reply": [x for x in (_part(p) for p in ev.parts) if x is not None]}


def _inputs(ev: UserInputs) -> dict[str, Any] | None:
    n = sum(1 for i in ev.inputs if (i.target or ev.target or "tui") in ("tui", "cli"))
    return {"inputs": n} if n else None


TIMELINE_HANDLERS: dict[type, Callable[[Any], dict[str, Any] | None]] = {LlmResponse: _reply, UserInputs: _inputs}
TIMELINE_IGNORED: dict[type, str] = {
    cls: "the executor's event: the mock agent plays the replies and reads the typed lines only"
    for cls in (UserEdits, UserCommand, AdvanceMs, Screenshot, AssertStep, ExpectRequestStep, Complete, Merge,
                RunnerEvent)
}
TIMELINE_IGNORED.update({cls: "built from a model request's declared tools or response schema: the mock agent "
                          "sends no model request" for cls in (CallEveryTool, StructuredOutput)})
check_interpreter(__name__, TIMELINE_HANDLERS, TIMELINE_IGNORED)


def plan_from_scenario(scenario: Scenario) -> dict[str, Any]:
    events: list[dict[str, Any]] = []
    for ev in scenario.timeline:
        if (make := handler(__name__, TIMELINE_HANDLERS, TIMELINE_IGNORED, ev)) is not None and (
                out := make(ev)) is not None:
            events.append(out)
    return {"name": scenario.name, "prompt": scenario.initial_prompt, "pos": str(scenario.pos), "events": events}
