"""opencode (``opencode-ai``): all three APIs through the AI SDK providers built into its binary.

The config comes from ``OPENCODE_CONFIG_CONTENT`` (one provider ``mock`` with the run's key, as
model and small model, autoupdate and sharing off); models fetch, auto-update and LSP downloads
are disabled and ``npm_config_registry`` points nowhere, so it installs no plugins. The prompt is
passed as separate words (one argument with spaces reaches the model wrapped in quotes).

Its TUI (OpenTUI) enters the alternate screen and shows a blank frame while its server worker
boots (3-20 s on a loaded machine); keys typed then are dropped, so the initial prompt waits for
the input box's placeholder, ``Ask anything``: a quiet screen alone settled on the blank frame
whenever the process tree happened to be idle, and the prompt was lost.

Its tools: bash/read/write/edit/grep/glob/task/todowrite/webfetch, with camelCase arguments. Its
small model is asked for a title first (system prompt "You are a title generator"): answered with
the scenario's name.
"""

from __future__ import annotations

from autocue.catalog.cli import AgentCli, Detect, RequestView, SideCall, any_of, scenario_title
from autocue.catalog.launch import AcpProfile, AgentProfile
from autocue.catalog.shell import cwd, glob_pattern, sed_cmd, some
from autocue.catalog.tools import Args, ToolMapping, ToolProfile

_CONFIG = ('{"$schema": "https://opencode.ai/config.json", '
           '"provider": {"mock": {"npm": "{oc_npm}", "options": {"baseURL": "{openai_base_url}", '
           '"apiKey": "{api_key}"}, "models": {"mock": {}}}}, "model": "mock/mock", "small_model": "mock/mock", '
           '"autoupdate": false, "share": "disabled", "permission": {"edit": "allow", "bash": "allow"}}')

PROFILE = AgentProfile(
    name="opencode",
    binary="opencode",
    print_args=("run", "-m", "mock/mock", "{prompt_words}"),
    tui_args=("-m", "mock/mock"),
    apis={"openai": {"oc_npm": "@ai-sdk/openai-compatible"}, "anthropic": {"oc_npm": "@ai-sdk/anthropic"},
          "openai-responses": {"oc_npm": "@ai-sdk/openai"}},
    env={"OPENCODE_CONFIG_CONTENT": _CONFIG, "OPENCODE_DISABLE_MODELS_FETCH": "1",
         "OPENCODE_DISABLE_AUTOUPDATE": "1", "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
         "npm_config_registry": "http://127.0.0.1:9/"},
    tool_profile="opencode",
    package="opencode-ai",
    version="1.18.33",
    verified=("1.18.33",),
    side_requests=("title (system prompt 'You are a title generator')",),
    quit_input="<ctrl-c><ctrl-c>",
    ready="Ask anything",
    notes="asks its small model for a title first; ignores SIGTERM in a request loop (the group is killed)",
    acp=AcpProfile("opencode", ("acp",), notes="its own ACP server (`opencode acp`)"),
)


def _bash(a: Args) -> Args:
    cmd = str(a["cmd"])
    return some({"command": cmd, "description": a.get("description") or cmd[:80], "workdir": cwd(a),
                 "timeout": a.get("timeout")})


TOOLS = ToolProfile("opencode", {
    "runCmd": ToolMapping("bash", build=_bash),
    "readFile": ToolMapping("read", {"path": "filePath", "encoding": None}),
    "writeFile": ToolMapping("write", {"path": "filePath"}),
    "editFile": ToolMapping("edit", {"path": "filePath", "old_string": "oldString", "new_string": "newString",
                                     "replace_all": "replaceAll"}),
    "grep": ToolMapping("grep", build=lambda a: some({"pattern": a["pattern"], "path": a.get("path"),
                                                      "include": a.get("glob")})),
    "find": ToolMapping("glob", build=lambda a: some({"pattern": glob_pattern(a, listing=False),
                                                      "path": a.get("path")})),
    "listDir": ToolMapping("glob", build=lambda a: some({"pattern": glob_pattern(a, listing=True),
                                                         "path": a.get("path")})),
    "sed": ToolMapping("bash", build=lambda a: {"command": sed_cmd(a), "description": "sed " + str(a["path"])}),
    "task": ToolMapping("task"),
    "todoWrite": ToolMapping("todowrite"),
    "webFetch": ToolMapping("webfetch", build=lambda a: {"url": a["url"], "format": a.get("format", "markdown")}),
}, "opencode: bash, read, write, edit, grep, glob, ...")


def _is_title(req: RequestView) -> bool:
    return "title generator" in req.system_text()[:200].lower()


CLI = AgentCli(
    launch=PROFILE,
    tools=(TOOLS,),
    detect=(Detect(TOOLS, any_of("todowrite", "webfetch", "glob")),),
    detect_rank=40,
    side_calls=(SideCall("title", _is_title, lambda name: scenario_title(name)[:50]),),
)
