"""``expectRequest``: what an agent must have sent before a reply, checked on the parsed request.

Every wire API is read through one normalised view (``normalized_last``, read by the API's
``WireApi.normalize_last``): the last message's role is ``user``, ``assistant``, ``tool`` (a
Chat ``tool`` message, a Responses ``function_call_output`` item, an Anthropic user message of
``tool_result`` blocks, a Gemini ``functionResponse`` part) or ``system``; its text; and the
text of the tool results it carries. ``check_expectation`` compares a ``RequestExpectation`` with a request and returns
the structural differences (``path``, ``expected``, ``actual``), empty when it matches.
"""

from __future__ import annotations

from typing import Any

import orjson

from autocue.mockllm.incoming import Incoming
from autocue.mockllm.wire.api import LastMessage
from autocue.scenario.expect import MISSING, RequestExpectation, resolve_pointer

__all__ = ["LastMessage", "check_expectation", "describe_diff", "normalized_last"]


def normalized_last(req: Incoming) -> LastMessage:
    """The request's last message, read the same way for every API (its ``WireApi.normalize_last``)."""
    return req.view.last_normalized


def _squash(s: str) -> str:
    return " ".join(s.split())


def _contains(hay: str, needle: str) -> bool:
    return _squash(needle) in _squash(hay)


def _short(v: Any, limit: int = 200) -> Any:
    if isinstance(v, str) and len(v) > limit:
        return v[:limit] + "..."
    return v


def check_expectation(exp: RequestExpectation, req: Incoming) -> list[dict[str, Any]]:
    """The differences between ``exp`` and ``req`` (each ``{path, expected, actual}``); [] when it matches."""
    diff: list[dict[str, Any]] = []
    if exp.model is not None and req.model != exp.model:
        diff.append({"path": "model", "expected": exp.model, "actual": req.model})
    if exp.tools:
        declared = req.declared_tools()
        absent = [t for t in exp.tools if t not in declared]
        if absent:
            diff.append({"path": "tools", "expected": f"declares {', '.join(absent)}",
                         "actual": declared})
    if exp.system_contains:
        system = req.system_text()
        for s in exp.system_contains:
            if not _contains(system, s):
                diff.append({"path": "system.contains", "expected": s, "actual": _short(system)})
    if exp.last_role is not None or exp.last_contains or exp.tool_result_contains:
        last = normalized_last(req)
        if exp.last_role is not None and last.role != exp.last_role:
            diff.append({"path": "lastMessage.role", "expected": exp.last_role, "actual": last.role})
        for s in exp.last_contains:
            if not _contains(last.text, s):
                diff.append({"path": "lastMessage.contains", "expected": s, "actual": _short(last.text)})
        for s in exp.tool_result_contains:
            if not _contains(last.tool_result, s):
                actual = _short(last.tool_result) if last.role == "tool" else f"no tool result (last role {last.role})"
                diff.append({"path": "lastMessage.toolResultContains", "expected": s, "actual": actual})
    for pointer, want in exp.pointers:
        got = resolve_pointer(req.body, pointer)
        if got is MISSING:
            diff.append({"path": f"body{pointer}", "expected": want, "actual": "<absent>"})
        elif got != want:
            diff.append({"path": f"body{pointer}", "expected": want, "actual": _short(got)})
    return diff


def describe_diff(diff: list[dict[str, Any]]) -> str:
    """The differences as one line each: ``path: expected X, got Y``."""
    return "; ".join(f"{d['path']}: expected {_show(d['expected'])}, got {_show(d['actual'])}" for d in diff)


def _show(v: Any) -> str:
    s = orjson.dumps(v).decode() if not isinstance(v, str) else repr(v)
    return s if len(s) <= 240 else s[:240] + "..."
