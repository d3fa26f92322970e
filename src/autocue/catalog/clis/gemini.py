"""Gemini CLI (``@google/gemini-cli``): the Gemini API only.

``~/.gemini/settings.json`` selects API-key auth (without it the base-URL variable picks the
"gateway" auth, refused with exit 41), turns off usage statistics and folder trust;
``GEMINI_CLI_TRUST_WORKSPACE=true`` trusts the workspace (exit 55 otherwise); ``--yolo``
declares the write and shell tools and runs them without asking. ``-m`` skips the model-router
call (answered as a side request anyway). It re-launches itself as a second process, and exits
42 under ``CI=true``: the executor removes ``CI`` and kills the whole process group.

Its tools: run_shell_command/read_file/write_file/replace/grep_search/glob/list_directory/
google_web_search/web_fetch/write_todos. Its model router (without ``-m``: JSON output with a
``complexity_score`` schema, ``generationConfig.responseSchema``) is answered
``{"complexity_reasoning": "scripted", "complexity_score": 1}``.
"""

from __future__ import annotations

from typing import Any

import orjson

from autocue.catalog.cli import AgentCli, Detect, RequestView, SideCall, all_of, any_of, schema_mentions
from autocue.catalog.launch import AcpProfile, AgentProfile
from autocue.catalog.shell import cwd, glob_pattern, sed_cmd, some
from autocue.catalog.tools import Args, ToolMapping, ToolProfile

_SETTINGS = """{"security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}},
 "privacy": {"usageStatisticsEnabled": false}, "general": {"disableAutoUpdate": true, "disableUpdateNag": true},
 "ui": {"hideTips": true, "hideBanner": true}}
"""

PROFILE = AgentProfile(
    name="gemini",
    binary="gemini",
    print_args=("-m", "gemini-2.5-flash", "-p", "{prompt}", "--yolo"),
    tui_args=("-m", "gemini-2.5-flash", "--yolo"),
    apis={"gemini": {}},
    env={"GOOGLE_GEMINI_BASE_URL": "{base_url}", "GEMINI_API_KEY": "{api_key}", "GEMINI_CLI_TRUST_WORKSPACE": "true",
         "GEMINI_CLI_NO_RELAUNCH": "true"},
    files={".gemini/settings.json": _SETTINGS},
    tool_profile="gemini-cli",
    package="@google/gemini-cli",
    version="0.61.0",
    verified=("0.61.0",),
    side_requests=("model router (JSON with complexity_score), without -m",),
    ready="Type your message",
    quit_input="/exit<enter>",
    notes="Gemini API only; exits 42 with CI=true; re-launches itself as a second process",
    acp=AcpProfile("gemini", ("-m", "gemini-2.5-flash", "--acp"), client_fs=False,
                   notes="its own ACP server (`--acp`); asks the client before writes and commands; not offered the "
                         "client's fs: 0.61.0 takes the client's not-found error of fs/read_text_file (a plain "
                         "JSON-RPC error object, not an Error) as a failure, so it could not create a file"),
)


def _read(a: Args) -> Args:
    out: Args = {"file_path": a["path"]}
    offset, limit = a.get("offset"), a.get("limit")
    if offset is not None or limit is not None:
        start = int(offset or 1)
        out["start_line"] = start
        if limit is not None:
            out["end_line"] = start + int(limit) - 1
    return out


def _todos(a: Args) -> Args:
    todos = []
    for t in a.get("todos") or []:
        if isinstance(t, dict):
            todos.append(some({"description": t.get("description") or t.get("content"), "status": t.get("status")}))
        else:
            todos.append({"description": str(t), "status": "pending"})
    return {"todos": todos}


TOOLS = ToolProfile("gemini-cli", {
    "runCmd": ToolMapping("run_shell_command", build=lambda a: some({
        "command": str(a["cmd"]), "description": a.get("description"), "dir_path": cwd(a),
        "is_background": a.get("run_in_background")})),
    "readFile": ToolMapping("read_file", build=_read),
    "writeFile": ToolMapping("write_file", {"path": "file_path"}),
    "editFile": ToolMapping("replace", build=lambda a: some({
        "file_path": a["path"], "instruction": a.get("instruction") or f"Replace text in {a['path']}",
        "old_string": a["old_string"], "new_string": a["new_string"],
        "allow_multiple": a.get("replace_all")})),
    "grep": ToolMapping("grep_search", build=lambda a: some({
        "pattern": a["pattern"], "dir_path": a.get("path"), "include_pattern": a.get("glob")})),
    "find": ToolMapping("glob", build=lambda a: some({"pattern": glob_pattern(a, listing=False),
                                                      "dir_path": a.get("path")})),
    "listDir": ToolMapping("list_directory", build=lambda a: {"dir_path": a.get("path") or "."}),
    "sed": ToolMapping("run_shell_command", build=lambda a: {"command": sed_cmd(a)}),
    "webSearch": ToolMapping("google_web_search", build=lambda a: {"query": a["query"]}),
    "webFetch": ToolMapping("web_fetch", build=lambda a: {
        "prompt": f"{a.get('prompt') or 'Fetch'} {a['url']}".strip()}),
    "todoWrite": ToolMapping("write_todos", build=_todos),
}, "Gemini CLI: run_shell_command, read_file, replace, ...")


def _is_router(req: RequestView) -> bool:
    cfg: Any = req.body.get("generationConfig")
    return isinstance(cfg, dict) and schema_mentions(cfg.get("responseSchema") or cfg.get("responseJsonSchema"),
                                                     "complexity_score")


_ROUTE = orjson.dumps({"complexity_reasoning": "scripted", "complexity_score": 1}).decode()

CLI = AgentCli(
    launch=PROFILE,
    aliases=("gemini-cli",),
    tools=(TOOLS,),
    detect=(Detect(TOOLS, any_of("run_shell_command", "grep_search") | all_of("read_file", "list_directory")),),
    detect_rank=20,
    side_calls=(SideCall("gemini-router", _is_router, lambda name: _ROUTE, tool_less=False),),
)
