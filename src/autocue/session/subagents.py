"""``Subagents``: the ``task`` tool and its executor, a collaborator of ``AgentSession``.

The executor pipeline, per ``task`` call: validate the agent type's model pattern, normalise
the arguments (``normalize_task_args``), then for each task create an isolated child session
(its own session file, whose header's ``parentSession`` names the parent's file, as pi links
them), run it in-process (``InProcessChild``) or as a child ``autocue --mode rpc`` process
(``ProcessChild``, ``subagent_process.py``), forward its progress to the parent as tool
updates, and return each task's output in the tool result. Tasks run in parallel up to
``max_concurrency``; an abort of the parent's tool call reaches every child.

Structured output: with ``schema`` the child gets ``submit_result``; the child stops once it
submitted; an invalid value is shown to the child once (a new prompt naming the problems),
and a second invalid value (or no submission) fails the task.

Settings (``settings.json``)::

    {"task": {"mode": "in-process" | "process", "maxConcurrency": 4, "command": ["autocue"]}}

Seams for a harness: ``provider_for(task_id, agent_type)`` gives the child's provider (default:
the parent's), ``process_args(task_id)`` extra arguments for a child process, and
``on_child(task_id, child)`` is called with each child before it runs.
"""

from __future__ import annotations

import asyncio
import fnmatch
import json
import re
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from autocue.agent.agent import Agent
from autocue.agent.tool import AgentTool, ToolResult
from autocue.agent.validation import compile_validator
from autocue.casing import CamelJson
from autocue.llm.abort import AbortSignal
from autocue.llm.stream import Provider
from autocue.llm.types import Model
from autocue.session.agent_wiring import ProviderRouter
from autocue.session.manager import SessionManager
from autocue.session.settings import Settings, SubagentConfig
from autocue.session.subagent_types import AgentType, AgentTypes, check_model_pattern, load_agent_types
from autocue.session.submit_result import SUBMIT_RESULT, submit_result_tool
from autocue.session.tool_registry import ToolRegistry
from autocue.tools.common import ToolError

TASK_TOOL = "task"

# ---------------------------------------------------------------------------- the task tool's arguments

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
    """Check and normalise the ``task`` arguments (``{agent, context?, tasks: [{id, description, assignment}],
    schema?}``); raises ``ValueError`` with a message for the model."""
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

# ---------------------------------------------------------------------------- running the tasks


class Child(Protocol):
    """One running subagent, whichever way it runs."""

    task_id: str
    submitted: list[Any]

    @property
    def session_file(self) -> str | None: ...

    async def run(self, prompt: str) -> None: ...

    def abort(self) -> None: ...

    def last_text(self) -> str | None: ...

    def error(self) -> str | None: ...

    async def close(self) -> None: ...


@dataclass(slots=True)
class TaskOutcome(CamelJson):
    id: str
    agent: str
    status: Literal["done", "error", "aborted"]
    output: str
    result: Any = None
    session_file: str | None = None
    HEAD = None
    KEYS = ("id", "agent", "status", "output", "result?", "sessionFile?")


class ChildSession(Protocol):
    """What an in-process child is: an ``AgentSession`` (this much of it is used)."""

    agent: Agent

    @property
    def session_file(self) -> str | None: ...

    @property
    def messages(self) -> list[Any]: ...

    async def prompt(self, text: str, *, expand_prompt_templates: bool = True) -> None: ...

    def abort_nowait(self) -> None: ...

    def get_last_assistant_text(self) -> str | None: ...

    def subscribe(self, listener: Callable[[Any], Any]) -> Callable[[], None]: ...

    async def dispose(self) -> None: ...


class SessionFactory(Protocol):
    """How a child session is made (``AgentSession`` itself: the parent passes its own class)."""

    def __call__(
        self, *, provider: Provider, model: Model, session_manager: SessionManager, settings: Settings, cwd: str,
        tools: dict[str, AgentTool], system_prompt: str, thinking_level: str, subagents: bool,
    ) -> ChildSession: ...


class InProcessChild:
    """A child ``AgentSession`` in this process, sharing the parent's tools (but ``task``)."""

    def __init__(self, task_id: str, session: ChildSession) -> None:
        self.task_id = task_id
        self.session = session
        self.submitted: list[Any] = []

    @property
    def session_file(self) -> str | None:
        return self.session.session_file

    async def run(self, prompt: str) -> None:
        await self.session.prompt(prompt, expand_prompt_templates=False)

    def abort(self) -> None:
        self.session.abort_nowait()

    def last_text(self) -> str | None:
        return self.session.get_last_assistant_text()

    def error(self) -> str | None:
        m = next((m for m in reversed(self.session.messages) if m.role == "assistant"), None)
        return (m.error_message or "the model call failed") if m is not None and m.stop_reason == "error" else None

    async def close(self) -> None:
        await self.session.dispose()


class Subagents:
    """The ``task`` tool of one session and the children it runs.

    Built with the parent's agent (its model and thinking level), settings, session manager
    (children's files sit beside the parent's), provider router, tool registry (children share
    the tools), working directory and ``new_session``, the factory of a child session."""

    def __init__(
        self, *, agent: Agent, settings: Settings, session_manager: SessionManager, router: ProviderRouter,
        tool_registry: ToolRegistry, cwd: str, new_session: SessionFactory, agent_dir: str | None = None,
        discover: bool = False,
    ) -> None:
        self._agent = agent
        self._settings = settings
        self._sm = session_manager
        self._router = router
        self._tools = tool_registry
        self._cwd = cwd
        self._new_session = new_session
        self.config = SubagentConfig.from_settings(settings)
        self.types: AgentTypes = load_agent_types(cwd, agent_dir, discover=discover)
        self.models: list[Model] = []
        """Models an agent type's model pattern may pick (besides the parent's)."""
        self.provider_for: Callable[[str, AgentType], Provider] | None = None
        self.process_args: Callable[[str], Sequence[str]] | None = None
        self.on_child: list[Callable[[str, Any], Any]] = []
        self.children: dict[str, list[Child]] = {}
        """Every child started, by task id (a task id reused by a later call gets a second entry)."""

    def tool(self) -> AgentTool:
        ref = weakref.ref(self)  # the agent holds the tool: no cycle, a disposed session is freed without the cyclic GC

        async def execute(call_id: str, params: dict[str, Any], signal: AbortSignal, on_update: Any) -> ToolResult:
            subagents = ref()
            if subagents is None:
                raise ToolError("the session of this task tool is gone")
            return await subagents.run(params, signal, on_update)

        return AgentTool(TASK_TOOL, TASK_DESCRIPTION, TASK_PARAMETERS, execute, label="task")

    def reload_types(self, agent_dir: str | None = None) -> None:
        self.types = load_agent_types(self._cwd, agent_dir, discover=True)

    # ------------------------------------------------------------------ pipeline
    async def run(
        self, args: dict[str, Any], signal: AbortSignal, on_update: Callable[[ToolResult], None]
    ) -> ToolResult:
        try:
            p = normalize_task_args(args, self.types)
            model = self._model_for(p.agent)
        except ValueError as e:
            raise ToolError(str(e)) from None
        progress: dict[str, dict[str, Any]] = {t.id: {"status": "queued", "agent": p.agent.name} for t in p.tasks}

        def report(task_id: str, **change: Any) -> None:
            progress[task_id].update(change)
            lines = [f"[{tid}] {st['status']}" + (f": {st['last']}" if st.get("last") else "")
                     for tid, st in progress.items()]
            on_update(ToolResult.text("\n".join(lines), {"tasks": {k: dict(v) for k, v in progress.items()}}))

        sem = asyncio.Semaphore(self.config.max_concurrency)

        async def one(t: TaskSpec) -> TaskOutcome:
            async with sem:
                if signal.aborted:
                    return TaskOutcome(t.id, p.agent.name, "aborted", "aborted before it started")
                return await self._run_task(p, t, model, signal, report)

        outcomes = await asyncio.gather(*(one(t) for t in p.tasks))
        text = "\n\n".join(f"## {o.id} ({o.agent}): {o.status}\n\n{o.output}" for o in outcomes)
        details = {"agent": p.agent.name, "results": [o.to_json() for o in outcomes]}
        if any(o.status != "done" for o in outcomes):
            raise ToolError(text)
        return ToolResult.text(text, details)

    def _model_for(self, t: AgentType) -> Model:
        parent = self._agent.state.model
        if t.model is None:
            return parent
        pattern = check_model_pattern(t.model, f"agent type {t.name}")
        candidates = [parent, *self.models, *self._router.models()]
        for m in candidates:
            full = f"{m.provider}/{m.id}"
            if fnmatch.fnmatchcase(full, pattern) or ("/" not in pattern and fnmatch.fnmatchcase(m.id, pattern)):
                return m
        known = ", ".join(sorted({f"{m.provider}/{m.id}" for m in candidates}))
        raise ValueError(f"agent type {t.name} ({t.source}) wants model {pattern!r}, which matches none of: {known}")

    async def _run_task(
        self, p: TaskParams, t: TaskSpec, model: Model, signal: AbortSignal, report: Callable[..., None]
    ) -> TaskOutcome:
        try:
            child = await self._create_child(p, t, model, report)
        except (OSError, ValueError) as e:
            report(t.id, status="error", last=str(e))
            return TaskOutcome(t.id, p.agent.name, "error", f"could not start the subagent: {e}")
        self.children.setdefault(t.id, []).append(child)
        for fn in self.on_child:
            fn(t.id, child)
        remove = signal.add_listener(child.abort)
        report(t.id, status="running")
        try:
            return await self._drive(p, t, child, signal, report)
        finally:
            remove()
            await child.close()

    async def _drive(
        self, p: TaskParams, t: TaskSpec, child: Child, signal: AbortSignal, report: Callable[..., None]
    ) -> TaskOutcome:
        def end(status: Literal["done", "error", "aborted"], output: str, result: Any = None,
                last: str | None = None) -> TaskOutcome:
            report(t.id, status=status, **({} if last is None else {"last": last}))
            return TaskOutcome(t.id, p.agent.name, status, output, result, child.session_file)

        await child.run(child_prompt(p, t))
        if signal.aborted:
            return end("aborted", "aborted")
        if (err := child.error()) is not None:
            return end("error", f"the subagent failed: {err}", last=err)
        if p.schema is None:
            return end("done", child.last_text() or "(no output)")
        check = compile_validator(p.schema)
        for attempt in (1, 2):
            if not child.submitted:
                problem = "it ended without calling submit_result"
            else:
                value = child.submitted[-1]
                errors = check(value)
                if not errors:
                    return end("done", json.dumps(value, ensure_ascii=False, indent=2), value)
                problem = "its submit_result value does not match the schema:\n" + "\n".join(f"  - {e}" for e in errors)
            if attempt == 2 or signal.aborted:
                break
            report(t.id, status="retrying", last=problem.splitlines()[0])
            child.submitted.clear()
            to_child = problem.replace("its ", "your ", 1).replace("it ended", "you ended")
            await child.run(
                f"Your result was not accepted: {to_child}\nCall submit_result again with a corrected `result`.")
        return end("error", f"the subagent's result was rejected: {problem}", last=problem.splitlines()[0])

    async def _create_child(self, p: TaskParams, t: TaskSpec, model: Model, report: Callable[..., None]) -> Child:
        sm = self._sm
        all_tools = self._tools.all_tools()
        names = p.agent.tool_names([n for n in all_tools if n != TASK_TOOL])
        if self.config.mode == "process":
            from autocue.session.subagent_process import ProcessChild

            extra = list(self.process_args(t.id)) if self.process_args is not None else []
            return await ProcessChild.start(
                t.id, self.config.command, cwd=self._cwd, model=model, tools=names,
                system_prompt=p.agent.system_prompt, parent_file=sm.get_session_file(),
                session_dir=sm.get_session_dir() if sm.get_session_file() else None,
                extra_args=extra, on_progress=lambda last: report(t.id, last=last),
            )
        return self._in_process_child(p, t, model, {n: all_tools[n] for n in names}, report)

    def _in_process_child(
        self, p: TaskParams, t: TaskSpec, model: Model, tools: dict[str, AgentTool], report: Callable[..., None]
    ) -> InProcessChild:
        submitted: list[Any] = []
        if p.schema is not None:
            tools[SUBMIT_RESULT] = submit_result_tool(submitted.append)
        cwd = self._cwd
        parent_file = self._sm.get_session_file()
        if parent_file is not None:
            sm = SessionManager.create(cwd, self._sm.get_session_dir())
            sm.new_session(parent_session=parent_file)
        else:
            sm = SessionManager.in_memory(cwd)
        provider = self.provider_for(t.id, p.agent) if self.provider_for is not None else self._router
        settings = Settings.from_dict({}) if self._settings.extensions else self._settings
        child_session = self._new_session(
            provider=provider, model=model, session_manager=sm, settings=settings, cwd=cwd, tools=tools,
            system_prompt=p.agent.system_prompt, thinking_level=self._agent.state.thinking_level, subagents=False,
        )
        child = InProcessChild(t.id, child_session)
        child.submitted = submitted

        def on_event(ev: Any) -> None:
            et = ev.type
            if et == "tool_execution_start":
                report(t.id, last=ev.tool_name)
            elif et == "tool_execution_end" and ev.tool_name == SUBMIT_RESULT and not ev.is_error:
                child_session.agent.abort("submit_result")

        child_session.subscribe(on_event)
        return child


__all__ = [
    "TASK_DESCRIPTION", "TASK_PARAMETERS", "TASK_TOOL", "Child", "ChildSession", "InProcessChild", "SessionFactory",
    "SubagentConfig", "Subagents",
    "TaskOutcome", "TaskParams", "TaskSpec", "child_prompt", "normalize_task_args",
]
