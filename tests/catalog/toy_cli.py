"""A toy agent CLI, written as a new CLI's catalogue file (``src/autocue/catalog/clis/toy.py``) would be:
its launch profile, its tool names, the declared tools that identify it and its side call. The test
adds it to the registry (the one line in ``autocue.catalog.clis``) and uses it end to end."""

from __future__ import annotations

from autocue.catalog.cli import AgentCli, Detect, RequestView, SideCall, all_of, scenario_title
from autocue.catalog.launch import AgentProfile
from autocue.catalog.tools import ToolMapping, ToolProfile

TOOLS = ToolProfile("toy", {
    "runCmd": ToolMapping("toy_shell", {"cmd": "command", "cwd": None}),
    "writeFile": ToolMapping("toy_write", {"path": "file", "content": "text"}),
}, "the toy CLI: toy_shell, toy_write")


def _is_title(req: RequestView) -> bool:
    return req.system_text().startswith("Name this toy session")


CLI = AgentCli(
    launch=AgentProfile(name="toy", binary="toy", print_args=("--ask", "{prompt}"), apis={"openai": {}},
                        env={"TOY_BASE_URL": "{openai_base_url}", "TOY_API_KEY": "{api_key}"},
                        tool_profile="toy", package="toy-cli", version="1.0.0", verified=("1.0.0",)),
    tools=(TOOLS,),
    detect=(Detect(TOOLS, all_of("toy_shell", "toy_write")),),
    detect_rank=5,
    side_calls=(SideCall("title", _is_title, lambda name: "toy: " + scenario_title(name)),),
)
