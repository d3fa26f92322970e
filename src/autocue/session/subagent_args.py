"""The ``task`` tool's parameters (seed 002) and their normalisation.

``{agent, context?, tasks: [{id, description, assignment}], schema?}``: ``agent`` names a
subagent type, ``context`` is background every task gets, ``schema`` (a JSON Schema) asks each
child for structured output through ``submit_result``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from autocue.agent.validation import compile_validator
from autocue.session.subagent_types import AgentType, AgentTypes

TASK_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "agent": {
            "type": "string", "description": "subagent type: explore, plan, builder, reviewer, task, or a user type",
        },
        "context": {"type": "string", "description": "background every task gets"},
        "tasks": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "string", "description": "a short id, unique in this call"},
                    "description": {"type": "string", "description": "one line: what the task is"},
                    "assignment": {"type": "string", "description": "the full instructions for the subagent"},
                },
                "required": ["id", "assignment"],
            },
        },
        "schema": {"type": "object", "description": "JSON Schema of the result each subagent submits"},
    },
    "required": ["agent", "tasks"],
}

TASK_DESCRIPTION = (
    "Run subagents: each task gets an isolated agent of the given type (its own tools and session) that works "
    "on its assignment; tasks run in parallel and each task's output comes back in this tool's result. Give "
    "`schema` to get structured output (each subagent then ends by calling submit_result)."
)


@dataclass(slots=True)
class TaskSpec:
    id: str
    description: str
    assignment: str


@dataclass(slots=True)
class TaskParams:
    agent: AgentType
    context: str | None
    tasks: list[TaskSpec]
    schema: dict[str, Any] | None


_ID = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


def normalize_task_args(args: dict[str, Any], types: AgentTypes) -> TaskParams:
    """Check and normalise the arguments; raises ``ValueError`` with a message for the model."""
    agent = args.get("agent")
    if not isinstance(agent, str) or not agent.strip():
        raise ValueError("task: 'agent' must name a subagent type")
    at = types.get(agent.strip())
    ctx = args.get("context")
    if ctx is not None and not isinstance(ctx, str):
        raise ValueError("task: 'context' must be a string")
    raw = args.get("tasks")
    if not isinstance(raw, list) or not raw:
        raise ValueError("task: 'tasks' must be a non-empty list of {id, description, assignment}")
    tasks: list[TaskSpec] = []
    seen: set[str] = set()
    for i, t in enumerate(raw):
        if not isinstance(t, dict):
            raise ValueError(f"task: tasks[{i}] must be an object {{id, description, assignment}}")
        tid = str(t.get("id", "")).strip()
        if not _ID.match(tid):
            raise ValueError(f"task: tasks[{i}].id {t.get('id')!r} must be 1-64 letters, digits, '_', '.' or '-'")
        if tid in seen:
            raise ValueError(f"task: tasks[{i}].id {tid!r} is used twice; ids must be unique in one call")
        seen.add(tid)
        assignment = t.get("assignment")
        if not isinstance(assignment, str) or not assignment.strip():
            raise ValueError(f"task: tasks[{i}] ({tid}) needs a non-empty 'assignment'")
        desc = t.get("description")
        desc = desc.strip() if isinstance(desc, str) and desc.strip() else assignment.strip().splitlines()[0][:80]
        tasks.append(TaskSpec(tid, desc, assignment.strip()))
    schema = args.get("schema")
    if schema is not None:
        if not isinstance(schema, dict):
            raise ValueError("task: 'schema' must be a JSON Schema object")
        compile_validator(schema)  # a schema that cannot compile fails here, not in every child
    return TaskParams(at, ctx.strip() if isinstance(ctx, str) and ctx.strip() else None, tasks, schema)


def child_prompt(p: TaskParams, task: TaskSpec) -> str:
    """What the child is asked: the shared context, then its own assignment (and the schema)."""
    parts = []
    if p.context:
        parts.append(f"# Context\n\n{p.context}")
    parts.append(f"# Task {task.id}: {task.description}\n\n{task.assignment}")
    if p.schema is not None:
        parts.append(
            "# Result\n\nWhen you are done, call submit_result with `result` matching this JSON Schema:\n"
            + json.dumps(p.schema, indent=2)
        )
    return "\n\n".join(parts)


__all__ = ["TASK_DESCRIPTION", "TASK_PARAMETERS", "TaskParams", "TaskSpec", "child_prompt", "normalize_task_args"]
