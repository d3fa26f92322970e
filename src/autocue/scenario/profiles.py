"""Tool profiles: scenario tool calls mapped onto a real agent's tool names and arguments.

A scenario says ``runCmd {cmd, cwd}`` or ``writeFile {path, content}``; each agent calls
those tools something else. ``ToolProfile.map_call(scenario_tool, args)`` returns the agent's
``(tool_name, args)``; a tool the profile does not map passes through unchanged.

Profiles (``get_profile(name)``): ``autocue`` and ``pi`` (read/write/edit/bash/grep/find/ls),
``claude-code`` (Claude Code 2.1: Bash/Read/Write/Edit/Agent/WebFetch/...; search goes through
Bash because 2.1 declares no Grep/Glob), ``claude-code-2.0`` (with Grep/Glob/Task/TodoWrite),
``codex`` (everything through ``exec_command``), ``opencode`` (bash/read/write/edit/grep/glob/
task/todowrite/webfetch), ``gemini-cli`` (run_shell_command/read_file/write_file/replace/
grep_search/glob/list_directory/google_web_search/web_fetch/write_todos).
``detect_profile(declared_tool_names)`` guesses the profile from the tools a request declares;
``apply_profile(script, profile)`` returns a copy of a ``Script`` with every call mapped.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import shlex
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from autocue.llm.types import AssistantMessage, Context
from autocue.scenario.vocab import canonical_tool_name
from autocue.script.model import Script, ScriptedResponse, ScriptedToolCall, Step, Turn

Args = dict[str, Any]
ArgBuilder = Callable[[Args], Args]


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


# ---------------------------------------------------------------------------- shell helpers


def _q(s: Any) -> str:
    return shlex.quote(str(s))


def _cd(cmd: str, cwd: Any) -> str:
    if cwd in (None, "", "."):
        return cmd
    return f"cd {_q(cwd)} && {cmd}"


def _grep_cmd(a: Args) -> str:
    flags = "-rn"
    if a.get("-i"):
        flags += "i"
    parts = ["grep", flags]
    for opt in ("-A", "-B", "-C"):
        if a.get(opt) is not None:
            parts += [opt, str(a[opt])]
    if a.get("glob"):
        parts.append(f"--include={_q(a['glob'])}")
    if a.get("output_mode") == "files_with_matches":
        parts.append("-l")
    elif a.get("output_mode") == "count":
        parts.append("-c")
    parts += ["--", _q(a["pattern"]), _q(a.get("path") or ".")]
    cmd = " ".join(parts)
    if a.get("head_limit"):
        cmd += f" | head -n {int(a['head_limit'])}"
    return cmd


def _find_cmd(a: Args) -> str:
    parts = ["find", _q(a.get("path") or ".")]
    if a.get("name") or a.get("pattern"):
        parts += ["-name", _q(a.get("name") or a.get("pattern"))]
    t = a.get("type")
    if t in ("file", "f"):
        parts += ["-type", "f"]
    elif t in ("dir", "d", "directory"):
        parts += ["-type", "d"]
    return " ".join(parts)


def _ls_cmd(a: Args) -> str:
    return ("ls -laR " if a.get("recursive") else "ls -la ") + _q(a.get("path") or ".")


def _sed_cmd(a: Args) -> str:
    inplace = "-i " if a.get("inplace", True) else ""
    return f"sed {inplace}-e {_q(a['expression'])} {_q(a['path'])}"


def _read_cmd(a: Args) -> str:
    path = _q(a["path"])
    offset, limit = a.get("offset"), a.get("limit")
    if offset is None and limit is None:
        return f"cat -- {path}"
    start = int(offset or 1)
    end = f"{start + int(limit) - 1}" if limit is not None else "$"
    return f"sed -n '{start},{end}p' -- {path}"


def _write_cmd(a: Args) -> str:
    path = str(a["path"])
    prefix = f"mkdir -p {_q(path.rsplit('/', 1)[0])} && " if "/" in path.strip("/") else ""
    return f"{prefix}printf '%s' {_q(a.get('content', ''))} > {_q(path)}"


_EDIT_PY = (
    "import sys,pathlib;p=pathlib.Path(sys.argv[1]);s=p.read_text();o,n=sys.argv[2],sys.argv[3];"
    "c=s.count(o);sys.exit('old_string not found in '+sys.argv[1]) if c==0 else None;"
    "p.write_text(s.replace(o,n) if sys.argv[4]=='1' else s.replace(o,n,1))"
)


def _edit_cmd(a: Args) -> str:
    all_ = "1" if a.get("replace_all") else "0"
    return f"python3 -c {_q(_EDIT_PY)} {_q(a['path'])} {_q(a['old_string'])} {_q(a['new_string'])} {all_}"


def _glob_pattern(a: Args, *, listing: bool) -> str:
    if listing:
        if a.get("pattern"):
            return str(a["pattern"])
        return "**/*" if a.get("recursive") else "*"
    name = a.get("name") or a.get("pattern") or "*"
    return name if "/" in str(name) else f"**/{name}"


def _some(d: Args) -> Args:
    """``d`` without ``None`` values."""
    return {k: v for k, v in d.items() if v is not None}


def _cwd(a: Args) -> Any:
    c = a.get("cwd")
    return None if c in ("", ".") else c


# ---------------------------------------------------------------------------- pi / autocue

_PI_GREP_DROP: dict[str, str | None] = {
    "-i": "ignoreCase", "-C": "context", "head_limit": "limit", "output_mode": None, "-n": None, "-A": None,
    "-B": None, "type": None, "multiline": None,
}


def _pi_bash(a: Args) -> Args:
    out: Args = {"command": _cd(str(a["cmd"]), a.get("cwd"))}
    if a.get("timeout") is not None:
        out["timeout"] = max(1, math.ceil(float(a["timeout"]) / 1000))  # scenario ms -> pi seconds
    return out


_PI: dict[str, ToolMapping] = {
    "runCmd": ToolMapping("bash", build=_pi_bash),
    "readFile": ToolMapping("read", {"encoding": None}),
    "writeFile": ToolMapping("write"),
    "editFile": ToolMapping("edit", {"old_string": "oldText", "new_string": "newText", "replace_all": None}),
    "grep": ToolMapping("grep", _PI_GREP_DROP),
    "find": ToolMapping("find", build=lambda a: _some({
        "pattern": a.get("name") or a.get("pattern") or "*", "path": a.get("path")})),
    "listDir": ToolMapping("ls", {"recursive": None, "pattern": None}),
    "sed": ToolMapping("bash", build=lambda a: {"command": _sed_cmd(a)}),
}


# ---------------------------------------------------------------------------- Claude Code


def _claude_bash(a: Args) -> Args:
    return _some({
        "command": _cd(str(a["cmd"]), a.get("cwd")), "timeout": a.get("timeout"),
        "description": a.get("description"), "run_in_background": a.get("run_in_background"),
    })


_CLAUDE_COMMON: dict[str, ToolMapping] = {
    "runCmd": ToolMapping("Bash", build=_claude_bash),
    "readFile": ToolMapping("Read", {"path": "file_path", "encoding": None}),
    "writeFile": ToolMapping("Write", {"path": "file_path"}),
    "editFile": ToolMapping("Edit", {"path": "file_path"}),
    "sed": ToolMapping("Bash", build=lambda a: {"command": _sed_cmd(a)}),
    "webFetch": ToolMapping("WebFetch"),
    "webSearch": ToolMapping("WebSearch"),
    "notebookEdit": ToolMapping("NotebookEdit"),
    "exitPlanMode": ToolMapping("ExitPlanMode"),
    "todoWrite": ToolMapping("TodoWrite"),
}


def _skill(a: Args) -> Args:
    cmd = str(a.get("command", "")).lstrip("/")
    name, _, rest = cmd.partition(" ")
    return _some({"skill": name, "args": rest or None})


_CLAUDE_21: dict[str, ToolMapping] = {
    **_CLAUDE_COMMON,
    "grep": ToolMapping("Bash", build=lambda a: {"command": _grep_cmd(a)}),
    "find": ToolMapping("Bash", build=lambda a: {"command": _find_cmd(a)}),
    "listDir": ToolMapping("Bash", build=lambda a: {"command": _ls_cmd(a)}),
    "task": ToolMapping("Agent"),
    "bashOutput": ToolMapping("TaskOutput", {"bash_id": "task_id", "filter": None}),
    "killShell": ToolMapping("TaskStop", {"shell_id": "task_id"}),
    "slashCommand": ToolMapping("Skill", build=_skill),
}

_CLAUDE_20: dict[str, ToolMapping] = {
    **_CLAUDE_COMMON,
    "grep": ToolMapping("Grep"),
    "find": ToolMapping("Glob", build=lambda a: _some({"pattern": _glob_pattern(a, listing=False),
                                                       "path": a.get("path")})),
    "listDir": ToolMapping("Glob", build=lambda a: _some({"pattern": _glob_pattern(a, listing=True),
                                                          "path": a.get("path")})),
    "task": ToolMapping("Task"),
    "bashOutput": ToolMapping("BashOutput"),
    "killShell": ToolMapping("KillShell"),
    "slashCommand": ToolMapping("SlashCommand"),
}


# ---------------------------------------------------------------------------- Codex


def _exec(cmd_of: Callable[[Args], str]) -> ToolMapping:
    return ToolMapping("exec_command", build=lambda a: _some({"cmd": cmd_of(a), "workdir": _cwd(a)}))


_CODEX: dict[str, ToolMapping] = {
    "runCmd": _exec(lambda a: str(a["cmd"])),
    "readFile": _exec(_read_cmd),
    "writeFile": _exec(_write_cmd),
    "editFile": _exec(_edit_cmd),
    "grep": _exec(_grep_cmd),
    "find": _exec(_find_cmd),
    "listDir": _exec(_ls_cmd),
    "sed": _exec(_sed_cmd),
}


# ---------------------------------------------------------------------------- opencode


def _oc_bash(a: Args) -> Args:
    cmd = str(a["cmd"])
    return _some({"command": cmd, "description": a.get("description") or cmd[:80], "workdir": _cwd(a),
                  "timeout": a.get("timeout")})


_OPENCODE: dict[str, ToolMapping] = {
    "runCmd": ToolMapping("bash", build=_oc_bash),
    "readFile": ToolMapping("read", {"path": "filePath", "encoding": None}),
    "writeFile": ToolMapping("write", {"path": "filePath"}),
    "editFile": ToolMapping("edit", {"path": "filePath", "old_string": "oldString", "new_string": "newString",
                                     "replace_all": "replaceAll"}),
    "grep": ToolMapping("grep", build=lambda a: _some({"pattern": a["pattern"], "path": a.get("path"),
                                                       "include": a.get("glob")})),
    "find": ToolMapping("glob", build=lambda a: _some({"pattern": _glob_pattern(a, listing=False),
                                                       "path": a.get("path")})),
    "listDir": ToolMapping("glob", build=lambda a: _some({"pattern": _glob_pattern(a, listing=True),
                                                          "path": a.get("path")})),
    "sed": ToolMapping("bash", build=lambda a: {"command": _sed_cmd(a), "description": "sed " + str(a["path"])}),
    "task": ToolMapping("task"),
    "todoWrite": ToolMapping("todowrite"),
    "webFetch": ToolMapping("webfetch", build=lambda a: {"url": a["url"], "format": a.get("format", "markdown")}),
}


# ---------------------------------------------------------------------------- Gemini CLI


def _gm_read(a: Args) -> Args:
    out: Args = {"file_path": a["path"]}
    offset, limit = a.get("offset"), a.get("limit")
    if offset is not None or limit is not None:
        start = int(offset or 1)
        out["start_line"] = start
        if limit is not None:
            out["end_line"] = start + int(limit) - 1
    return out


def _gm_todos(a: Args) -> Args:
    todos = []
    for t in a.get("todos") or []:
        if isinstance(t, dict):
            todos.append(_some({"description": t.get("description") or t.get("content"), "status": t.get("status")}))
        else:
            todos.append({"description": str(t), "status": "pending"})
    return {"todos": todos}


_GEMINI: dict[str, ToolMapping] = {
    "runCmd": ToolMapping("run_shell_command", build=lambda a: _some({
        "command": str(a["cmd"]), "description": a.get("description"), "dir_path": _cwd(a),
        "is_background": a.get("run_in_background")})),
    "readFile": ToolMapping("read_file", build=_gm_read),
    "writeFile": ToolMapping("write_file", {"path": "file_path"}),
    "editFile": ToolMapping("replace", build=lambda a: _some({
        "file_path": a["path"], "instruction": a.get("instruction") or f"Replace text in {a['path']}",
        "old_string": a["old_string"], "new_string": a["new_string"],
        "allow_multiple": a.get("replace_all")})),
    "grep": ToolMapping("grep_search", build=lambda a: _some({
        "pattern": a["pattern"], "dir_path": a.get("path"), "include_pattern": a.get("glob")})),
    "find": ToolMapping("glob", build=lambda a: _some({"pattern": _glob_pattern(a, listing=False),
                                                       "dir_path": a.get("path")})),
    "listDir": ToolMapping("list_directory", build=lambda a: {"dir_path": a.get("path") or "."}),
    "sed": ToolMapping("run_shell_command", build=lambda a: {"command": _sed_cmd(a)}),
    "webSearch": ToolMapping("google_web_search", build=lambda a: {"query": a["query"]}),
    "webFetch": ToolMapping("web_fetch", build=lambda a: {
        "prompt": f"{a.get('prompt') or 'Fetch'} {a['url']}".strip()}),
    "todoWrite": ToolMapping("write_todos", build=_gm_todos),
}


# ---------------------------------------------------------------------------- registry

_PROFILES: dict[str, ToolProfile] = {
    "autocue": ToolProfile("autocue", _PI, "autocue's own tools (pi's names)"),
    "pi": ToolProfile("pi", _PI, "pi coding agent: read, write, edit, bash, grep, find, ls"),
    "claude-code": ToolProfile("claude-code", _CLAUDE_21, "Claude Code 2.1 (no Grep/Glob: search via Bash)"),
    "claude-code-2.0": ToolProfile("claude-code-2.0", _CLAUDE_20, "Claude Code 2.0 (Grep, Glob, Task, ...)"),
    "codex": ToolProfile("codex", _CODEX, "OpenAI Codex CLI: everything through exec_command"),
    "opencode": ToolProfile("opencode", _OPENCODE, "opencode: bash, read, write, edit, grep, glob, ..."),
    "gemini-cli": ToolProfile("gemini-cli", _GEMINI, "Gemini CLI: run_shell_command, read_file, replace, ..."),
}
_ALIASES = {"claude": "claude-code", "gemini": "gemini-cli"}

PROFILE_NAMES: tuple[str, ...] = tuple(_PROFILES)


def get_profile(name: str) -> ToolProfile:
    """The named profile (``autocue``, ``pi``, ``claude-code``, ``claude-code-2.0``, ``codex``,
    ``opencode``, ``gemini-cli``; ``claude`` and ``gemini`` are aliases)."""
    p = _PROFILES.get(_ALIASES.get(name, name))
    if p is None:
        raise ValueError(f"unknown tool profile {name!r}; known profiles: {', '.join(PROFILE_NAMES)}")
    return p


def detect_profile(declared_tool_names: Iterable[str]) -> ToolProfile | None:
    """Guess the agent from the tool names its request declares; ``None`` when nothing fits."""
    n = set(declared_tool_names)
    if not n:
        return None
    if "exec_command" in n or "apply_patch" in n:
        return _PROFILES["codex"]
    if "run_shell_command" in n or {"read_file", "list_directory"} <= n or "grep_search" in n:
        return _PROFILES["gemini-cli"]
    if n & {"Bash", "Read", "Write", "Edit"}:
        old = n & {"Grep", "Glob", "Task", "BashOutput", "SlashCommand"}
        return _PROFILES["claude-code-2.0" if old else "claude-code"]
    if n & {"todowrite", "webfetch", "glob"}:
        return _PROFILES["opencode"]
    if len(n & {"read", "write", "edit", "bash"}) >= 2:
        return _PROFILES["autocue" if n & {"grep", "find", "ls"} else "pi"]
    return None


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
        return ScriptedToolCall(name, mapped_args, call.id, call.then)
    name, new_args = profile.map_call(call.name, args)
    return ScriptedToolCall(name, new_args, call.id, call.then)


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


def apply_profile(script: Script, profile: ToolProfile | str) -> Script:
    """A new ``Script`` whose tool calls use ``profile``'s names and arguments (the input is unchanged)."""
    p = get_profile(profile) if isinstance(profile, str) else profile
    turns = [
        Turn(t.prompt, [_map_step(s, p) for s in t.steps], list(t.checks), t.pos) for t in script.turns
    ]
    return Script(turns, script.name, script.pos)
