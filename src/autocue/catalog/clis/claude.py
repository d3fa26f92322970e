"""Claude Code (``@anthropic-ai/claude-code``): Anthropic Messages, directly or over AWS Bedrock.

Seeds ``~/.claude.json`` so that no onboarding, theme picker, trust-this-folder or API-key
prompt appears (without it the TUI exits 1 on a network check), disables non-essential traffic
(telemetry, update checks) and runs with ``--permission-mode acceptEdits`` and an
``--allowedTools`` list, which lets it write and run commands without asking, as root too
(where ``--dangerously-skip-permissions`` is refused).

Its tool names: Claude Code 2.1 (``claude-code``: Bash/Read/Write/Edit/Agent/WebFetch/...; search
goes through Bash because 2.1 declares no Grep/Glob) and 2.0 (``claude-code-2.0``, with
Grep/Glob/Task/TodoWrite). Its TUI asks for a session title before the first turn (a tool-less
request whose system prompt asks for a "sentence-case title" as JSON, ``output_config.format``
with a ``title`` property): answered ``{"title": <the scenario's name>}``.

Over Bedrock (``server.llmApiStyle: bedrock``: ``CLAUDE_CODE_USE_BEDROCK=1``, the mock server as
``ANTHROPIC_BEDROCK_BASE_URL``, dummy AWS keys whose access key id is the run's key) it signs its
calls with SigV4, probes each model it may use (an ``invoke`` with ``max_tokens: 1`` and the prompt
``.``: a side call) and streams its turns with ``invoke-with-response-stream``.
"""

from __future__ import annotations

from typing import Any

import orjson

from autocue.catalog.cli import (
    AgentCli,
    Detect,
    RequestView,
    SideCall,
    any_of,
    scenario_title,
    schema_mentions,
)
from autocue.catalog.launch import AcpProfile, AgentProfile
from autocue.catalog.shell import cd, find_cmd, glob_pattern, grep_cmd, ls_cmd, sed_cmd, some
from autocue.catalog.tools import Args, ToolMapping, ToolProfile

_CONFIG = """{"hasCompletedOnboarding": true, "theme": "dark", "numStartups": 1,
 "autoUpdates": false, "bypassPermissionsModeAccepted": true,
 "projects": {"{workspace}": {"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true,
                              "allowedTools": []}},
 "customApiKeyResponses": {"approved": ["{api_key_tail}"], "rejected": []}}
"""
_ACP_SETTINGS = '{"permissions": {"defaultMode": "acceptEdits"}}\n'
"""The ACP adapter's user settings: its sessions start in ``acceptEdits`` as the CLI's print and TUI runs do
(``--permission-mode acceptEdits``); other tools ask the ACP client (``session/request_permission``). Without
it a session starts in the adapter's built-in ``auto`` mode, whose classifier sends each shell command the
agent wants to run to the model first (a tool-less "security monitor" request per stage), unscripted calls."""
_COMMON = ("--model", "mock-claude", "--permission-mode", "acceptEdits", "--allowedTools", "Bash Write Edit Read")

PROFILE = AgentProfile(
    name="claude",
    binary="claude",
    print_args=("-p", "{prompt}", *_COMMON),
    tui_args=_COMMON,
    apis={"anthropic": {"use_bedrock": "", "bedrock_url": ""},
          "bedrock": {"use_bedrock": "1", "bedrock_url": "{base_url}"}},
    env={"ANTHROPIC_BASE_URL": "{base_url}", "ANTHROPIC_API_KEY": "{api_key}",
         # over Bedrock (``server.llmApiStyle: bedrock``): SigV4-signed calls, the access key id names the session
         "CLAUDE_CODE_USE_BEDROCK": "{use_bedrock}", "ANTHROPIC_BEDROCK_BASE_URL": "{bedrock_url}",
         "AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "{api_key}", "AWS_SECRET_ACCESS_KEY": "autocue-mock-secret",
         "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1",
         "DISABLE_ERROR_REPORTING": "1"},
    files={".claude.json": _CONFIG},
    dirs=(".claude",),
    session_logs=".claude/projects/*/*.jsonl",
    tool_profile="claude-code",
    package="@anthropic-ai/claude-code",
    version="2.1.197",
    verified=("2.1.197",),
    side_requests=("title (TUI: a tool-less request whose system prompt asks for a session title)",
                   "HEAD / connectivity probe",
                   "Bedrock: model probes (POST /model/{id}/invoke, max_tokens 1, the prompt '.')"),
    ready="accept edits",
    quit_input="<ctrl-c><ctrl-c>",
    notes="probes with HEAD /, then streams POST /v1/messages?beta=true; the TUI asks for a session title first; "
          "over Bedrock it probes its models (invoke, max_tokens 1), then streams POST "
          "/model/{id}/invoke-with-response-stream",
    acp=AcpProfile("claude-agent-acp", env={"IS_SANDBOX": "1", "ANTHROPIC_MODEL": "mock-claude"},
                   files={".claude/settings.json": _ACP_SETTINGS},
                   package="@agentclientprotocol/claude-agent-acp", version="0.101.0",
                   notes="the adapter embeds the Claude Agent SDK (its own Claude Code), pointed at the mock server "
                         "with the same env; IS_SANDBOX=1 lets it run as root; its sessions start in acceptEdits "
                         "(~/.claude/settings.json), not its built-in auto mode, whose permission classifier asks "
                         "the model about every shell command"),
)


def _bash(a: Args) -> Args:
    return some({
        "command": cd(str(a["cmd"]), a.get("cwd")), "timeout": a.get("timeout"),
        "description": a.get("description"), "run_in_background": a.get("run_in_background"),
    })


_COMMON_TOOLS: dict[str, ToolMapping] = {
    "runCmd": ToolMapping("Bash", build=_bash),
    "readFile": ToolMapping("Read", {"path": "file_path", "encoding": None}),
    "writeFile": ToolMapping("Write", {"path": "file_path"}),
    "editFile": ToolMapping("Edit", {"path": "file_path"}),
    "sed": ToolMapping("Bash", build=lambda a: {"command": sed_cmd(a)}),
    "webFetch": ToolMapping("WebFetch"),
    "webSearch": ToolMapping("WebSearch"),
    "notebookEdit": ToolMapping("NotebookEdit"),
    "exitPlanMode": ToolMapping("ExitPlanMode"),
    "todoWrite": ToolMapping("TodoWrite"),
}


def _skill(a: Args) -> Args:
    cmd = str(a.get("command", "")).lstrip("/")
    name, _, rest = cmd.partition(" ")
    return some({"skill": name, "args": rest or None})


TOOLS_21 = ToolProfile("claude-code", {
    **_COMMON_TOOLS,
    "grep": ToolMapping("Bash", build=lambda a: {"command": grep_cmd(a)}),
    "find": ToolMapping("Bash", build=lambda a: {"command": find_cmd(a)}),
    "listDir": ToolMapping("Bash", build=lambda a: {"command": ls_cmd(a)}),
    "task": ToolMapping("Agent"),
    "bashOutput": ToolMapping("TaskOutput", {"bash_id": "task_id", "filter": None}),
    "killShell": ToolMapping("TaskStop", {"shell_id": "task_id"}),
    "slashCommand": ToolMapping("Skill", build=_skill),
}, "Claude Code 2.1 (no Grep/Glob: search via Bash)")

TOOLS_20 = ToolProfile("claude-code-2.0", {
    **_COMMON_TOOLS,
    "grep": ToolMapping("Grep"),
    "find": ToolMapping("Glob", build=lambda a: some({"pattern": glob_pattern(a, listing=False),
                                                      "path": a.get("path")})),
    "listDir": ToolMapping("Glob", build=lambda a: some({"pattern": glob_pattern(a, listing=True),
                                                         "path": a.get("path")})),
    "task": ToolMapping("Task"),
    "bashOutput": ToolMapping("BashOutput"),
    "killShell": ToolMapping("KillShell"),
    "slashCommand": ToolMapping("SlashCommand"),
}, "Claude Code 2.0 (Grep, Glob, Task, ...)")

_CORE = any_of("Bash", "Read", "Write", "Edit")


def _is_model_probe(req: RequestView) -> bool:
    """Over Bedrock, Claude Code asks each model it may use for one token of an answer to ``.``."""
    msgs = req.body.get("messages")
    return req.body.get("max_tokens") == 1 and isinstance(msgs, list) and len(msgs) == 1 \
        and req.last_user_text().strip() == "."


def _is_title(req: RequestView) -> bool:
    cfg: Any = req.body.get("output_config")
    fmt = cfg.get("format") if isinstance(cfg, dict) else None
    return (isinstance(fmt, dict) and schema_mentions(fmt.get("schema"), "title")) or \
        "sentence-case title" in req.system_text()


CLI = AgentCli(
    launch=PROFILE,
    aliases=("claude-code",),
    tools=(TOOLS_21, TOOLS_20),
    detect=(Detect(TOOLS_20, _CORE & any_of("Grep", "Glob", "Task", "BashOutput", "SlashCommand")),
            Detect(TOOLS_21, _CORE)),
    detect_rank=30,
    side_calls=(SideCall("title", _is_title,
                         lambda name: orjson.dumps({"title": scenario_title(name)[:50]}).decode()),
                SideCall("model probe", _is_model_probe, lambda name: ".")),
)
