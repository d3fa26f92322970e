"""autocue's own agent CLI: listed with the real CLIs; its launch is built in ``autocue.runner.launch``.

Its tools are pi's; a request declaring them with ``grep``, ``find`` or ``ls`` is taken for autocue's.
"""

from __future__ import annotations

from autocue import __version__
from autocue.catalog.cli import AgentCli, Detect, any_of
from autocue.catalog.clis.pi import CORE, TOOL_MAP
from autocue.catalog.launch import AgentProfile
from autocue.catalog.tools import ToolProfile

PROFILE = AgentProfile(
    name="autocue",
    binary="autocue",
    print_args=("--model", "mock/mock-model", "--no-discover", "-p", "{prompt}"),
    tui_args=("--model", "mock/mock-model", "--no-discover"),
    apis={"openai": {}, "anthropic": {}, "gemini": {}, "openai-responses": {}},
    tool_profile="autocue",
    package="autocue",
    installer="pip",
    version=__version__,
    verified=(__version__,),
    quit_input="<ctrl-d>",
    settle=0.03,
    notes="runs as `python -m autocue.cli.main` with the Python running autocue",
)


TOOLS = ToolProfile("autocue", TOOL_MAP, "autocue's own tools (pi's names)")

CLI = AgentCli(
    launch=PROFILE,
    tools=(TOOLS,),
    detect=(Detect(TOOLS, CORE & any_of("grep", "find", "ls")),),
    detect_rank=50,
)
