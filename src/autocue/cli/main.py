"""``autocue`` entry point: dispatches to sub-commands, imported lazily to keep startup fast.

Each sub-command lives in its own module under ``autocue.cli`` with ``main(argv) -> int``.
Without a sub-command, the arguments go to the agent CLI (``autocue -p "..."``), except a
first word that is a near miss of a command (``autocue srve x.yaml``): that is refused with
"did you mean", not sent to the model (``autocue -- WORDS`` sends it all the same).

Every error ends in one line on stderr and a non-zero exit: the commands report the errors
they know; an unexpected exception becomes one line naming it, with a hint to rerun with
``AUTOCUE_DEBUG=1`` for the traceback.
"""

from __future__ import annotations

import importlib
import os
import sys

SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("autocue.cli.demo", "run the example playbook tests and scenarios with a summary"),
    "init": ("autocue.cli.init", "write the examples into DIR as a starting project (never overwrites)"),
    "serve": ("autocue.cli.serve", "run the mock LLM API server on scenarios"),
    "record": ("autocue.cli.record", "record real LLM API traffic into scenarios (a proxy)"),
    "replay": ("autocue.cli.replay", "replay a recording strictly, or fork it at reply N to a live upstream"),
    "diff": ("autocue.cli.diff", "compare two recorded scenarios and classify the drift"),
    "export": ("autocue.cli.export", "write a session, recording or run as a trace (--atif: Harbor's ATIF)"),
    "import": ("autocue.cli.import_cmd", "turn a trace (atif: a Harbor trajectory) into a scenario to replay"),
    "fuzz-client": ("autocue.cli.fuzz_client", "run a client command against fuzzed streams; shrink a failure"),
    "scenario": ("autocue.cli.scenario", "check, run, or print the JSON Schema of scenario files"),
    "loop": ("autocue.cli.loop", "run the hat-based orchestrator loop"),
    "check": ("autocue.cli.checks", "the orchestrator loop's checks: setup, run, assert, inspect, ..."),
    "mcp": ("autocue.cli.mcp", "serve the orchestrator loop's checks over MCP (stdio)"),
    "verify-install": ("autocue.cli.verify_install", "build, install and load an extension package in a sandbox"),
    "report": ("autocue.cli.report", "summarize a recorded session"),
    "simulate": ("autocue.cli.simulate", "stream scenarios as simulated sessions (REST + SSE)"),
    "view": ("autocue.cli.view", "render a session, loop recording, run or live stream as one HTML page"),
    "run": ("autocue.cli.run", "run scenarios as end-to-end tests of a terminal program"),
    "mock-agent": ("autocue.cli.mock_agent", "a deterministic agent CLI that plays a scenario"),
    "acp-agent": ("autocue.cli.acp_agent", "a deterministic ACP agent (stdio) that plays a scenario"),
    "agents": ("autocue.cli.agents", "list the real agent CLIs (versions, verified) or install pinned ones"),
}

RENAMED: dict[str, str] = {"test": "check"}
"""Old command names that still work: one line on stderr names the new one, then it runs."""

AGENT_CLI = "autocue.cli.agent"


def _usage() -> str:
    *commands, hint = commands_help().splitlines()
    return "\n".join([
        "usage: autocue [-p PROMPT] [options]      run the agent",
        "       autocue COMMAND [args]             run a command",
        "",
        *commands,
        "",
        hint,
    ])


def commands_help() -> str:
    """The sub-commands, one line each (for ``autocue --help``)."""
    lines = ["commands:", *(f"  {name:<16} {help_text}" for name, (_, help_text) in SUBCOMMANDS.items())]
    return "\n".join([*lines, "Run 'autocue COMMAND --help' for a command's options."])


def near_command(word: str) -> str | None:
    """The sub-command ``word`` is a near miss of (a typo within edit distance 2, or a prefix of 3
    letters or more), or None."""
    import difflib  # only here: the dispatch of a command imports nothing it does not run
    import re

    from autocue.errors import nearest

    if not re.fullmatch(r"[A-Za-z][A-Za-z_-]*", word):
        return None
    w = word.lower()
    names = [*SUBCOMMANDS, *RENAMED]
    if w in names:
        return RENAMED.get(w, w)
    prefixed = {RENAMED.get(c, c) for c in names if len(w) >= 3 and c.startswith(w)}
    if len(prefixed) == 1:
        return prefixed.pop()
    close = difflib.get_close_matches(w, names, n=1, cutoff=0.8)
    if close:
        return RENAMED.get(close[0], close[0])
    return nearest(w, SUBCOMMANDS)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    try:
        return _dispatch(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # the reader went away (autocue ... | head): no traceback, and none at exit either
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except Exception as e:
        if os.environ.get("AUTOCUE_DEBUG"):
            raise
        from autocue.cli.args import one_line

        what = one_line(str(e)) or "(no message)"
        print(f"autocue: unexpected error: {type(e).__name__}: {what} "
              "(rerun with AUTOCUE_DEBUG=1 for the traceback)", file=sys.stderr)
        return 1


def _dispatch(args: list[str]) -> int:
    if args and args[0] in ("--version", "-V"):
        from autocue import __version__

        print(f"autocue {__version__}")
        return 0
    if args and args[0] in ("help", "--commands"):
        print(_usage())
        return 0
    if args and args[0] in RENAMED:
        print(f"autocue: `autocue {args[0]}` is now `autocue {RENAMED[args[0]]}`", file=sys.stderr)
        args = [RENAMED[args[0]], *args[1:]]
    if args and args[0] in SUBCOMMANDS:
        module_name = SUBCOMMANDS[args[0]][0]
        rest = args[1:]
    else:
        near = near_command(args[0]) if args else None
        if near is not None:
            import shlex

            print(f"autocue: {args[0]!r} is not a command; did you mean 'autocue {near}'? "
                  f"(to send it to the model as a prompt: {shlex.join(['autocue', '--', *args])})", file=sys.stderr)
            return 2
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
