"""``autocue`` entry point: dispatches to sub-commands, imported lazily to keep startup fast.

Each sub-command lives in its own module under ``autocue.cli`` with ``main(argv) -> int``.
Without a sub-command, the arguments go to the agent CLI (``autocue -p "..."``).
"""

from __future__ import annotations

import importlib
import sys

SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("autocue.cli.demo", "run the example playbook tests and scenarios with a summary"),
    "serve": ("autocue.cli.serve", "run the mock LLM API server on scenarios"),
    "scenario": ("autocue.cli.scenario", "check, run, or print the JSON Schema of scenario files"),
    "loop": ("autocue.cli.loop", "run the hat-based orchestrator loop"),
    "test": ("autocue.cli.testtools", "orchestrator test tools: setup, run, assert, inspect, ..."),
    "mcp": ("autocue.cli.mcp", "serve the orchestrator test tools over MCP (stdio)"),
    "verify-install": ("autocue.cli.verify_install", "build, install and load an extension package in a sandbox"),
    "report": ("autocue.cli.report", "summarize a recorded session"),
    "run": ("autocue.cli.run", "run scenarios as end-to-end tests of a terminal program"),
    "mock-agent": ("autocue.cli.mock_agent", "a deterministic agent CLI that plays a scenario"),
}

AGENT_CLI = "autocue.cli.agent"


def _usage() -> str:
    lines = [
        "usage: autocue [-p PROMPT] [options]      run the agent",
        "       autocue COMMAND [args]             run a command",
        "",
        "commands:",
    ]
    for name, (_, help_text) in SUBCOMMANDS.items():
        lines.append(f"  {name:<16} {help_text}")
    lines.append("")
    lines.append("Run 'autocue COMMAND --help' for a command's options.")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] in ("--version", "-V"):
        from autocue import __version__

        print(f"autocue {__version__}")
        return 0
    if args and args[0] in ("help", "--commands"):
        print(_usage())
        return 0
    if args and args[0] in SUBCOMMANDS:
        module_name = SUBCOMMANDS[args[0]][0]
        rest = args[1:]
    else:
        module_name = AGENT_CLI
        rest = args
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        if e.name == module_name:
            cmd = args[0] if args and args[0] in SUBCOMMANDS else "the agent CLI"
            print(f"autocue: {cmd} is not available in this build ({module_name} is missing)", file=sys.stderr)
            return 2
        raise
    code = module.main(rest)
    return int(code or 0)


if __name__ == "__main__":
    sys.exit(main())
