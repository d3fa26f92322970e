"""Tool profiles: scenario tool calls mapped onto one agent CLI's tool names and arguments.

A scenario says ``runCmd {cmd, cwd}`` or ``writeFile {path, content}``; each agent calls
those tools something else. ``ToolProfile.map_call(scenario_tool, args)`` returns the agent's
``(tool_name, args)``; a tool the profile does not map passes through unchanged. Each CLI's
profiles are in its catalogue file (``autocue.catalog.clis``); ``apply_profile(script, profile)``
returns a copy of a ``Script`` with every call mapped.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from autocue.llm.types import AssistantMessage, Context
from autocue.script.model import Script, ScriptedResponse, ScriptedToolCall, Step, Turn

Args = dict[str, Any]
ArgBuilder = Callable[[Args], Args]

TOOL_NAME_ALIASES: dict[str, str] = {
    "run_cmd": "runCmd", "run_command": "runCmd", "read_file": "readFile", "write_file": "writeFile",
    "edit_file": "editFile", "list_dir": "listDir", "web_fetch": "webFetch", "web_search": "webSearch",
    "todo_write": "todoWrite", "notebook_edit": "notebookEdit", "exit_plan_mode": "exitPlanMode",
    "bash_output": "bashOutput", "kill_shell": "killShell", "slash_command": "slashCommand",
}
"""Spellings of scenario tool names that real scenario files use, and the canonical name of each
(the scenario loader rewrites them; a tool profile understands both)."""


def canonical_tool_name(name: str) -> str:
    return TOOL_NAME_ALIASES.get(name, name)


@dataclass(frozen=True, slots=True)
class ToolMapping:
    """How one scenario tool becomes one agent tool.

    ``arg_map`` renames arguments (``None`` drops one the agent has no equivalent for);
    arguments it does not list pass through unchanged. ``build``, when given, computes the
    agent's arguments from the scenario's instead (templated mappings such as a shell command).
    """

    agent_tool_name: str
    arg_map: Mapping[str, str | None] = field(default_factory=dict)
    build: ArgBuilder | None = None

    def map_args(self, args: Mapping[str, Any]) -> Args:
        if self.build is not None:
            return self.build(dict(args))
        amap = self.arg_map
        out: Args = {}
        for k, v in args.items():
            if k in amap:
                target = amap[k]
                if target is not None:
                    out[target] = v
            else:
                out[k] = v
        return out


@dataclass(frozen=True, slots=True)
class ToolProfile:
    """A named set of ``ToolMapping``s keyed by canonical scenario tool name."""

    name: str
    tools: Mapping[str, ToolMapping]
    description: str = ""

    def map_call(self, scenario_tool: str, args: Mapping[str, Any]) -> tuple[str, Args]:
        """The agent's ``(tool_name, args)`` for a scenario call; unknown tools pass through."""
        m = self._mapping(scenario_tool)
        if m is None:
            return scenario_tool, dict(args)
        return m.agent_tool_name, m.map_args(args)

    def agent_tool_name(self, scenario_tool: str) -> str:
        """The agent's name of a scenario tool (``runCmd`` → ``bash`` for autocue); unknown names pass through."""
        m = self._mapping(scenario_tool)
        return scenario_tool if m is None else m.agent_tool_name

    def _mapping(self, scenario_tool: str) -> ToolMapping | None:
        m = self.tools.get(scenario_tool)
        return m if m is not None else self.tools.get(canonical_tool_name(scenario_tool))

    def maps(self, scenario_tool: str) -> bool:
        return canonical_tool_name(scenario_tool) in self.tools

    @property
    def agent_tool_names(self) -> frozenset[str]:
        """Every agent tool name this profile can produce."""
        return frozenset(m.agent_tool_name for m in self.tools.values())


# ---------------------------------------------------------------------------- applying to scripts


def map_tool_call(call: ScriptedToolCall, profile: ToolProfile) -> ScriptedToolCall:
    """A copy of ``call`` with the agent's tool name and arguments (late-bound args stay late)."""
    args = call.arguments
    if callable(args):
        late = args

        def mapped_args() -> Args:
            return profile.map_call(call.name, late())[1]

        m = profile.tools.get(canonical_tool_name(call.name))
        name = m.agent_tool_name if m is not None else call.name
        return ScriptedToolCall(name, mapped_args, call.id)
    name, new_args = profile.map_call(call.name, args)
    return ScriptedToolCall(name, new_args, call.id)


def _map_response(resp: ScriptedResponse, profile: ToolProfile) -> ScriptedResponse:
    if not any(isinstance(b, ScriptedToolCall) for b in resp.content):
        return resp
    content = [map_tool_call(b, profile) if isinstance(b, ScriptedToolCall) else b for b in resp.content]
    return dataclasses.replace(resp, content=content)


def _map_step(step: Step, profile: ToolProfile) -> Step:
    if isinstance(step, ScriptedResponse):
        return _map_response(step, profile)
    factory = step

    def mapped(ctx: Context) -> Any:
        out = factory(ctx)
        if inspect.isawaitable(out):
            async def later() -> ScriptedResponse | AssistantMessage:
                r = await out
                return _map_response(r, profile) if isinstance(r, ScriptedResponse) else r

            return later()
        return _map_response(out, profile) if isinstance(out, ScriptedResponse) else out

    mapped.__name__ = getattr(factory, "__name__", "factory")
    return mapped


def map_script(script: Script, profile: ToolProfile) -> Script:
    """A new ``Script`` whose tool calls use ``profile``'s names and arguments (the input is unchanged)."""
    turns = [
        Turn(t.prompt, [_map_step(s, profile) for s in t.steps], list(t.checks), t.pos) for t in script.turns
    ]
    return Script(turns, script.name, script.pos)
