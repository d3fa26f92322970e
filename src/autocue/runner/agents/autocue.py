"""autocue's own agent CLI: listed with the real CLIs; its launch is built in ``autocue.runner.launch``."""

from autocue import __version__
from autocue.runner.agents.base import AgentProfile

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
