"""Claude Code (``@anthropic-ai/claude-code``): Anthropic Messages only.

Seeds ``~/.claude.json`` so that no onboarding, theme picker, trust-this-folder or API-key
prompt appears (without it the TUI exits 1 on a network check), disables non-essential traffic
(telemetry, update checks) and runs with ``--permission-mode acceptEdits`` and an
``--allowedTools`` list, which lets it write and run commands without asking, as root too
(where ``--dangerously-skip-permissions`` is refused).
"""

from autocue.runner.agents.base import AgentProfile

_CONFIG = """{"hasCompletedOnboarding": true, "theme": "dark", "numStartups": 1,
 "autoUpdates": false, "bypassPermissionsModeAccepted": true,
 "projects": {"{workspace}": {"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true,
                              "allowedTools": []}},
 "customApiKeyResponses": {"approved": ["{api_key_tail}"], "rejected": []}}
"""
_COMMON = ("--model", "mock-claude", "--permission-mode", "acceptEdits", "--allowedTools", "Bash Write Edit Read")

PROFILE = AgentProfile(
    name="claude",
    binary="claude",
    print_args=("-p", "{prompt}", *_COMMON),
    tui_args=_COMMON,
    apis={"anthropic": {}},
    env={"ANTHROPIC_BASE_URL": "{base_url}", "ANTHROPIC_API_KEY": "{api_key}",
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
                   "HEAD / connectivity probe"),
    ready="accept edits",
    quit_input="<ctrl-c><ctrl-c>",
    notes="probes with HEAD /, then streams POST /v1/messages?beta=true; the TUI asks for a session title first",
)
