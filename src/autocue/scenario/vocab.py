"""The scenario vocabulary: event kinds, canonical tool names and their argument names.

Shared by the loader, the JSON Schema and the tool profiles so the three never disagree.
Tool-named events (``runCmd: {cmd: ...}``) and ``agentToolUse.toolName`` use the canonical
names below; ``TOOL_NAME_ALIASES`` and ``ARG_ALIASES`` list the spellings real scenario files
use that the loader rewrites to the canonical ones (``run_cmd`` → ``runCmd``,
``runCmd {command}`` → ``{cmd}``, ``writeFile {text}`` → ``{content}``).
"""

from __future__ import annotations

from autocue.catalog.tools import TOOL_NAME_ALIASES as TOOL_NAME_ALIASES
from autocue.catalog.tools import canonical_tool_name as canonical_tool_name

ARTIFACT_TYPES: tuple[str, ...] = ("any", "file", "dir")
"""What the match of an ``expect.artifacts`` entry must be (``type``, default ``any``): anything,
a regular file, a directory. Another word (seed 004's ``taskFile``) is a label, checked as ``any``."""

TOOL_EVENTS: tuple[str, ...] = (
    "runCmd", "grep", "readFile", "listDir", "find", "sed", "editFile", "writeFile", "task", "webFetch",
    "webSearch", "todoWrite", "notebookEdit", "exitPlanMode", "bashOutput", "killShell", "slashCommand",
)
"""Canonical scenario tool names (seed ``Tool-specific events``)."""

TOOL_ARGS: dict[str, tuple[str, ...]] = {
    "runCmd": ("cmd", "cwd", "timeout", "description", "run_in_background"),
    "grep": ("pattern", "path", "glob", "output_mode", "-B", "-A", "-C", "-n", "-i", "type", "head_limit", "multiline"),
    "readFile": ("path", "encoding", "offset", "limit"),
    "listDir": ("path", "recursive", "pattern"),
    "find": ("path", "name", "type"),
    "sed": ("expression", "path", "inplace"),
    "editFile": ("path", "old_string", "new_string", "replace_all"),
    "writeFile": ("path", "content"),
    "task": ("description", "prompt", "subagent_type"),
    "webFetch": ("url", "prompt"),
    "webSearch": ("query", "allowed_domains", "blocked_domains"),
    "todoWrite": ("todos",),
    "notebookEdit": ("notebook_path", "cell_id", "new_source", "cell_type", "edit_mode"),
    "exitPlanMode": ("plan",),
    "bashOutput": ("bash_id", "filter"),
    "killShell": ("shell_id",),
    "slashCommand": ("command",),
}

REQUIRED_ARGS: dict[str, tuple[str, ...]] = {
    "runCmd": ("cmd",),
    "readFile": ("path",),
    "writeFile": ("path", "content"),
    "editFile": ("path", "old_string", "new_string"),
    "grep": ("pattern",),
    "sed": ("expression", "path"),
    "webFetch": ("url",),
    "webSearch": ("query",),
    "todoWrite": ("todos",),
}

ARG_ALIASES: dict[str, dict[str, str]] = {
    "runCmd": {"command": "cmd"},
    "readFile": {"file_path": "path"},
    "writeFile": {"file_path": "path", "text": "content", "contents": "content"},
    "editFile": {"file_path": "path", "oldText": "old_string", "newText": "new_string"},
}

RESPONSE_PART_KINDS: tuple[str, ...] = (
    "think", "assistant", "agentToolUse", "agentEdits", "toolResult", "error", "agentPlan", *TOOL_EVENTS,
)
"""Keys an element of an ``llmResponse`` list may have."""

RUNNER_EVENTS: tuple[str, ...] = (
    "status", "log", "initialize", "sessionStart", "setMode", "setModel", "userCancelSession", "agentFileReads",
    "agentPermissionRequest", "assertVm", "applyPatch",
)
"""Events other runners act on; kept in the model as ``RunnerEvent``, never compiled to steps."""

TOP_LEVEL_KEYS: tuple[str, ...] = (
    "name", "description", "tags", "terminalRef", "compat", "initialPrompt", "repo", "ah", "server", "timeline",
    "expect", "acp", "rules", "events", "assertions",
    "agent", "masks",  # read by autocue.runner (the launch profile, screen masks)
)

ERROR_TYPE_STATUS: dict[str, int] = {
    "invalid_request_error": 400, "authentication_error": 401, "permission_error": 403, "not_found_error": 404,
    "request_too_large": 413, "rate_limit_error": 429, "api_error": 500, "overloaded_error": 529,
}
