"""The versioned session-event JSON Schema shared by ``autocue simulate`` and ``autocue view``.

Every event is a JSON object with ``v`` (the schema version, ``EVENT_SCHEMA_VERSION``), ``id``
(1, 2, 3, ... within one stream; the SSE ``id:``), ``t`` (logical milliseconds since the
session started) and ``type``; the other keys depend on the type (``EVENT_TYPES`` lists them
with their required keys). ``event_json_schema()`` is the whole schema as a dict;
``validate_event(event)`` raises ``EventSchemaError`` naming the event and what is wrong.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from autocue.simulate.errors import EventSchemaError as EventSchemaError

EVENT_SCHEMA_VERSION = 1
SCHEMA_ID = f"https://autocue.dev/schemas/session-events/v{EVENT_SCHEMA_VERSION}.json"

_STR: dict[str, Any] = {"type": "string"}
_INT: dict[str, Any] = {"type": "integer"}
_NUM: dict[str, Any] = {"type": "number"}
_BOOL: dict[str, Any] = {"type": "boolean"}
_ANY: dict[str, Any] = {}
_OBJ: dict[str, Any] = {"type": "object"}
_NSTR: dict[str, Any] = {"type": ["string", "null"]}

# type -> (description, {key: schema}, required keys)
EVENT_TYPES: dict[str, tuple[str, dict[str, Any], tuple[str, ...]]] = {
    "session.start": ("a session begins (scenario name or source file, initial prompt)",
                      {"scenario": _STR, "title": _STR, "prompt": _NSTR, "source": _STR, "kind": _STR}, ()),
    "session.end": ("the stream is over; nothing follows", {"status": _STR}, ("status",)),
    "status": ("the session's status changes (``complete`` → completed, ``merge`` → merged)",
               {"status": {"enum": ["running", "completed", "merged", "ended"]}}, ("status",)),
    "user": ("a user message or simulated input", {"text": _STR, "target": _NSTR}, ("text",)),
    "user.edit": ("the user applies a patch", {"patch": _STR}, ("patch",)),
    "user.command": ("the user runs a command", {"cmd": _STR, "cwd": _NSTR}, ("cmd",)),
    "thinking": ("a chunk of the model's thinking", {"text": _STR}, ("text",)),
    "assistant": ("a chunk of the model's reply text; ``stopReason`` error/aborted marks a failed call",
                  {"text": _STR, "model": _STR, "usage": _OBJ, "stopReason": _STR, "errorMessage": _STR},
                  ("text",)),
    "tool.start": ("the model calls a tool", {"toolCallId": _STR, "toolName": _STR, "args": _ANY},
                   ("toolCallId", "toolName", "args")),
    "tool.output": ("a chunk of a tool's output", {"toolCallId": _STR, "stream": {"enum": ["stdout", "stderr"]},
                                                   "content": _STR}, ("toolCallId", "stream", "content")),
    "tool.progress": ("a tool's progress message", {"toolCallId": _STR, "message": _STR},
                      ("toolCallId", "message")),
    "tool.completion": ("a tool's process exits", {"toolCallId": _STR, "exitCode": _INT}, ("toolCallId", "exitCode")),
    "tool.end": ("a tool call ends with its result", {"toolCallId": _STR, "toolName": _STR, "status": _STR,
                                                      "result": _ANY, "diff": _STR, "isError": _BOOL},
                 ("toolCallId", "status")),
    "file.change": ("the agent changed a file", {"path": _STR, "linesAdded": _INT, "linesRemoved": _INT,
                                                 "diff": _STR}, ("path", "linesAdded", "linesRemoved")),
    "marker": ("a timeline point: screenshot, assert, label, ... (no side effect)",
               {"kind": _STR, "label": _STR, "spec": _ANY}, ("kind",)),
    "info": ("a setting or note (model change, thinking level, custom entry)", {"text": _STR, "kind": _STR},
             ("text",)),
    "compaction": ("older context was summarized", {"summary": _STR, "tokensBefore": _INT}, ("summary",)),
    "summary": ("a branch summary", {"summary": _STR}, ("summary",)),
    "iteration": ("an orchestrator loop iteration", {"n": _INT, "hat": _NSTR, "elapsedMs": _NUM}, ("n",)),
    "bus": ("an orchestrator bus event", {"topic": _STR, "payload": _STR, "source": _NSTR, "target": _NSTR},
            ("topic",)),
    "terminal": ("terminal output (replayed)", {"content": _STR, "stream": {"enum": ["stdout", "stderr"]}},
                 ("content",)),
    "loop.end": ("the orchestrator loop ended", {"reason": _STR, "iterations": _INT}, ("reason",)),
    "screen": ("a terminal screenshot compared with its golden (``status``: new, updated, match, differs, "
               "missing; ``diff``: unified, golden to actual)",
               {"label": _STR, "actual": _STR, "golden": _NSTR, "passed": _BOOL, "status": _NSTR, "diff": _NSTR,
                "goldenPath": _NSTR, "actualPath": _NSTR}, ("label", "actual")),
    "cast": ("an asciicast v2 recording", {"name": _STR, "cast": _STR}, ("name", "cast")),
    "failure": ("a failed check of a scenario run", {"kind": _STR, "message": _STR, "position": _NSTR,
                                                     "diff": _NSTR}, ("kind", "message")),
}

COMMON: dict[str, Any] = {
    "v": {"const": EVENT_SCHEMA_VERSION, "description": "schema version"},
    "id": {"type": "integer", "minimum": 1, "description": "position in the stream (the SSE id)"},
    "t": {"type": "number", "minimum": 0, "description": "logical milliseconds since the session started"},
    "type": {"enum": list(EVENT_TYPES)},
    "error": {"type": "boolean", "description": "the event reports a failure (the viewer's jump-to-error)"},
    "entryId": {"type": "string", "description": "the source entry (session files)"},
    "parentId": {"type": ["string", "null"], "description": "the entry's parent in the session tree"},
    "branch": {"type": "integer", "description": "which branch of the session tree the entry is on (0: current)"},
    "label": {"type": "string", "description": "a label the session gives the entry"},
    "scenario": {"type": "string"},
}


@cache
def event_json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of one session event."""
    branches: list[dict[str, Any]] = []
    for name, (desc, props, required) in EVENT_TYPES.items():
        branches.append({
            "if": {"properties": {"type": {"const": name}}, "required": ["type"]},
            "then": {"description": desc, "properties": props, "required": list(required)},
        })
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": f"autocue session event, version {EVENT_SCHEMA_VERSION}",
        "description": "One event of a simulated or recorded session (autocue simulate streams them as SSE "
                       "data; autocue view renders them).",
        "type": "object",
        "properties": COMMON,
        "required": ["v", "id", "t", "type"],
        "allOf": branches,
    }


@cache
def _validator() -> Any:
    import jsonschema

    return jsonschema.Draft202012Validator(event_json_schema())


def validate_event(event: dict[str, Any]) -> None:
    """Raise ``EventSchemaError`` (event id and type, the JSON path and the problem) if ``event`` is invalid."""
    err = next(iter(_validator().iter_errors(event)), None)
    if err is not None:
        where = "/".join(str(p) for p in err.absolute_path) or "(event)"
        raise EventSchemaError(f"event {event.get('id')!r} ({event.get('type')!r}): {where}: {err.message}")


__all__ = ["EVENT_SCHEMA_VERSION", "EVENT_TYPES", "SCHEMA_ID", "EventSchemaError", "event_json_schema",
           "validate_event"]
