"""The JSON Schema (draft-07, for editors such as VS Code's YAML extension) of scenario files.

``scenario_json_schema()`` returns a fresh dict. It accepts every form the loader accepts and
rejects wrong types, missing required fields and two events in one list item. Unknown keys
are allowed (the loader warns about them). Checks the schema cannot express (valid base64,
non-empty names after trimming) are left to ``autocue scenario check``.
"""

from __future__ import annotations

from typing import Any

from autocue.catalog.apis import styles as api_styles
from autocue.scenario.events import KINDS, timeline_keys
from autocue.scenario.vocab import (
    ARG_ALIASES,
    ARTIFACT_TYPES,
    REQUIRED_ARGS,
    RESPONSE_PART_KINDS,
    RUNNER_EVENTS,
    TOOL_ARGS,
    TOOL_EVENTS,
    TOOL_NAME_ALIASES,
)

SCHEMA_ID = "https://autocue.dev/schemas/scenario.json"

Schema = dict[str, Any]


def _ref(name: str) -> Schema:
    return {"$ref": f"#/definitions/{name}"}


def _str_or_list() -> Schema:
    return {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}


def _one_or_many(item: Schema) -> Schema:
    return {"anyOf": [item, {"type": "array", "items": item}]}


def _any_required(*keys: str) -> Schema:
    """At least one of ``keys`` is present."""
    return {"anyOf": [{"required": [k]} for k in keys]}


def _when_type(kinds: str | list[str], then: Schema) -> Schema:
    """``then`` applies to an object whose ``type`` is ``kinds`` (one name or a list)."""
    is_kind = {"const": kinds} if isinstance(kinds, str) else {"enum": kinds}
    return {"if": {"properties": {"type": is_kind}, "required": ["type"]}, "then": then}


def _exclusive(kinds: tuple[str, ...]) -> Schema:
    """For each kind key: when present, no other kind key may be."""
    deps: Schema = {}
    for k in kinds:
        others = [o for o in kinds if o != k]
        deps[k] = {"propertyNames": {"not": {"enum": others}}}
    return deps


def _tool_args(tool: str) -> Schema:
    props: Schema = {a: {} for a in TOOL_ARGS.get(tool, ())}
    for a in ("cmd", "cwd", "path", "content", "old_string", "new_string", "pattern", "expression", "url", "query"):
        if a in props:
            props[a] = {"type": "string"}
    if "timeout" in props:
        props["timeout"] = {"type": "number", "minimum": 0}
    if "todos" in props:
        props["todos"] = {"type": "array"}
    aliases = ARG_ALIASES.get(tool, {})
    for alias, canon in aliases.items():
        props[alias] = props.get(canon, {})
    schema: Schema = {"type": "object", "properties": props}
    reqs = []
    for r in REQUIRED_ARGS.get(tool, ()):
        alts = [r, *[a for a, c in aliases.items() if c == r]]
        reqs.append(_any_required(*alts) if len(alts) > 1 else {"required": [r]})
    if reqs:
        schema["allOf"] = reqs
    return schema


def _tool_named_event(tool: str) -> Schema:
    s = _tool_args(tool)
    s = dict(s)
    s["properties"] = {**s["properties"], "toolCallId": {"type": "string"}}
    return {"anyOf": [{"type": "null"}, s]}


def _definitions() -> Schema:
    ms: Schema = {"type": "integer", "minimum": 0}
    rich: Schema = {"type": "object", "required": ["type"], "properties": {"type": {"type": "string"}}}
    text_or_rich: Schema = {"anyOf": [{"type": "string"}, rich]}
    timed: Schema = {
        "anyOf": [
            {"type": "array", "minItems": 2, "maxItems": 2, "items": [ms, text_or_rich]},
            {
                "type": "object",
                "properties": {
                    "relativeTime": ms, "timestamp": ms, "ms": ms, "content": text_or_rich, "text": text_or_rich,
                    "message": {"type": "string"},
                },
                **_any_required("content", "text", "message"),
            },
        ]
    }
    tool_calls_if = [
        {
            "if": {"properties": {"toolName": {"enum": [t, *[a for a, c in TOOL_NAME_ALIASES.items() if c == t]]}},
                   "required": ["toolName"]},
            "then": {"properties": {"args": _tool_args(t)}},
        }
        for t in TOOL_EVENTS if t in REQUIRED_ARGS
    ]
    agent_tool_use: Schema = {
        "type": "object",
        "required": ["toolName"],
        "properties": {
            "toolName": {"type": "string", "minLength": 1},
            "args": {"type": ["object", "null"]},
            "toolCallId": {"type": "string"},
            "progress": {"type": "array", "items": _ref("timedText")},
            "status": {"type": "string"},
            "toolExecution": {
                "type": "object",
                "properties": {
                    "startTimeMs": ms,
                    "events": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["type"],
                            "properties": {
                                "type": {"enum": ["stdout", "stderr", "progress", "completion"]},
                                "timeMs": ms, "content": {"type": "string"}, "exitCode": {"type": "integer"},
                            },
                        },
                    },
                },
            },
            "meta": {"type": "object"}, "_meta": {"type": "object"},
        },
        "allOf": tool_calls_if,
    }
    error: Schema = {
        "type": "object",
        "properties": {
            "statusCode": {"type": "integer", "minimum": 100, "maximum": 599},
            "status": {"type": "integer", "minimum": 100, "maximum": 599},
            "errorType": {"type": "string"}, "message": {"type": "string"},
            "body": {"type": ["object", "string"]},
            "retryAfterSeconds": {"type": "number", "minimum": 0}, "retryAfter": {"type": "number", "minimum": 0},
        },
    }
    assertion: Schema = {
        "type": "object",
        "properties": {
            "fs": {"type": "object", "properties": {
                "exists": _str_or_list(), "notExists": _str_or_list(),
                "contents": {"type": "object", "additionalProperties": {"type": "string"}},
                "sha256": {"type": "object",
                           "additionalProperties": {"type": "string", "pattern": "^[0-9a-fA-F]{64}$"}},
            }},
            "text": {"type": "object", "properties": {"contains": _str_or_list()}},
            "json": {"type": "object", "properties": {"file": _one_or_many({
                "type": "object", "required": ["path"],
                "properties": {"path": {"type": "string"}, "pointer": {"type": "string", "pattern": "^(/.*)?$"}},
            })}},
            "git": {"type": "object", "properties": {"commit": _one_or_many({
                "type": "object", "required": ["messageContains"],
                "properties": {"messageContains": {"type": "string"}},
            })}},
        },
    }
    expect_request: Schema = {
        "type": "object", "additionalProperties": False,
        "properties": {
            "type": {"const": "expectRequest"},
            "model": {"type": "string"},
            "tools": _str_or_list(),
            "systemContains": _str_or_list(),
            "lastMessage": {"type": "object", "additionalProperties": False, "properties": {
                "role": {"enum": ["user", "assistant", "tool", "system"]},
                "contains": _str_or_list(), "toolResultContains": _str_or_list()}},
            "pointer": {"type": "object", "propertyNames": {"pattern": "^/"}},
        },
    }
    agent_edits: Schema = {
        "type": "object", "required": ["path"],
        "properties": {"path": {"type": "string"}, "linesAdded": ms, "linesRemoved": ms},
    }
    part_props: Schema = {
        "think": {"type": "array", "items": _ref("timedText")},
        "assistant": {"type": "array", "items": _ref("timedText")},
        "agentToolUse": _ref("agentToolUse"),
        "agentEdits": agent_edits,
        "toolResult": {"type": "object"},
        "error": _ref("error"),
        "agentPlan": {"type": "object", "properties": {"entries": {"type": "array"}}},
        **{t: _tool_named_event(t) for t in TOOL_EVENTS},
    }
    untagged_part: Schema = {
        "type": "object", "minProperties": 1, "properties": part_props,
        "dependencies": _exclusive(RESPONSE_PART_KINDS),
    }
    tagged_common: Schema = {"type": "object", "required": ["type"], "properties": {"type": {"type": "string"}}}
    tagged_text = _when_type(["think", "assistant"], {
        "properties": {
            "steps": {"type": "array", "items": _ref("timedText")}, "text": text_or_rich,
            "content": text_or_rich, "ms": ms, "relativeTime": ms,
        },
        **_any_required("steps", "text", "content", "think", "assistant"),
    })
    tagged_tool = _when_type("agentToolUse", {"anyOf": [{"required": ["agentToolUse"]}, agent_tool_use]})
    tagged_error = _when_type("error", {"properties": {k: v for k, v in error["properties"].items() if k != "status"}})
    tagged_part: Schema = {"allOf": [tagged_common, tagged_text, tagged_tool, tagged_error]}
    response_part: Schema = {"if": {"type": "object", "required": ["type"]}, "then": tagged_part,
                             "else": untagged_part}

    # the timeline's events: each kind's schema fragments (events.py), and the response parts written as events
    event_props: Schema = {
        **{k: v for k, v in part_props.items() if k != "agentPlan"},
        **{key: frag for kind in KINDS for key, frag in kind.schema.items()},
        "_meta": {"type": "object"},
    }
    keys = timeline_keys()
    untagged_event: Schema = {
        "type": "object", "minProperties": 1, "properties": event_props,
        "dependencies": _exclusive(keys),
    }
    tagged_event: Schema = {
        "allOf": [
            tagged_common, tagged_text, tagged_tool, tagged_error,
            *(_when_type(list(kind.keys) if len(kind.keys) > 1 else kind.keys[0], kind.tagged_schema)
              for kind in KINDS if kind.tagged_schema is not None),
        ]
    }
    event: Schema = {
        "anyOf": [
            {"enum": [key for kind in KINDS for key in kind.bare_keys]},
            {"type": "object", "if": {"required": ["type"]}, "then": tagged_event, "else": untagged_event},
        ]
    }
    return {
        "timedText": timed,
        "agentToolUse": agent_tool_use,
        "error": error,
        "assert": assertion,
        "expectRequest": expect_request,
        "responsePart": response_part,
        "event": event,
    }


def scenario_json_schema() -> dict[str, Any]:
    """The JSON Schema of a scenario file (a new dict each call)."""
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": SCHEMA_ID,
        "title": "autocue scenario",
        "description": "A scripted agent session: model replies, user inputs, assertions and timing. "
        "Event kinds: " + ", ".join(timeline_keys()) + ". Runner-only events: " + ", ".join(RUNNER_EVENTS) + ".",
        "type": "object",
        "required": ["name"],
        "properties": {
            "name": {"type": "string", "minLength": 1, "pattern": "\\S"},
            "description": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "terminalRef": {"type": "string"},
            "compat": {"type": "object", "properties": {"allowInlineTerminal": {"type": "boolean"},
                                                        "allowTypeSteps": {"type": "boolean"}}},
            "initialPrompt": {"type": "string"},
            "repo": {
                "type": "object",
                "properties": {
                    "init": {"type": "boolean"}, "branch": {"type": "string"}, "dir": {"type": "string"},
                    "files": {"type": "array", "items": {
                        "type": "object", "required": ["path", "contents"],
                        "properties": {"path": {"type": "string"}, "contents": {"anyOf": [
                            {"type": "string"},
                            {"type": "object", "required": ["base64"], "properties": {"base64": {"type": "string"}}},
                        ]}},
                    }},
                },
            },
            "ah": {
                "type": "object",
                "properties": {
                    "cmd": {"type": "string"}, "flags": {"type": "array", "items": {"type": "string"}},
                    "env": {"type": "object",
                            "additionalProperties": {"type": ["string", "number", "boolean", "null"]}},
                },
            },
            "server": {
                "type": "object",
                "properties": {
                    "mode": {"enum": ["none", "mock", "real"]},
                    "llmApiStyle": {"enum": list(api_styles())},
                    "coalesceThinkingWithToolUse": {"type": "boolean"},
                    "toolsProfile": {"type": "string"},
                    "match": {"enum": ["strict", "loose", "off"],
                              "description": "how replay compares a request with the one recorded for the reply "
                                             "(_meta.request): fail it, report it, or not at all"},
                    "embeddings": {
                        "type": "object",
                        "description": "what the mock server's embeddings endpoints answer for exact input texts",
                        "properties": {
                            "dimensions": {"type": "integer", "minimum": 1},
                            "vectors": {"type": "object", "additionalProperties": {"anyOf": [
                                {"type": "array", "minItems": 1, "items": {"type": "number"}},
                                {"type": "object", "required": ["like"], "properties": {"like": {"type": "string"}}},
                            ]}},
                        },
                    },
                },
            },
            "timeline": {"type": "array", "items": _ref("event")},
            "events": {"type": "array", "items": _ref("event")},
            "expect": {
                "type": "object",
                "properties": {
                    "exitCode": {"type": "integer"},
                    "egress": {"const": "none",
                               "description": "fail on any attempt to reach a host but the mock server"},
                    "artifacts": {"type": "array", "items": {
                        "type": "object", "required": ["pattern"],
                        "properties": {"type": {"type": "string", "default": "any", "examples": list(ARTIFACT_TYPES)},
                                       "pattern": {"type": "string"}},
                    }},
                    "acp": {"type": "object", "description": "checks of an ACP run (autocue run --via acp): "
                            "toolCalls, toolCallCount, permissions, plan, stopReasons, text"},
                },
            },
            "acp": {"type": "object", "description": "ACP runs (autocue run --via acp): permissions (allow, deny "
                    "or {default, tools}), mcpServers"},
            "agent": {"type": "string", "minLength": 1, "description": "the launch profile autocue run starts"},
            "masks": {"type": "array", "items": {"anyOf": [
                {"type": "string"},
                {"type": "object", "required": ["pattern"],
                 "properties": {"pattern": {"type": "string"}, "replace": {"type": "string"}}},
            ]}},
        },
        "definitions": _definitions(),
    }
