"""``import_atif(path)``: an ATIF trajectory as a scenario that ``autocue run`` replays.

- the first ``user`` step is ``initialPrompt``; a later one is a ``userInputs`` turn;
- each ``agent`` step is an ``llmResponse``: ``reasoning_content`` a ``think`` block, ``message``
  an ``assistant`` block, each tool call an ``agentToolUse``; its ``metrics`` and ``model_name``
  go under ``_meta`` (usage and model, as a recording keeps them);
- ``system`` steps and observations are not replayed: the agent's own tools produce the results.

Tool names (``tools``): ``raw`` keeps each call as the trajectory names it (replay with the agent
that declared those tools); ``autocue`` (the default) maps the tools of Harbor's agents onto
autocue's built-in tools, which ``autocue run --agent autocue`` runs for real in the workspace:

| trajectory's tool | becomes |
|---|---|
| a shell (``execute_bash``, ``bash_command``, ``Bash``, ``shell``, ...: ``SHELL_TOOLS``) | ``bash {command}`` |
| Claude Code's ``Read``, ``Write``, ``Edit`` (``file_path``, ``old_string``, ...) | ``read``, ``write``, ``edit`` |
| ``str_replace_editor`` / ``str_replace_based_edit_tool`` ``create`` | ``write {path, content}`` |
| the same, ``str_replace`` | ``edit {path, oldText, newText}`` |
| the same, ``view`` | ``read {path}`` |
| ``think`` | a ``think`` block |
| ``finish``, ``mark_task_complete``, ... (``DONE_TOOLS``) | no call (``finish``'s message: the reply's text) |
| autocue's own tools (``read``, ``write``, ``edit``, ``bash``, ``grep``, ``find``, ``ls``) | kept |
| anything else | kept as named, with a comment |

A path under ``root`` (default ``/app``, the working folder of Harbor's task images) becomes
relative to the workspace. An agent step left without a call (its calls all map to nothing, or it
had none) that is not the last ends the agent's turn in a replay, so it is left out unless a user
step follows it; each step left out or changed is a comment in the scenario.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autocue.scenario.writer import flow
from autocue.traces.errors import TraceError

SHELL_TOOLS = frozenset({"execute_bash", "bash_command", "bash", "shell", "run_shell_command", "exec_command",
                         "run_command", "terminal"})
EDITOR_TOOLS = frozenset({"str_replace_editor", "str_replace_based_edit_tool"})
DONE_TOOLS = frozenset({"finish", "mark_task_complete", "task_complete", "submit"})
AUTOCUE_TOOLS = frozenset({"read", "write", "edit", "bash", "grep", "find", "ls"})


@dataclass
class ImportedScenario:
    """The scenario text and what the import changed (one line per note, also in the text as comments)."""

    text: str
    name: str
    notes: list[str] = field(default_factory=list)
    replies: int = 0
    tool_calls: int = 0


class _Reader:
    """Checks each part of the trajectory as it is read; an error names ``FILE: JSON.PATH: what``."""

    def __init__(self, file: str) -> None:
        self.file = file

    def fail(self, path: str, what: str) -> TraceError:
        return TraceError(f"{self.file}: {path}: {what}")

    def obj(self, v: Any, path: str) -> dict[str, Any]:
        if not isinstance(v, dict):
            raise self.fail(path, f"expected an object, got {_kind(v)}")
        return v

    def text(self, v: Any, path: str) -> str:
        """A message: a string, or a list of content parts (their ``text`` joined)."""
        if v is None:
            return ""
        if isinstance(v, str):
            return v
        if isinstance(v, list):
            out = []
            for i, part in enumerate(v):
                p = self.obj(part, f"{path}[{i}]")
                if not isinstance(p.get("type"), str):
                    raise self.fail(f"{path}[{i}].type", "expected a string (text, image, audio)")
                if p["type"] == "text":
                    if not isinstance(p.get("text"), str):
                        raise self.fail(f"{path}[{i}].text", f"expected a string, got {_kind(p.get('text'))}")
                    out.append(p["text"])
            return "".join(out)
        raise self.fail(path, f"expected a string or a list of content parts, got {_kind(v)}")


def _kind(v: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null",
            int: "a number", float: "a number"}.get(type(v), type(v).__name__)


def _strip_root(value: Any, root: str) -> Any:
    if not root or not isinstance(value, str):
        return value
    r = root.rstrip("/")
    if value == r:
        return "."
    if value.startswith(r + "/"):
        return value[len(r) + 1:] or "."
    return value


def _map_call(name: str, args: dict[str, Any], root: str) -> tuple[str, dict[str, Any]] | str | None:
    """``(tool, args)`` in autocue's tools, ``"think"`` / ``"done"`` for a call that is not one, or
    None when it does not map (kept as named)."""
    low = name.lower()
    if low in AUTOCUE_TOOLS and "file_path" in args and "path" not in args:  # Claude Code's Read, Write, Edit
        path = _strip_root(args["file_path"], root)
        if low == "write":
            return "write", {"path": path, "content": str(args.get("content") or "")}
        if low == "edit":
            return "edit", {"path": path, "oldText": str(args.get("old_string") or ""),
                            "newText": str(args.get("new_string") or "")}
        if low == "read":
            return "read", {"path": path}
    if name in AUTOCUE_TOOLS:
        if "path" in args:
            args = {**args, "path": _strip_root(args["path"], root)}
        return name, args
    if low in SHELL_TOOLS:
        cmd = args.get("command", args.get("keystrokes", args.get("cmd")))
        if isinstance(cmd, list):
            cmd = " ".join(str(c) for c in cmd)
        if not isinstance(cmd, str):
            return None
        return "bash", {"command": cmd[:-1] if cmd.endswith("\n") else cmd}
    if name in EDITOR_TOOLS:
        command, path = args.get("command"), _strip_root(args.get("path"), root)
        if not isinstance(path, str):
            return None
        if command == "create":
            return "write", {"path": path, "content": str(args.get("file_text") or "")}
        if command == "str_replace":
            return "edit", {"path": path, "oldText": str(args.get("old_str") or ""),
                            "newText": str(args.get("new_str") or "")}
        if command == "view":
            return "read", {"path": path}
        return None
    if name == "think":
        return "think"
    if name in DONE_TOOLS:
        return "done"
    return None


def import_atif(path: str | Path, *, tools: str = "autocue", root: str = "/app",
                name: str | None = None) -> ImportedScenario:
    """The scenario of the ATIF trajectory at ``path`` (see the module's mapping)."""
    p = Path(path)
    try:
        data = json.loads(p.read_text("utf-8"))
    except OSError as e:
        raise TraceError(f"{p}: {e.strerror or e}") from None
    except ValueError as e:
        raise TraceError(f"{p}: not JSON ({e})") from None
    return import_trajectory(data, str(p), tools=tools, root=root, name=name)


def import_trajectory(data: Any, file: str, *, tools: str = "autocue", root: str = "/app",
                      name: str | None = None) -> ImportedScenario:
    if tools not in ("autocue", "raw"):
        raise TraceError(f"tools must be 'autocue' or 'raw', not {tools!r}")
    rd = _Reader(file)
    top = rd.obj(data, "$")
    version = top.get("schema_version")
    if not isinstance(version, str) or not version.startswith("ATIF-"):
        raise rd.fail("schema_version", f"expected an ATIF version such as 'ATIF-v1.6', got {version!r}")
    agent = rd.obj(top.get("agent"), "agent")
    steps = top.get("steps")
    if not isinstance(steps, list) or not steps:
        raise rd.fail("steps", f"expected a non-empty list of steps, got {_kind(steps)}")
    default_model = agent.get("model_name") if isinstance(agent.get("model_name"), str) else None
    notes: list[str] = []
    items: list[tuple[str, list[str], str]] = []  # (kind, lines, step path): "user" | "reply" | "text"
    initial: str | None = None
    n_calls = 0
    for i, raw in enumerate(steps):
        at = f"steps[{i}]"
        step = rd.obj(raw, at)
        source = step.get("source")
        if source not in ("system", "user", "agent"):
            raise rd.fail(f"{at}.source", f"expected 'system', 'user' or 'agent', got {source!r}")
        if "message" not in step:
            raise rd.fail(f"{at}.message", "missing (a string or a list of content parts)")
        message = rd.text(step.get("message"), f"{at}.message")
        if not isinstance(step.get("step_id"), int) or step["step_id"] < 1:
            raise rd.fail(f"{at}.step_id", f"expected an integer from 1, got {step.get('step_id')!r}")
        if source == "system":
            continue
        if source == "user":
            if initial is None and not items:
                initial = message
            else:
                items.append(("user", [f"  - userInputs: [[0, {flow(message)}]]\n"], at))
            continue
        calls = step.get("tool_calls")
        if calls is not None and not isinstance(calls, list):
            raise rd.fail(f"{at}.tool_calls", f"expected a list, got {_kind(calls)}")
        comments: list[str] = []
        uses: list[str] = []
        thinks: list[str] = []
        reasoning = step.get("reasoning_content")
        if reasoning is not None and not isinstance(reasoning, str):
            raise rd.fail(f"{at}.reasoning_content", f"expected a string, got {_kind(reasoning)}")
        if reasoning:
            thinks.append(reasoning)
        done_text = ""
        for j, rawc in enumerate(calls or []):
            cat = f"{at}.tool_calls[{j}]"
            c = rd.obj(rawc, cat)
            fname, cid, args = c.get("function_name"), c.get("tool_call_id"), c.get("arguments")
            if not isinstance(fname, str) or not fname:
                raise rd.fail(f"{cat}.function_name", f"expected a tool name, got {fname!r}")
            if not isinstance(cid, str):
                raise rd.fail(f"{cat}.tool_call_id", f"expected a string, got {_kind(cid)}")
            if not isinstance(args, dict):
                raise rd.fail(f"{cat}.arguments", f"expected an object, got {_kind(args)}")
            mapped: tuple[str, dict[str, Any]] | str | None = (fname, args) if tools == "raw" else \
                _map_call(fname, args, root)
            if mapped == "think":
                thinks.append(str(args.get("thought") or ""))
                comments.append(f"{cat}: {fname} → a think block")
            elif mapped == "done":
                if isinstance(args.get("message"), str):
                    done_text = args["message"]
                comments.append(f"{cat}: {fname} ends the run: no tool call")
            elif mapped is None:
                comments.append(f"{cat}: {fname} has no autocue tool: kept as named")
                uses.append(flow({"toolName": fname, "toolCallId": cid, "args": args}))
            else:
                assert isinstance(mapped, tuple)
                tool, margs = mapped
                if tool != fname or margs != args:
                    comments.append(f"{cat}: {fname} → {tool}")
                uses.append(flow({"toolName": tool, "toolCallId": cid, "args": margs}))
        n_calls += len(uses)
        text = message or (done_text if not uses else "")
        lines = [f"  # {x}\n" for x in comments]
        lines.append("  - llmResponse:\n")
        lines += [f"      - think: [[0, {flow(t)}]]\n" for t in thinks if t]
        if text or not uses:
            lines.append(f"      - assistant: [[0, {flow(text)}]]\n")
        lines += [f"      - agentToolUse: {u}\n" for u in uses]
        meta: dict[str, Any] = {}
        metrics = step.get("metrics")
        if isinstance(metrics, dict):
            inp, out, cached = (metrics.get(k) for k in ("prompt_tokens", "completion_tokens", "cached_tokens"))
            if any(isinstance(x, int) for x in (inp, out)):
                c_read = cached if isinstance(cached, int) else 0
                meta["usage"] = {"input": max(0, (inp if isinstance(inp, int) else 0) - c_read),
                                 "output": out if isinstance(out, int) else 0, "cacheRead": c_read, "cacheWrite": 0}
        model = step.get("model_name") if isinstance(step.get("model_name"), str) else default_model
        if model:
            meta["model"] = model
        if meta:
            lines.append(f"    _meta: {flow(meta)}\n")
        items.append(("reply" if uses else "text", lines, at))
        notes += comments
    # a reply without a call ends the agent's turn: one that a user step does not follow, and that
    # is not the last reply, would leave the rest unplayed
    kept: list[str] = []
    replies = 0
    last_reply = max((k for k, (kind, _, _) in enumerate(items) if kind != "user"), default=-1)
    for k, (kind, lines, at) in enumerate(items):
        if kind == "text" and k != last_reply and not (k + 1 < len(items) and items[k + 1][0] == "user"):
            note = (f"{at}: left out, a reply without a tool call that neither ends the trajectory nor comes "
                    "before a user step (in a replay it would end the agent's turn)")
            notes.append(note)
            kept.append(f"  # {note}\n")
            continue
        if kind != "user":
            replies += 1
        kept += lines
    if last_reply >= 0 and items[last_reply][0] == "reply":
        note = "the trajectory ends with tool calls: a last reply without text ends the replay"
        notes.append(note)
        kept += [f"  # {note}\n", "  - llmResponse:\n", "      - assistant: [[0, \"\"]]\n"]
    if replies == 0:
        raise rd.fail("steps", "no agent step: nothing for a scenario to replay")
    scenario_name = name or str(top.get("session_id") or Path(file).stem) or "atif"
    head = [f"# imported by autocue import atif from {Path(file).name} ({version}, agent "
            f"{agent.get('name')!s} {agent.get('version')!s}; tools: {tools})\n",
            f"name: {flow(scenario_name)}\n"]
    if initial is not None:
        head.append(f"initialPrompt: {flow(initial)}\n")
    head.append("timeline:\n")
    return ImportedScenario("".join(head + kept), scenario_name, notes, replies, n_calls)


__all__ = ["ImportedScenario", "import_atif", "import_trajectory"]
