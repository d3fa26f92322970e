"""Codex (``@openai/codex``): OpenAI Responses only, through a custom provider.

``CODEX_HOME`` is a fresh dir; a custom provider (``model_providers.mock``) points at the run's
``/v1`` URL with the session key in ``MOCK_API_KEY`` and ``supports_websockets=true``, so Codex
speaks the Responses API over a WebSocket as with OpenAI's own provider (a ``generate: false``
warm-up, then ``response.create`` frames continuing it by ``previous_response_id``); analytics
and the update check are off; the workspace is trusted; ``exec`` runs with
``--sandbox workspace-write`` (its default sandbox is read-only: a refused write still exits 0)
and the TUI with ``--ask-for-approval never``. In an autocue sandbox (``--sandbox bwrap``, ...) Codex's own
sandbox is off (``--sandbox danger-full-access``): its bubblewrap cannot nest in autocue's (no uid map
in a user namespace it did not make), and autocue's already confines it (read-only root, private
network).

``TMPDIR`` is ``{home}/tmp``: Codex creates its helper links (``codex-linux-sandbox``,
``apply_patch``) under ``CODEX_HOME/tmp`` and puts them on ``PATH``, but refuses to when
``CODEX_HOME`` is inside the temp dir (``std::env::temp_dir()``, i.e. ``$TMPDIR`` or ``/tmp``),
where every run's home is. Without them a system bubblewrap older than 0.9.0 (no ``--argv0``:
Debian 12, Ubuntu 22.04), which Codex prefers to its bundled one, cannot start the sandbox
(``bwrap: execvp codex-linux-sandbox: No such file or directory``) and every tool call fails
while Codex exits 0. Its rollout logs (``sessions/**/rollout-*.jsonl``) are read for the tool
calls it reports failed (``autocue.runner.diagnose``).

Its tools: everything through ``exec_command`` (a scenario's ``readFile``, ``grep``, ... as shell
commands). Its TUI asks for a thread title (a tool-less "single-line task title" request):
answered with the scenario's name.
"""

from __future__ import annotations

from collections.abc import Callable

from autocue.catalog.cli import AgentCli, Detect, RequestView, SideCall, any_of, scenario_title
from autocue.catalog.launch import AgentProfile
from autocue.catalog.shell import cwd, edit_cmd, find_cmd, grep_cmd, ls_cmd, read_cmd, sed_cmd, some, write_cmd
from autocue.catalog.tools import Args, ToolMapping, ToolProfile

_CONFIG = ("-c", "model_provider=mock", "-c", "model=mock-model",
           "-c", 'model_providers.mock={name="mock",base_url="{openai_base_url}",env_key="MOCK_API_KEY",'
                 'wire_api="responses",supports_websockets=true}',
           "-c", "analytics.enabled=false", "-c", "check_for_update_on_startup=false",
           "-c", 'projects."{workspace}".trust_level="trusted"', "--sandbox", "workspace-write")

PROFILE = AgentProfile(
    name="codex",
    binary="codex",
    print_args=("exec", "--skip-git-repo-check", *_CONFIG, "{prompt}"),
    tui_args=(*_CONFIG, "--ask-for-approval", "never"),
    apis={"openai-responses": {}},
    env={"CODEX_HOME": "{home}/.codex", "MOCK_API_KEY": "{api_key}", "TMPDIR": "{home}/tmp"},
    dirs=(".codex", "tmp"),
    session_logs=".codex/sessions/**/rollout-*.jsonl",
    tool_profile="codex",
    package="@openai/codex",
    version="0.169.0",
    verified=("0.169.0",),
    ready="Ask Codex to do anything",
    side_requests=("title (TUI: a tool-less 'single-line task title' request)",),
    quit_input="<ctrl-c><ctrl-c>",
    notes="Responses only (`wire_api=responses`), over a WebSocket; everything runs through exec_command",
    in_sandbox=(("workspace-write", "danger-full-access"),),
)


def _exec(cmd_of: Callable[[Args], str]) -> ToolMapping:
    return ToolMapping("exec_command", build=lambda a: some({"cmd": cmd_of(a), "workdir": cwd(a)}))


TOOLS = ToolProfile("codex", {
    "runCmd": _exec(lambda a: str(a["cmd"])),
    "readFile": _exec(read_cmd),
    "writeFile": _exec(write_cmd),
    "editFile": _exec(edit_cmd),
    "grep": _exec(grep_cmd),
    "find": _exec(find_cmd),
    "listDir": _exec(ls_cmd),
    "sed": _exec(sed_cmd),
}, "OpenAI Codex CLI: everything through exec_command")


def _is_title(req: RequestView) -> bool:
    return "single-line task title" in req.last_user_text()[:400]


CLI = AgentCli(
    launch=PROFILE,
    tools=(TOOLS,),
    detect=(Detect(TOOLS, any_of("exec_command", "apply_patch")),),
    detect_rank=10,
    side_calls=(SideCall("title", _is_title, lambda name: scenario_title(name)[:36]),),
)
