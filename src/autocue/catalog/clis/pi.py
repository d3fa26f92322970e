"""pi (``@mariozechner/pi-coding-agent``): all three APIs, through ``$PI_CODING_AGENT_DIR/models.json``.

One provider, ``mock``, with the run's key and the protocol of ``server.llmApiStyle``
(``openai`` → Chat Completions, ``anthropic`` → Messages, ``openai-responses`` → Responses);
``PI_OFFLINE=1`` keeps it off the network.

Its TUI draws its key hints (``escape interrupt · ...``) with the input box, in one frame: the
initial prompt waits for them. Typed before (while it starts), the text and its Enter reach pi in
one read and the Enter is not taken as the submit.

Its tools (also autocue's): read/write/edit/bash/grep/find/ls.
"""

from __future__ import annotations

import math

from autocue.catalog.cli import AgentCli, Detect, at_least
from autocue.catalog.launch import AcpProfile, AgentProfile
from autocue.catalog.shell import cd, sed_cmd, some
from autocue.catalog.tools import Args, ToolMapping, ToolProfile

_MODELS = """{"providers": {"mock": {"baseUrl": "{pi_url}", "api": "{pi_api}", "apiKey": "{api_key}",
                        "models": [{"id": "mock"}]}}}
"""

PROFILE = AgentProfile(
    name="pi",
    binary="pi",
    print_args=("--model", "mock/mock", "-p", "{prompt}"),
    tui_args=("--model", "mock/mock"),
    apis={"openai": {"pi_api": "openai-completions", "pi_url": "{openai_base_url}"},
          "anthropic": {"pi_api": "anthropic-messages", "pi_url": "{base_url}"},
          "openai-responses": {"pi_api": "openai-responses", "pi_url": "{openai_base_url}"}},
    env={"PI_CODING_AGENT_DIR": "{home}/pi", "PI_OFFLINE": "1"},
    files={"pi/models.json": _MODELS},
    tool_profile="pi",
    package="@mariozechner/pi-coding-agent",
    version="0.73.1",
    verified=("0.73.1",),
    quit_input="<ctrl-c><ctrl-c>",
    ready="escape interrupt",
    notes="tools read, bash, edit, write",
    acp=AcpProfile("pi-acp", files={"pi/settings.json": '{"defaultProvider": "mock", "defaultModel": "mock"}\n'},
                   package="pi-acp", version="0.0.24", notes="the adapter spawns `pi --mode rpc`"),
)


def _bash(a: Args) -> Args:
    out: Args = {"command": cd(str(a["cmd"]), a.get("cwd"))}
    if a.get("timeout") is not None:
        out["timeout"] = max(1, math.ceil(float(a["timeout"]) / 1000))  # scenario ms -> pi seconds
    return out


TOOL_MAP: dict[str, ToolMapping] = {
    "runCmd": ToolMapping("bash", build=_bash),
    "readFile": ToolMapping("read", {"encoding": None}),
    "writeFile": ToolMapping("write"),
    "editFile": ToolMapping("edit", {"old_string": "oldText", "new_string": "newText", "replace_all": None}),
    "grep": ToolMapping("grep", {"-i": "ignoreCase", "-C": "context", "head_limit": "limit", "output_mode": None,
                                 "-n": None, "-A": None, "-B": None, "type": None, "multiline": None}),
    "find": ToolMapping("find", build=lambda a: some({
        "pattern": a.get("name") or a.get("pattern") or "*", "path": a.get("path")})),
    "listDir": ToolMapping("ls", {"recursive": None, "pattern": None}),
    "sed": ToolMapping("bash", build=lambda a: {"command": sed_cmd(a)}),
}
"""pi's tool names (autocue's CLI uses them too)."""

CORE = at_least(2, "read", "write", "edit", "bash")

TOOLS = ToolProfile("pi", TOOL_MAP, "pi coding agent: read, write, edit, bash, grep, find, ls")

CLI = AgentCli(
    launch=PROFILE,
    tools=(TOOLS,),
    detect=(Detect(TOOLS, CORE),),
    detect_rank=60,
)
