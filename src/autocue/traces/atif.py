"""An ATIF trajectory (``ATIF-v1.6``) built from a conversation in autocue's message types.

The writer needs no third-party package: it builds plain dicts with the fields of Harbor's
Pydantic models (``harbor.models.trajectories``), which the tests use as the judge.

- a user message is a ``user`` step; the system prompt, when known, a ``system`` step first;
- an assistant message is an ``agent`` step: its text is ``message``, its thinking
  ``reasoning_content``, its tool calls ``tool_calls`` (``tool_call_id``, ``function_name``,
  ``arguments``), its model ``model_name``, its usage ``metrics`` (``prompt_tokens`` = input +
  cache read, ``completion_tokens``, ``cached_tokens``), its time ``timestamp``;
- a tool result joins the ``observation`` of the agent step that made the call
  (``source_call_id``, ``content``; ``extra.is_error`` when it failed);
- ``final_metrics`` sums the steps' usage.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any

from autocue.llm.types import AssistantMessage, TextContent, ThinkingContent, ToolCall, ToolResultMessage, UserMessage

ATIF_VERSION = "ATIF-v1.6"

Message = UserMessage | AssistantMessage | ToolResultMessage


def iso(ms: float | None) -> str | None:
    """Milliseconds since the epoch as an ISO 8601 UTC timestamp (None: unknown)."""
    if not ms:
        return None
    return dt.datetime.fromtimestamp(ms / 1000, tz=dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _text(content: Iterable[Any]) -> str:
    return "".join(b.text for b in content if isinstance(b, TextContent))


def _agent_step(msg: AssistantMessage, default_model: str | None) -> dict[str, Any]:
    step: dict[str, Any] = {"source": "agent"}
    ts = iso(msg.timestamp)
    if ts:
        step["timestamp"] = ts
    if msg.model and msg.model != default_model:
        step["model_name"] = msg.model
    step["message"] = _text(msg.content)
    thinking = "".join(b.thinking for b in msg.content if isinstance(b, ThinkingContent))
    if thinking:
        step["reasoning_content"] = thinking
    calls = [b for b in msg.content if isinstance(b, ToolCall)]
    if calls:
        step["tool_calls"] = [{"tool_call_id": c.id or f"call_{i + 1}", "function_name": c.name,
                               "arguments": c.arguments if isinstance(c.arguments, dict) else {"input": c.arguments}}
                              for i, c in enumerate(calls)]
    u = msg.usage
    if u.input or u.output or u.cache_read:
        metrics: dict[str, Any] = {"prompt_tokens": u.input + u.cache_read, "completion_tokens": u.output}
        if u.cache_read:
            metrics["cached_tokens"] = u.cache_read
        if u.cost.total:
            metrics["cost_usd"] = u.cost.total
        step["metrics"] = metrics
    if msg.stop_reason in ("error", "aborted") and msg.error_message:
        step["extra"] = {"stop_reason": msg.stop_reason, "error": msg.error_message}
    return step


def build_trajectory(messages: Iterable[Message], *, agent_name: str, agent_version: str,
                     model: str | None = None, system: str | None = None, session_id: str | None = None,
                     tool_definitions: list[dict[str, Any]] | None = None,
                     extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The trajectory of ``messages`` as a JSON-ready dict (see the module's mapping)."""
    steps: list[dict[str, Any]] = []
    if system:
        steps.append({"source": "system", "message": system})
    by_call: dict[str, dict[str, Any]] = {}
    last_agent: dict[str, Any] | None = None
    for m in messages:
        if isinstance(m, UserMessage):
            step: dict[str, Any] = {"source": "user", "message": m.text}
            ts = iso(m.timestamp)
            if ts:
                step["timestamp"] = ts
            steps.append(step)
        elif isinstance(m, AssistantMessage):
            last_agent = _agent_step(m, model)
            steps.append(last_agent)
            for call in last_agent.get("tool_calls", []):
                by_call[call["tool_call_id"]] = last_agent
        else:
            owner = by_call.get(m.tool_call_id, last_agent)
            result: dict[str, Any] = {"content": _text(m.content)}
            if owner is not None and m.tool_call_id in by_call:
                result = {"source_call_id": m.tool_call_id, **result}
            if m.is_error:
                result["extra"] = {"is_error": True}
            if owner is None:  # a tool result before any agent step: a system observation
                steps.append({"source": "system", "message": "", "observation": {"results": [result]}})
                continue
            owner.setdefault("observation", {"results": []})["results"].append(result)
    if not steps:
        steps.append({"source": "system", "message": "(empty conversation)"})
    for i, s in enumerate(steps):
        s["step_id"] = i + 1
    agent: dict[str, Any] = {"name": agent_name, "version": agent_version}
    if model:
        agent["model_name"] = model
    if tool_definitions:
        agent["tool_definitions"] = tool_definitions
    out: dict[str, Any] = {"schema_version": ATIF_VERSION}
    if session_id:
        out["session_id"] = session_id
    out["agent"] = agent
    out["steps"] = [{"step_id": s.pop("step_id"), **s} for s in steps]
    agent_steps = [s for s in steps if s["source"] == "agent"]
    metrics = [s["metrics"] for s in agent_steps if "metrics" in s]
    final: dict[str, Any] = {"total_steps": len(steps)}
    if metrics:
        final["total_prompt_tokens"] = sum(x.get("prompt_tokens", 0) for x in metrics)
        final["total_completion_tokens"] = sum(x.get("completion_tokens", 0) for x in metrics)
        final["total_cached_tokens"] = sum(x.get("cached_tokens", 0) for x in metrics)
        if any("cost_usd" in x for x in metrics):
            final["total_cost_usd"] = sum(x.get("cost_usd", 0.0) for x in metrics)
    out["final_metrics"] = final
    if extra:
        out["extra"] = extra
    return out


__all__ = ["ATIF_VERSION", "Message", "build_trajectory", "iso"]
